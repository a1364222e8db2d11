/**
 * The one outbound HTTP client of the service (DESIGN "Security decisions"): webhooks, remote
 * images, integrations' connection tests and payment providers all call out through
 * `outboundRequest`; nothing else in src/ calls `fetch`, `http.request` or `https.request`
 * towards an address a tenant supplied.
 *
 * Every hop (the first request and each redirect it follows) is checked before a byte is sent:
 * - the scheme: http or https; https only unless private networks are allowed
 *   (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true, set by the dev launcher and the tests), in every
 *   environment, production included;
 * - no credentials in the URL;
 * - an IP literal in any spelling (`127.0.0.1`, `[::1]`, `2130706433`, `0x7f.1`) explicitly,
 *   because Node never calls a custom `lookup` for IP literals;
 * - a host name inside the socket's own DNS lookup: every address it resolves to must be public,
 *   and the socket connects only to an address that was checked (no re-resolution in between);
 * - link-local and cloud metadata addresses in every spelling, and host names that name or embed
 *   one (`169.254.169.254.nip.io`), whatever OUTBOUND_ALLOW_PRIVATE_NETWORKS says (the one list:
 *   src/domain/network/addresses.ts `isLinkLocalOrMetadata`, `nameEmbedsLinkLocalOrMetadata`).
 * Ranges: src/domain/network/addresses.ts. Deadlines: one for the TCP/TLS connect of each hop,
 * one for the whole exchange (redirects and body included). The response body is capped.
 *
 * Failures: every transport failure (refused address, refused scheme, DNS, connect, TLS, reset,
 * timeout, malformed answer) is an OutboundError whose message is the same sentence,
 * UNREACHABLE, so no caller can tell an open port from a closed one or a private address from a
 * dead host, and nothing the remote side sent is reflected. `reason` and `retryable` are for the
 * caller's logic only, never for a reply.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import { addressProblem, ipLiteralOf, isLinkLocalOrMetadata, isNonPublicAddress, nameEmbedsLinkLocalOrMetadata } from '../domain/network/addresses.js';

/** The one message of every outbound transport failure. */
export const UNREACHABLE = 'The remote server could not be reached.';

export type OutboundFailureReason = 'bad_url' | 'refused_target' | 'dns' | 'connect' | 'timeout' | 'protocol' | 'too_large' | 'redirects';

export class OutboundError extends Error {
  constructor(
    /** For the caller's logic and the service log; never for a reply. */
    readonly reason: OutboundFailureReason,
    /** Whether trying again later could succeed (DNS, connect, timeout, malformed answer). */
    readonly retryable: boolean,
  ) {
    super(UNREACHABLE);
    this.name = 'OutboundError';
  }
}

/** Which targets a request may reach. */
export interface OutboundTargets {
  /** OUTBOUND_ALLOW_PRIVATE_NETWORKS: private and loopback addresses and plain http allowed (never link-local or metadata ones). */
  allowPrivateNetworks: boolean;
  /**
   * The deployment's own endpoint from its environment (PAYMENT_PROVIDER_URL), not a tenant's:
   * address and scheme are not checked; deadlines and uniform failures still apply.
   */
  operatorConfigured?: boolean;
}

export interface OutboundRequest extends OutboundTargets {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Deadline of the whole exchange: every hop, headers and body. */
  timeoutMs: number;
  /** Deadline of each TCP (and TLS) connect; default min(5 s, timeoutMs). */
  connectTimeoutMs?: number;
  /** Redirects followed (each hop checked like the first); 0 (default) answers a 3xx as it is. */
  maxRedirects?: number;
  /** Largest body read (default 1 MiB); larger is OutboundError('too_large'). */
  maxBytes?: number;
  /** false: answer at the headers and drop the body (webhook deliveries). */
  readBody?: boolean;
  /** Looks at the final status and headers before the body is read; a returned error aborts and is thrown. */
  inspect?: (status: number, headers: IncomingHttpHeaders) => Error | null;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
}

/**
 * Why a URL may not be stored as an outbound target, or null. A reason about the URL's text
 * (safe to show when it is saved): absolute http(s), https unless private networks are
 * allowed, no credentials, an IP literal (any spelling) that is public unless allowed; link-local
 * and metadata literals, and names that name or embed one, refused whatever the flag. Other host
 * names are checked when called.
 */
