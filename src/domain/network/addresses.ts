/**
 * Which network addresses the service may call (DESIGN "Security decisions": every outbound
 * request). Pure: the outbound client (src/adapters/http-client.ts) resolves a host and
 * asks these rules about every address it got, and about IP literals, which Node never passes
 * through a custom `lookup`.
 *
 * Refused unless OUTBOUND_ALLOW_PRIVATE_NETWORKS=true: unspecified, loopback, private (RFC 1918),
 * carrier-grade NAT, link-local, cloud metadata addresses, IETF and reserved blocks, multicast,
 * documentation and benchmarking ranges; IPv6 loopback, unique-local (fc00::/7, which holds
 * AWS's fd00:ec2::254), link-local, site-local, multicast, documentation, every IPv4-mapped
 * (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96) or IPv4-compatible address, and NAT64/6to4
 * addresses that embed a refused IPv4 address.
 *
 * Refused whatever the flag, for every outbound target (`isLinkLocalOrMetadata`, `nameEmbedsLinkLocalOrMetadata`):
 * link-local and cloud metadata addresses (the `metadata` and `link-local` entries below, the one
 * list) in every spelling: IPv4 literals in decimal, octal or hex, IPv6 forms that carry one
 * (IPv4-mapped, -translated, -compatible, NAT64, 6to4, Teredo, ISATAP), metadata host names, and
 * names that embed such an address for a wildcard DNS service (`169.254.169.254.nip.io`,
 * `169-254-169-254.sslip.io`, `a9fea9fe.nip.io`, `fe80--1.sslip.io`).
 */

export type AddressRange =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'metadata'
  | 'reserved'
  | 'multicast'
  | 'documentation'
  | 'unique-local'
  | 'site-local'
  | 'ipv4-mapped'
  | 'not-an-address';

const V4_RANGES: [string, number, AddressRange][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud metadata (inside CGNAT)
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack metadata
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task metadata
  ['169.254.0.0', 16, 'link-local'],
  ['168.63.129.16', 32, 'metadata'], // Azure wire server (a public-looking address)
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.192', 32, 'metadata'], // Oracle Cloud metadata (inside the IETF protocol assignments)
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // reserved and broadcast
];

/**
 * An IPv4 literal in any form a URL parser or inet_aton accepts (`2130706433`, `0x7f.1`,
 * `0177.0.0.1`, `127.1`) as dotted decimal, or null when `host` is not one.
 */
export function parseIpv4Literal(host: string): string | null {
  const parts = host.replace(/\.$/, '').split('.');
  if (parts.length < 1 || parts.length > 4) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8);
    else if (/^(0|[1-9]\d*)$/.test(p)) n = Number(p);
    else return null;
    if (!Number.isSafeInteger(n)) return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  let value = last;
  nums.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
}

const isDottedV4 = (s: string) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(s);

