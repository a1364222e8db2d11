/** HTTP plumbing of the provider sandbox: errors, body reading, JSON and HTML replies, small value checks. */
import { createHash, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { URL } from 'node:url';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export const MAX_BODY = 64 * 1024;
export const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
export const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
export const fingerprintKey = (key: string) => `mk_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
export const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
export const optString = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
export function messageFor(outcome: string): string {
  return (
    {
      declined: 'The card was declined.',
      insufficient_funds: 'The card has insufficient funds.',
      expired: 'The card has expired.',
      invalid: 'The card is not valid.',
    } as Record<string, string>
  )[outcome];
}

export function isHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The merchant is identified by a fingerprint of its API key (the key itself is not kept). */
export function merchantOf(req: http.IncomingMessage): string | null {
  const m = /^Bearer\s+(\S.*)$/i.exec(req.headers.authorization ?? '');
  return m ? fingerprintKey(m[1].trim()) : null;
}

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'payload_too_large', 'The request body is too large.'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  if (!text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  return v as Record<string, unknown>;
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

export function sendHtml(res: http.ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-frame-options', 'DENY');
  res.end(html);
}

export const reply = (res: http.ServerResponse, r: { status: number; body: unknown }) => sendJson(res, r.status, r.body);
