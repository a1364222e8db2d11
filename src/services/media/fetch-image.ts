/**
 * Downloads a remote image for ingestion with the checks SPEC/DESIGN ask for: http(s) only,
 * every resolved address public unless IMAGE_FETCH_ALLOW_PRIVATE (checked inside the socket's
 * DNS lookup, so a host cannot re-resolve to a private address between check and connect,
 * and again for each redirect), a size cap enforced while streaming, an image content type,
 * and an overall timeout. Failures say whether a retry could help.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { addressProblem, isImageContentType, urlShapeProblem } from '../../domain/images/rules.js';

export class FetchFailure extends Error {
  constructor(
    message: string,
    /** Whether trying again later could succeed (network errors, timeouts, 5xx, 429). */
    readonly retryable: boolean,
    readonly code: string,
  ) {
    super(message);
    this.name = 'FetchFailure';
  }
}

export interface FetchOptions {
  maxBytes: number;
  timeoutMs: number;
  allowPrivate: boolean;
  maxRedirects?: number;
}

export interface Fetched {
  data: Buffer;
  contentType: string;
  finalUrl: string;
}

const mb = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for http(s) agents that refuses non-public addresses (unless allowed) at connect time. */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { family?: number; all?: boolean } | number, cb: LookupCb): void => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    dnsLookup(hostname, { all: true, family: opts.family ?? 0 }, (err, addrs) => {
      if (err) return cb(err, '');
      const problem = addressProblem(hostname, addrs.map((a) => a.address), allowPrivate);
      if (problem) return cb(Object.assign(new Error(problem), { code: 'EUNSAFEADDRESS' }), '');
      if (opts.all) cb(null, addrs);
      else cb(null, addrs[0].address, addrs[0].family);
    });
  };
}

function getOnce(url: URL, opts: FetchOptions, deadline: number): Promise<{ status: number; location?: string; data?: Buffer; contentType: string }> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const problem = addressProblem(host, [host], opts.allowPrivate);
      if (problem) return reject(new FetchFailure(problem, false, 'unsafe_address'));
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new FetchFailure(`The download timed out after ${opts.timeoutMs} ms.`, true, 'timeout'));
    const mod = url.protocol === 'https:' ? https : http;
    // Node's `lookup` option type is the overloaded dns.lookup signature, which a guarded resolver cannot satisfy.
    const req = mod.get(url, { lookup: guardedLookup(opts.allowPrivate) as never, headers: { accept: 'image/*', 'user-agent': 'b2b-commerce-image-fetcher/1' } }, (res) => {
      const status = res.statusCode ?? 0;
      const contentType = String(res.headers['content-type'] ?? '');
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return resolve({ status, location: res.headers.location, contentType });
      }
      if (status !== 200) {
        res.resume();
        const retryable = status >= 500 || status === 408 || status === 429;
        return reject(new FetchFailure(`The image URL answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}.`, retryable, `http_${status}`));
      }
      if (!isImageContentType(contentType)) {
        res.destroy();
        return reject(new FetchFailure(`The response is not an image (Content-Type ${contentType || 'missing'}).`, false, 'not_an_image'));
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > opts.maxBytes) {
        res.destroy();
        return reject(new FetchFailure(`The image is larger than the ${mb(opts.maxBytes)} limit (${mb(declared)}).`, false, 'too_large'));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > opts.maxBytes) {
          res.destroy();
          req.destroy();
          reject(new FetchFailure(`The image is larger than the ${mb(opts.maxBytes)} limit.`, false, 'too_large'));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ status, data: Buffer.concat(chunks), contentType }));
      res.on('error', (e) => reject(new FetchFailure(`The download failed: ${e.message}`, true, 'network')));
    });
    // setTimeout is an idle timeout; a server dripping a byte at a time would never trip it, so a
    // hard timer bounds the whole download (headers, body and redirects share one deadline).
    req.setTimeout(remaining, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_DOWNLOAD' })));
    const hardStop = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT_DOWNLOAD' })), remaining);
    req.on('close', () => clearTimeout(hardStop));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EUNSAFEADDRESS') return reject(new FetchFailure(e.message, false, 'unsafe_address'));
      if (e.code === 'ETIMEDOUT_DOWNLOAD') return reject(new FetchFailure(`The download timed out after ${opts.timeoutMs} ms.`, true, 'timeout'));
      if (e.code === 'ENOTFOUND') return reject(new FetchFailure(`The host ${host} does not resolve.`, true, 'dns'));
      reject(new FetchFailure(`The download failed: ${e.code ?? e.message}.`, true, 'network'));
    });
  });
}

/** Downloads one image; throws FetchFailure with a readable reason. */
export async function fetchImage(rawUrl: string, opts: FetchOptions): Promise<Fetched> {
  const deadline = Date.now() + opts.timeoutMs;
  let current = rawUrl;
  for (let hop = 0; hop <= (opts.maxRedirects ?? 3); hop++) {
    const shape = urlShapeProblem(current);
    if (shape) throw new FetchFailure(shape, false, 'bad_url');
    const url = new URL(current);
    const res = await getOnce(url, opts, deadline);
    if (res.location) {
      current = new URL(res.location, url).toString();
      continue;
    }
    return { data: res.data ?? Buffer.alloc(0), contentType: res.contentType, finalUrl: current };
  }
  throw new FetchFailure('Too many redirects.', false, 'redirects');
}
