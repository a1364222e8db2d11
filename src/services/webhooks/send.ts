/**
 * One outbound webhook POST with the image-ingestion SSRF guard (src/media/fetch-image.ts):
 * https only and public addresses only (checked in the socket's DNS lookup) unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS; no redirects followed; a hard timeout.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { addressProblem } from '../../domain/images/rules.js';
import { guardedLookup } from '../media/fetch-image.js';

export interface PostResult {
  statusCode: number | null;
  retryAfter: string | null;
  error: string | null;
  durationMs: number;
}

/** Why a target URL may not be called (shape and scheme; addresses are checked at connect), or null. */
export function targetProblem(raw: string, allowPrivate: boolean): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'url is not a valid absolute URL.';
  }
  if (u.protocol !== 'https:' && !(allowPrivate && u.protocol === 'http:')) return 'url must use https.';
  if (u.username || u.password) return 'url must not contain credentials.';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return addressProblem(host, [host], allowPrivate);
  return null;
}

export function postJson(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  const started = Date.now();
  const done = (statusCode: number | null, error: string | null, retryAfter: string | null = null): PostResult => ({
    statusCode,
    error,
    retryAfter,
    durationMs: Date.now() - started,
  });
  const problem = targetProblem(rawUrl, opts.allowPrivate);
  if (problem) return Promise.resolve(done(null, problem));
  const url = new URL(rawUrl);
  return new Promise((resolve) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(
      url,
      {
        method: 'POST',
        // The guard's callback signature is Node's dns.lookup; the agent option types it loosely.
        lookup: guardedLookup(opts.allowPrivate) as unknown as http.RequestOptions['lookup'],
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'b2b-commerce-webhooks/1', ...headers },
        timeout: opts.timeoutMs,
      },
      (res) => {
        res.resume();
        const ra = res.headers['retry-after'];
        res.on('end', () => resolve(done(res.statusCode ?? 0, null, typeof ra === 'string' ? ra : null)));
        res.on('error', () => resolve(done(res.statusCode ?? 0, null, typeof ra === 'string' ? ra : null)));
      },
    );
    const hardStop = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_WEBHOOK' })), opts.timeoutMs);
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_WEBHOOK' })));
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(hardStop);
      if (e.code === 'ETIMEDOUT_WEBHOOK') return resolve(done(null, `No answer within ${opts.timeoutMs} ms.`));
      if (e.code === 'EUNSAFEADDRESS') return resolve(done(null, e.message));
      resolve(done(null, `Connection failed: ${e.code ?? e.message}.`));
    });
    req.on('close', () => clearTimeout(hardStop));
    req.end(body);
  });
}