export function urlProblem(raw: string, targets: OutboundTargets): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'is not a valid absolute URL.';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must use https.';
  if (u.protocol !== 'https:' && !targets.allowPrivateNetworks) return 'must use https.';
  if (u.username || u.password) return 'must not contain credentials.';
  if (!u.hostname) return 'has no host.';
  const literal = ipLiteralOf(u.hostname);
  if (literal ? isLinkLocalOrMetadata(literal) : nameEmbedsLinkLocalOrMetadata(u.hostname)) return METADATA_TEXT;
  if (literal && !targets.allowPrivateNetworks && isNonPublicAddress(literal)) return 'must not point to a private, loopback or link-local address.';
  return null;
}

const METADATA_TEXT = 'must not point to a link-local or metadata address.';
const refusedAddressText = (address: string) => (isLinkLocalOrMetadata(address) ? METADATA_TEXT : 'must not point to a private, loopback or link-local address.');

/**
 * Save-time check of a host (an IP literal, or a name resolved within 2 s): the reason it is
 * refused, or null. A name that does not resolve now is left to the check when it is called.
 */
export async function hostProblem(host: string, targets: OutboundTargets): Promise<string | null> {
  const literal = ipLiteralOf(host);
  if (literal) return addressAllowed(literal, targets) ? null : refusedAddressText(literal);
  if (nameEmbedsLinkLocalOrMetadata(host)) return METADATA_TEXT;
  const addresses = await new Promise<string[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), 2000);
    dnsLookup(host, { all: true }, (err, addrs) => {
      clearTimeout(timer);
      resolve(err ? [] : addrs.map((a) => a.address));
    });
  });
  const bad = addresses.find((a) => !addressAllowed(a, targets));
  return bad ? refusedAddressText(bad) : null;
}

/** Save-time check of an outbound URL: `urlProblem`, then its host name's current addresses (`hostProblem`). */
export async function savedUrlProblem(raw: string, targets: OutboundTargets): Promise<string | null> {
  const shape = urlProblem(raw, targets);
  if (shape) return shape;
  return hostProblem(new URL(raw).hostname, targets);
}

/** Whether one resolved or literal address may be called under `targets`. */
function addressAllowed(address: string, targets: OutboundTargets): boolean {
  if (targets.operatorConfigured) return true;
  if (isLinkLocalOrMetadata(address)) return false;
  return targets.allowPrivateNetworks || !isNonPublicAddress(address);
}

/**
 * The addresses `host` resolves to, every one allowed under `targets` (for protocols other than
 * HTTP, e.g. an organization's SMTP server: connect to one of these, never re-resolve).
 * Throws OutboundError (UNREACHABLE) otherwise.
 */
export function resolveAllowed(host: string, targets: OutboundTargets): Promise<string[]> {
  const literal = ipLiteralOf(host);
  if (literal) {
    return addressAllowed(literal, targets) ? Promise.resolve([literal]) : Promise.reject(new OutboundError('refused_target', false));
  }
  if (!targets.operatorConfigured && nameEmbedsLinkLocalOrMetadata(host)) return Promise.reject(new OutboundError('refused_target', false));
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (err, addrs) => {
      if (err || !addrs.length) return reject(new OutboundError('dns', true));
      if (!addrs.every((a) => addressAllowed(a.address, targets))) return reject(new OutboundError('refused_target', false));
      resolve(addrs.map((a) => a.address));
    });
  });
}

type LookupCb = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for the socket that refuses (at connect time) a host resolving to any address not allowed. */
function guardedLookup(targets: OutboundTargets) {
  return (hostname: string, options: { family?: number; all?: boolean } | number, cb: LookupCb): void => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    dnsLookup(hostname, { all: true, family: opts.family ?? 0 }, (err, addrs) => {
      if (err) return cb(err, '');
      const refused = addrs.length === 0 || !addrs.every((a) => addressAllowed(a.address, targets));
      if (refused) return cb(Object.assign(new Error(addressProblem(hostname, addrs.map((a) => a.address), false) ?? 'refused'), { code: 'EREFUSEDTARGET' }), '');
      if (opts.all) cb(null, addrs);
      else cb(null, addrs[0].address, addrs[0].family);
    });
  };
}

