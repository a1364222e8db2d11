/**
 * Signature of ProviderHosted's form-encoded callback. Pure (node:crypto only), shared by the
 * provider sandbox (signs) and the service (verifies).
 *
 * Canonical string: every field except `Signature`, sorted by name (code-unit order), joined as
 * `name=value&name=value` with raw (not URL-encoded) values. Signature = hex HMAC-SHA256 of it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type CallbackFields = Record<string, string>;

export function canonicalCallbackString(fields: CallbackFields): string {
  return Object.keys(fields)
    .filter((k) => k !== 'Signature')
    .sort()
    .map((k) => `${k}=${fields[k] ?? ''}`)
    .join('&');
}

export function signCallback(fields: CallbackFields, secret: string): string {
  return createHmac('sha256', secret).update(canonicalCallbackString(fields), 'utf8').digest('hex');
}

/** Returns the fields with `Signature` set (any previous one replaced). */
export function withSignature(fields: CallbackFields, secret: string): CallbackFields {
  const rest = { ...fields };
  delete rest.Signature;
  return { ...rest, Signature: signCallback(rest, secret) };
}

/** Constant-time check of `fields.Signature`; false when absent or malformed. */
export function verifyCallbackSignature(fields: CallbackFields, secret: string): boolean {
  const given = fields.Signature;
  if (typeof given !== 'string' || !/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = Buffer.from(signCallback(fields, secret), 'hex');
  return timingSafeEqual(expected, Buffer.from(given.toLowerCase(), 'hex'));
}
