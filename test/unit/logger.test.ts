import { redact, scrub } from '../../src/logger';

describe('redact', () => {
  test('when fields are named like secrets, then their values are replaced at any depth', () => {
    const out = redact({
      Password: 'p1',
      newPassword: 'p2',
      ClientSecret: 's',
      AccessToken: 't',
      authorization: 'Bearer x',
      'x-api-key': 'k',
      apiKey: 'k2',
      cardNumber: '4111111111111111',
      cvv: '123',
      nested: { user: { password: 'deep' }, list: [{ token: 'in-array' }] },
      email: 'a@example.com',
      count: 3,
    }) as Record<string, any>;
    for (const k of ['Password', 'newPassword', 'ClientSecret', 'AccessToken', 'authorization', 'x-api-key', 'apiKey', 'cardNumber', 'cvv']) expect(out[k]).toBe('[redacted]');
    expect(out.nested.user.password).toBe('[redacted]');
    expect(out.nested.list[0].token).toBe('[redacted]');
    expect(out.email).toBe('a@example.com');
    expect(out.count).toBe(3);
  });

  test('when values are not objects, then they pass through (strings scrubbed)', () => {
    expect(redact(null)).toBeNull();
    expect(redact(5)).toBe(5);
    expect(redact(['b2bk_abcDEF123'])).toEqual(['[redacted-key]']);
  });
});

describe('scrub', () => {
  test('when a string embeds an API key, a JWT, a scrypt hash or a card number, then each is replaced', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    const s = scrub(`key b2bk_Zx9-_abc token ${jwt} hash scrypt$16384$8$1$c2FsdA==$aGFzaA== card 4111 1111 1111 1111 end`);
    expect(s).toMatch(/^key \[redacted-key\] token \[redacted-token\] hash \[redacted-hash\] card \[redacted-number\] ?end$/);
    expect(s).not.toMatch(/4111|c2FsdA|Zx9/);
  });

  test('when a string embeds key=value or JSON pairs of secret names, then the values are replaced', () => {
    expect(scrub(`{"password":"hunter22","name":"x"}`)).toBe(`{"password":"[redacted]","name":"x"}`);
    expect(scrub(`clientSecret: 'abc' cardNumber="4"`)).toBe(`clientSecret: '[redacted]' cardNumber="[redacted]"`);
  });

  test('when a string holds nothing secret, then it is unchanged', () => {
    expect(scrub('GET /api/organization 200 in 12 ms')).toBe('GET /api/organization 200 in 12 ms');
  });
});