/** The 8 groups of an IPv6 address, or null when it is not one. */
export function parseIpv6(ip: string): number[] | null {
  let s = ip.toLowerCase().replace(/^\[|\]$/g, '').split('%')[0];
  if (!s.includes(':')) return null;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    if (!isDottedV4(v4[1])) return null;
    const n = v4ToInt(v4[1]);
    s = `${s.slice(0, -v4[1].length)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  if ((s.match(/::/g) ?? []).length > 1) return null;
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = s.includes('::') ? 8 - h.length - t.length : 0;
  if (fill < 0) return null;
  const groups = [...h, ...Array<string>(fill).fill('0'), ...t];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

function v4Range(ip: string): AddressRange | null {
  const n = v4ToInt(ip);
  for (const [base, bits, range] of V4_RANGES) {
    const size = 2 ** (32 - bits);
    const start = Math.floor(v4ToInt(base) / size) * size;
    if (n >= start && n < start + size) return range;
  }
  return null;
}

const embeddedV4 = (p: number[]) => `${p[6] >> 8}.${p[6] & 255}.${p[7] >> 8}.${p[7] & 255}`;

/**
 * The refused range an address (or IP literal in any form) falls in, or null for a public
 * address. Anything that is not an address at all is 'not-an-address' (refused).
 */
export function addressRange(address: string): AddressRange | null {
  const host = address.trim().replace(/^\[|\]$/g, '');
  const v4 = isDottedV4(host) ? host : parseIpv4Literal(host);
  if (v4) return v4Range(v4);
  const p = parseIpv6(host);
  if (!p) return 'not-an-address';
  if (p.every((x) => x === 0)) return 'unspecified';
  if (p.slice(0, 7).every((x) => x === 0) && p[7] === 1) return 'loopback';
  if (p.slice(0, 5).every((x) => x === 0) && p[5] === 0xffff) return 'ipv4-mapped'; // ::ffff:a.b.c.d
  if (p.slice(0, 4).every((x) => x === 0) && p[4] === 0xffff && p[5] === 0) return 'ipv4-mapped'; // IPv4-translated ::ffff:0:a.b.c.d (SIIT)
  if (p.slice(0, 6).every((x) => x === 0)) return 'ipv4-mapped'; // IPv4-compatible ::a.b.c.d (deprecated)
  if (p[0] === 0xfd00 && p[1] === 0x0ec2 && p.slice(2, 7).every((x) => x === 0) && p[7] === 0x254) return 'metadata'; // AWS IPv6 metadata
  if ((p[0] & 0xfe00) === 0xfc00) return 'unique-local';
  if ((p[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((p[0] & 0xffc0) === 0xfec0) return 'site-local';
  if ((p[0] & 0xff00) === 0xff00) return 'multicast';
  if (p[0] === 0x2001 && p[1] === 0x0db8) return 'documentation';
  if (p[0] === 0x3fff && p[1] < 0x1000) return 'documentation'; // 3fff::/20
  if (p[0] === 0x0064 && p[1] === 0xff9b) return v4Range(embeddedV4(p)) ?? (p[2] || p[3] || p[4] || p[5] ? 'reserved' : null); // NAT64
  if (p[0] === 0x2002) return v4Range(`${p[1] >> 8}.${p[1] & 255}.${p[2] >> 8}.${p[2] & 255}`); // 6to4
  if (p[0] === 0x2001 && p[1] === 0) return 'reserved'; // Teredo tunnels reach IPv4 hosts indirectly
  if (p[0] === 0x0100 && p.slice(1, 4).every((x) => x === 0)) return 'reserved'; // discard-only 100::/64
  return null;
}

/** True for every address the outbound client refuses unless private networks are allowed. */
export function isNonPublicAddress(address: string): boolean {
  return addressRange(address) !== null || isLinkLocalOrMetadata(address);
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries by a translation or tunnelling convention: IPv4-mapped
 * (::ffff:a.b.c.d), -translated (::ffff:0:a.b.c.d), -compatible (::a.b.c.d), NAT64 (64:ff9b::/96 and
 * the local-use 64:ff9b:1::/48), 6to4 (2002:AABB:CCDD::), Teredo (server and obfuscated client) and
 * ISATAP interface ids (::0:5efe:a.b.c.d, ::200:5efe:a.b.c.d).
 */
export function embeddedIpv4(address: string): string[] {
  const p = parseIpv6(address.trim());
  if (!p) return [];
  const out: string[] = [];
  if (p.slice(0, 4).every((x) => x === 0) && (p[4] === 0 || (p[4] === 0xffff && p[5] === 0)) && (p[5] === 0 || p[5] === 0xffff)) out.push(v4Of(p[6], p[7]));
  if (p[0] === 0x0064 && p[1] === 0xff9b) out.push(v4Of(p[6], p[7]));
  if (p[0] === 0x2002) out.push(v4Of(p[1], p[2]));
  if (p[0] === 0x2001 && p[1] === 0) out.push(v4Of(p[2], p[3]), v4Of(~p[6] & 0xffff, ~p[7] & 0xffff));
  if ((p[4] === 0 || p[4] === 0x200) && p[5] === 0x5efe) out.push(v4Of(p[6], p[7]));
  return out;
}

/**
 * Link-local or cloud metadata in any spelling (an IPv4 literal in any form, an IPv6 address, or an
 * IPv6 form carrying such an IPv4 address): refused for every outbound target whatever
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS says.
 */
export function isLinkLocalOrMetadata(address: string): boolean {
  const r = addressRange(address);
  if (r === 'link-local' || r === 'metadata') return true;
  return embeddedIpv4(address).some((v4) => {
    const e = v4Range(v4);
    return e === 'link-local' || e === 'metadata';
  });
}

/** Host names of cloud metadata services (they resolve to a metadata address inside the cloud, and may not resolve here). */
export const METADATA_HOST_NAMES = ['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.tencentyun.com', 'metadata.azure.internal'];

/**
 * The addresses a host name spells out in its labels, as wildcard DNS services answer them
 * (nip.io, sslip.io, xip.io and their like): four dotted labels (`169.254.169.254.nip.io`) or
 * any run of labels an inet_aton-style parser reads as IPv4 (`2852039166.nip.io`), a dashed label or
 * label tail (`169-254-169-254.sslip.io`, `app-169-254-169-254.nip.io`), eight hex digits
 * (`a9fea9fe.nip.io`, `app-a9fea9fe.nip.io`) and sslip.io's dashed IPv6 (`fe80--1.sslip.io`).
 */
export function addressesInName(hostname: string): string[] {
  const labels = hostname.toLowerCase().replace(/\.$/, '').split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length; i++) {
    for (let n = 1; n <= 4 && i + n <= labels.length; n++) {
      const v4 = parseIpv4Literal(labels.slice(i, i + n).join('.'));
      if (v4) out.push(v4);
    }
    const parts = labels[i].split('-');
    if (parts.length >= 4) {
      const v4 = parseIpv4Literal(parts.slice(-4).join('.'));
      if (v4) out.push(v4);
    }
    const hex = parts[parts.length - 1];
    if (/^[0-9a-f]{8}$/.test(hex)) out.push(parseIpv4Literal(`0x${hex}`)!);
    if (labels[i].includes('--')) {
      const v6 = labels[i].replace(/-/g, ':');
      if (parseIpv6(v6)) out.push(v6);
    }
  }
  return out;
}

/** A host name that names a metadata service or spells out a link-local or metadata address (`addressesInName`): refused whatever the flag. */
export function nameEmbedsLinkLocalOrMetadata(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (METADATA_HOST_NAMES.includes(name)) return true;
  return addressesInName(name).some(isLinkLocalOrMetadata);
}

/**
 * Whether the resolved addresses of a host may be called: every one must be public, unless
 * private addresses are allowed by configuration (tests, trusted intranets). The reason or null.
 */
export function addressProblem(host: string, addresses: string[], allowPrivate: boolean): string | null {
  if (!addresses.length) return `The host ${host} did not resolve.`;
  if (allowPrivate) return null;
  const bad = addresses.find(isNonPublicAddress);
  return bad ? `The host ${host} resolves to a private, loopback or link-local address (${bad}); such addresses are not called.` : null;
}

/** A URL's host as an address when it is an IP literal in any form (brackets removed, IPv4 dotted), else null. */
export function ipLiteralOf(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isDottedV4(host)) return host;
  const v4 = parseIpv4Literal(host);
  if (v4) return v4;
  return parseIpv6(host) ? host : null;
}
