import { checkConfiguration, checkSecrets, findTemplate, needsConnectionTest, redact } from '../../src/domain/integrations/templates';

const direct = findTemplate(1, 'providerdirect')!;
const smtp = findTemplate(4, 'Smtp')!;

describe('integration templates', () => {
  test('when a configuration is checked, then keys are canonical, values strings, defaults filled and unknown keys named', () => {
    expect(checkConfiguration(direct, { endpoint: 'https://p.example', isSandbox: false }, { requireAll: true })).toEqual({
      values: { Endpoint: 'https://p.example', IsSandbox: 'false' },
      errors: {},
    });
    expect(checkConfiguration(smtp, { Host: 'mail.example', From: 'a@b.c' }, { requireAll: true }).values).toEqual({
      Host: 'mail.example',
      From: 'a@b.c',
      Port: '587',
      Secure: 'false',
    });
    expect(checkConfiguration(direct, { Endpoint: 'ftp://x', Colour: 'red', IsSandbox: 'maybe' }, { requireAll: true }).errors).toEqual({
      'configuration.Endpoint': ['must be an http(s) URL.'],
      'configuration.Colour': [expect.stringContaining('Unknown configuration key')],
      'configuration.IsSandbox': ['must be true or false.'],
    });
    expect(checkConfiguration(direct, {}, { requireAll: false })).toEqual({ values: {}, errors: {} });
  });

  test('when secrets are checked, then required ones must be present and values are never echoed', () => {
    const r = checkSecrets(direct, { Token: 'value-123' }, { requireAll: true });
    expect(Object.keys(r.errors).sort()).toEqual(['secrets.ApiKey', 'secrets.Token']);
    expect(JSON.stringify(r.errors)).not.toContain('value-123');
    expect(checkSecrets(direct, { apikey: 'k' }, { requireAll: true })).toEqual({ values: { ApiKey: 'k' }, errors: {} });
  });

  test('when critical keys or secrets change, then a connection test is required', () => {
    expect(needsConnectionTest({ IsSandbox: 'true' }, { IsSandbox: 'true' }, false)).toBe(false);
    expect(needsConnectionTest({ IsSandbox: 'true' }, { IsSandbox: 'false' }, false)).toBe(true);
    expect(needsConnectionTest({}, { Environment: 'live' }, false)).toBe(true);
    expect(needsConnectionTest({ MerchantId: 'a' }, { MerchantId: 'a' }, true)).toBe(true);
  });

  test('when a message contains a secret, then it is replaced', () => {
    expect(redact('login failed for s3cr3t-pw', ['s3cr3t-pw'])).toBe('login failed for ***');
  });
});
