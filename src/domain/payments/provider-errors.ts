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

/** null for a success (2xx); otherwise what went wrong. */
export function classifyProviderResponse(status: number, body: unknown): ProviderFailure | null {
  if (status >= 200 && status < 300) return null;
  const err = (body as { error?: { code?: unknown; fields?: unknown } } | null)?.error ?? {};
  const code = typeof err.code === 'string' && err.code ? err.code : 'payment_failed';
  if (status === 402)
    return { kind: 'declined', code, message: `Payment failed: ${DECLINE_MESSAGES[code] ?? 'The payment provider did not approve the card.'}` };
  if (status >= 500 || status === 429 || status === 408) return { kind: 'unavailable', status };
  if (status === 400) {
    const fields: Record<string, string[]> = {};
    if (err.fields && typeof err.fields === 'object') for (const [k, v] of Object.entries(err.fields as Record<string, unknown>)) fields[k] = [String(v)];
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
