/**
 * The client address of a request. `X-Forwarded-For` is read only as far as TRUST_PROXY
 * allows: a hop count (the last N addresses were appended by our own proxies) or a list of
 * proxy addresses (trailing entries from those addresses are skipped). With no trust, the
 * socket address is the client, whatever the header says.
 */
import { isIP } from 'node:net';

export type TrustProxy = { hops: number } | { addresses: string[] };

/** Parses TRUST_PROXY: '' / '0' / 'false' = none, a whole number = hop count, else a comma list of addresses. */
export function parseTrustProxy(raw: string | undefined): TrustProxy | string {
  const v = (raw ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return { hops: 0 };
  if (/^\d+$/.test(v)) return { hops: Number(v) };
  const addresses = v.split(',').map((s) => normalizeIp(s.trim())).filter(Boolean);
  const bad = addresses.filter((a) => !isIP(a));
  if (bad.length || !addresses.length) return `TRUST_PROXY (a hop count such as 1, or a comma-separated list of proxy IP addresses; got "${v}")`;
  return { addresses };
}

export function normalizeIp(ip: string): string {
  const s = ip.trim();
  return s.toLowerCase().startsWith('::ffff:') && isIP(s.slice(7)) === 4 ? s.slice(7) : s;
}

/** The client address given the socket peer and the X-Forwarded-For header. */
export function clientIp(socketAddress: string, forwardedFor: string | undefined, trust: TrustProxy): string {
  const peer = normalizeIp(socketAddress || '');
  const forwarded = (forwardedFor ?? '')
    .split(',')
    .map((s) => normalizeIp(s))
    .filter((s) => s !== '');
  // chain[last] is the peer; each entry before it was appended by the hop after it.
  const chain = [...forwarded, peer];
  if ('hops' in trust) {
    const idx = Math.max(0, chain.length - 1 - trust.hops);
    return validOr(chain[idx], peer);
  }
  let i = chain.length - 1;
  while (i > 0 && trust.addresses.includes(chain[i])) i--;
  return validOr(chain[i], peer);
}

const validOr = (candidate: string | undefined, fallback: string) => (candidate && isIP(candidate) ? candidate : fallback);