interface Hop {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const fail = (reason: OutboundFailureReason, retryable: boolean) => new OutboundError(reason, retryable);

function checkHop(url: URL, o: OutboundRequest): OutboundError | null {
  if (o.operatorConfigured) return url.protocol === 'http:' || url.protocol === 'https:' ? null : fail('bad_url', false);
  if (urlProblem(url.toString(), { allowPrivateNetworks: o.allowPrivateNetworks })) return fail('refused_target', false);
  const literal = ipLiteralOf(url.hostname);
  if (literal && !addressAllowed(literal, o)) return fail('refused_target', false);
  return null;
}

function oneHop(url: URL, o: OutboundRequest, method: 'GET' | 'POST', body: string | undefined, headers: Record<string, string>, deadline: number, isFinal: (status: number) => boolean): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const refused = checkHop(url, o);
    if (refused) return reject(refused);
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(fail('timeout', true));
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(hardStop);
      fn();
    };
    const mod = url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest;
    try {
      req = mod.request(url, {
        method,
        agent: false,
        // Node types `lookup` as the overloaded dns.lookup, which a guarded resolver cannot satisfy.
        lookup: (o.operatorConfigured ? undefined : guardedLookup(o)) as unknown as http.RequestOptions['lookup'],
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      });
    } catch {
      // A header a tenant supplied (an API key with a line break) that HTTP cannot carry.
      return reject(fail('bad_url', false));
    }
    // One timer bounds the whole exchange (a server dripping a byte at a time never trips an idle timeout).
    const hardStop = setTimeout(() => req.destroy(Object.assign(new Error('deadline'), { code: 'EOUTBOUNDDEADLINE' })), remaining);
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connectTimer = setTimeout(() => req.destroy(Object.assign(new Error('connect'), { code: 'EOUTBOUNDDEADLINE' })), Math.min(o.connectTimeoutMs ?? 5000, remaining));
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      socket.once('close', () => clearTimeout(connectTimer));
    });
    req.on('error', (e: NodeJS.ErrnoException) =>
      settle(() => {
        if (e.code === 'EREFUSEDTARGET') return reject(fail('refused_target', false));
        if (e.code === 'EOUTBOUNDDEADLINE') return reject(fail('timeout', true));
        if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return reject(fail('dns', true));
        if (e.code?.startsWith('HPE_')) return reject(fail('protocol', true));
        reject(fail('connect', true));
      }),
    );
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const final = isFinal(status);
      if (final && o.inspect) {
        const problem = o.inspect(status, res.headers);
        if (problem) {
          settle(() => reject(problem));
          return void res.destroy();
        }
      }
      if (!final || o.readBody === false) {
        settle(() => resolve({ status, headers: res.headers, body: Buffer.alloc(0) }));
        res.destroy();
        return;
      }
      const max = o.maxBytes ?? 1024 * 1024;
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > max) {
        settle(() => reject(fail('too_large', false)));
        return void res.destroy();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > max) {
          // Settled first: destroying the response makes it report an abort, which must not win.
          settle(() => reject(fail('too_large', false)));
          return void res.destroy();
        }
        chunks.push(c);
      });
      res.on('end', () => settle(() => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) })));
      res.on('error', () => settle(() => reject(fail('protocol', true))));
      res.on('aborted', () => settle(() => reject(fail('protocol', true))));
    });
    req.end(body);
  });
}

/** One outbound HTTP exchange under the rules above; throws OutboundError (message UNREACHABLE) on any transport failure. */
export async function outboundRequest(rawUrl: string, o: OutboundRequest): Promise<OutboundResponse> {
  const deadline = Date.now() + o.timeoutMs;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw fail('bad_url', false);
  }
  let method = o.method ?? 'GET';
  let body = o.body;
  let headers = { ...(o.headers ?? {}) };
  const maxRedirects = o.maxRedirects ?? 0;
  for (let hop = 0; ; hop++) {
    const follows = hop < maxRedirects;
    const res = await oneHop(url, o, method, body, headers, deadline, (status) => !(follows && status >= 300 && status < 400));
    const location = res.headers.location;
    if (!(res.status >= 300 && res.status < 400) || maxRedirects === 0) return { ...res, url: url.toString() };
    if (!follows || !location) throw fail('redirects', false);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw fail('redirects', false);
    }
    // A redirect to another origin never carries the caller's credentials along.
    if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !['authorization', 'cookie'].includes(k.toLowerCase())));
    if (res.status === 301 || res.status === 302 || res.status === 303) {
      method = 'GET';
      body = undefined;
    }
    url = next;
  }
}
