/**
 * TRUST_PROXY, the setting of how far `X-Forwarded-For` is believed (src/http/client-ip.ts reads
 * requests with it): a hop count, or the addresses and subnets of our own proxies. Pure parsing,
 * so the configuration (src/config.ts) reads it without the HTTP layer.
 */
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';

export type TrustProxy = { hops: number } | { addresses: string[] };

/** Parses TRUST_PROXY: '' / '0' / 'false' = none, a whole number = hop count, else a comma list of addresses or CIDR subnets. */
export function parseTrustProxy(raw: string | undefined): TrustProxy | string {
  const v = (raw ?? '').trim();
  if (v === '' || v === 'false' || v === '0') return { hops: 0 };
  if (/^\d+$/.test(v)) return { hops: Number(v) };
  const addresses = v.split(',').map((s) => normalizeIp(s.trim())).filter(Boolean);
  const invalid = `TRUST_PROXY (a hop count such as 1, or a comma-separated list of proxy IP addresses or subnets; got "${v}")`;
  if (!addresses.length) return invalid;
  try {
    proxyaddr.compile(addresses);
  } catch {
    return invalid;
  }
  return { addresses };
}

export function normalizeIp(ip: string): string {
  const s = ip.trim();
  return s.toLowerCase().startsWith('::ffff:') && isIP(s.slice(7)) === 4 ? s.slice(7) : s;
}
