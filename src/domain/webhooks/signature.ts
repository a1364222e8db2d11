/**
 * Standard Webhooks 1.0 signing: `webhook-signature: v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>`
 * keyed with the base64-decoded part of a `whsec_` secret; several space-separated entries while a
 * rotated secret is still valid.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** One `v1,<sig>` entry. */
export function signPayload(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The header value: one entry per secret (current first). */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((s) => signPayload(s, id, timestamp, body)).join(' ');
}

/** Whether any entry of the header matches `secret` (what a receiver does), with a timestamp tolerance. */
export function verifySignature(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  opts: { nowSeconds?: number; toleranceSeconds?: number } = {},
): boolean {
  const ts = Number(headers.timestamp);
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!Number.isInteger(ts) || Math.abs(now - ts) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signPayload(secret, headers.id, ts, body));
  return headers.signature.split(' ').some((entry) => {
    const got = Buffer.from(entry);
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
