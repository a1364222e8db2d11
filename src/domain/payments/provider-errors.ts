/**
 * How the service reads a payment provider's error answer (pure, no I/O). The gateway turns
 * the classification into AppError (declined -> 402 with the provider code, invalid -> 400,
 * conflict -> 409) or a retryable error (unavailable), and anything else into a plain error
 * (a deployment problem such as a rejected API key).
 */
export type ProviderFailure =
  | { kind: 'declined'; code: string; message: string }
  | { kind: 'invalid'; code: string; fields: Record<string, string[]> }
  | { kind: 'not_found'; code: string; message: string }
  | { kind: 'conflict'; code: string }
  | { kind: 'unavailable'; status: number }
  | { kind: 'misconfigured'; code: string; status: number };

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
  invalid_card: 'The card is not valid.',
};

/**
 * The provider codes the service repeats to its callers. A provider endpoint is an
 * organization's setting, so its answer is remote-controlled text: any other code becomes
 * `payment_failed`, and nothing else of the body (messages, field texts) is ever repeated.
 */
const KNOWN_CODES = new Set([
  ...Object.keys(DECLINE_MESSAGES),
  'payment_profile_not_found',
  'customer_profile_not_found',
  'charge_not_found',
  'transaction_setup_not_found',
  'idempotency_conflict',
  'charge_refunded',
  'charge_voided',
  'refund_exceeds_charge',
  'no_callback',
  'invalid_request',
  'invalid_json',
  'unauthorized',
]);

/** Fields of the requests the gateway sends: the only names a provider's 400 may point at. */
const KNOWN_FIELDS = new Set([
  'amount',
  'currency',
  'paymentProfileId',
  'idempotencyKey',
  'reference',
  'customerNumber',
  'email',
  'card',
  'card.number',
  'card.expMonth',
  'card.expYear',
  'card.cvv',
  'billingAddress',
  'callbackUrl',
  'returnUrl',
  'saveCard',
  'expiresInSeconds',
  'chargeId',
]);

/** null for a success (2xx); otherwise what went wrong, in the service's own words. */
export function classifyProviderResponse(status: number, body: unknown): ProviderFailure | null {
  if (status >= 200 && status < 300) return null;
  const err = (body as { error?: { code?: unknown; fields?: unknown } } | null)?.error ?? {};
  const code = typeof err.code === 'string' && KNOWN_CODES.has(err.code) ? err.code : 'payment_failed';
  if (status === 402)
    return { kind: 'declined', code, message: `Payment failed: ${DECLINE_MESSAGES[code] ?? 'The payment provider did not approve the card.'}` };
  if (status >= 500 || status === 429 || status === 408) return { kind: 'unavailable', status };
  if (status === 400) {
    const fields: Record<string, string[]> = {};
    if (err.fields && typeof err.fields === 'object')
      for (const k of Object.keys(err.fields as Record<string, unknown>)) if (KNOWN_FIELDS.has(k)) fields[k] = ['was refused by the payment provider.'];
    if (!Object.keys(fields).length) fields.payment = [code];
    return { kind: 'invalid', code, fields };
  }
  if (status === 404) {
    const what = code.replace(/_not_found$/, '').replace(/_/g, ' ');
    return { kind: 'not_found', code, message: `Payment failed: the payment provider does not know this ${what}.` };
  }
  if (status === 409) return { kind: 'conflict', code };
  return { kind: 'misconfigured', code, status };
}
