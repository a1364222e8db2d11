import { classifyProviderResponse } from '../../src/domain/payments/provider-errors';

describe('classifyProviderResponse', () => {
  test('when the provider answers 2xx, then there is no failure', () => {
    expect(classifyProviderResponse(201, { chargeId: 'ch_1' })).toBeNull();
    expect(classifyProviderResponse(200, null)).toBeNull();
  });

  test.each([
    ['card_declined', 'Payment failed: The card was declined.'],
    ['insufficient_funds', 'Payment failed: The card has insufficient funds.'],
    ['expired_card', 'Payment failed: The card has expired.'],
    ['invalid_card', 'Payment failed: The card is not valid.'],
  ])('when the provider declines with %s, then it is a decline carrying that code', (code, message) => {
    expect(classifyProviderResponse(402, { error: { code, message: 'x' } })).toEqual({ kind: 'declined', code, message });
  });

  test('when the provider answers a code the service does not know (provider answer reflection), then only payment_failed is repeated', () => {
    expect(classifyProviderResponse(402, { error: { code: '<a href="http://evil.test">x</a>', message: 'x' } })).toEqual({
      kind: 'declined',
      code: 'payment_failed',
      message: 'Payment failed: The payment provider did not approve the card.',
    });
    expect(classifyProviderResponse(409, { error: { code: 'REFLECTED-MARKER' } })).toEqual({ kind: 'conflict', code: 'payment_failed' });
  });

  test('when the provider is down, rate limited or times out, then it is unavailable (retryable)', () => {
    for (const status of [500, 502, 503, 504, 429, 408]) expect(classifyProviderResponse(status, 'oops')).toEqual({ kind: 'unavailable', status });
  });

  test('when the provider rejects fields, then every field is named', () => {
    expect(classifyProviderResponse(400, { error: { code: 'invalid_request', fields: { amount: 'bad', currency: 'REFLECTED-MARKER', '<b>evil</b>': 'x' } } })).toEqual({
      kind: 'invalid',
      code: 'invalid_request',
      fields: { amount: ['was refused by the payment provider.'], currency: ['was refused by the payment provider.'] },
    });
    expect(classifyProviderResponse(400, { error: { code: 'invalid_json' } })).toEqual({
      kind: 'invalid',
      code: 'invalid_json',
      fields: { payment: ['invalid_json'] },
    });
  });

  test('when the profile is unknown, a key is reused or the API key is refused, then not_found, conflict and misconfigured', () => {
    expect(classifyProviderResponse(404, { error: { code: 'payment_profile_not_found' } })).toEqual({
      kind: 'not_found',
      code: 'payment_profile_not_found',
      message: 'Payment failed: the payment provider does not know this payment profile.',
    });
    expect(classifyProviderResponse(409, { error: { code: 'idempotency_conflict' } })).toEqual({ kind: 'conflict', code: 'idempotency_conflict' });
    expect(classifyProviderResponse(401, {})).toEqual({ kind: 'misconfigured', code: 'payment_failed', status: 401 });
  });
});
