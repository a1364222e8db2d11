/**
 * Image rules without I/O: accepted formats, variant sizes, names and SKUs taken from file
 * names, category image names, and which remote addresses ingestion may fetch.
 */
import { isIP } from 'node:net';

/** Stored format names (SPEC: `jpg`, `png`, `webp`, `gif`). */
export type ImageFormat = 'jpg' | 'png' | 'webp' | 'gif';
export const IMAGE_FORMATS: readonly ImageFormat[] = ['jpg', 'png', 'webp', 'gif'];
export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;
export const MAX_REMOTE_IMAGES = 500;
/**
 * Per-organization fairness on the media queue: an organization runs at most this many remote
 * ingestions at once (each fetches 8 images at a time), so its backlog bounds how long another
 * organization's first images wait. Jobs older than the window no longer hold a slot (a job
 * whose workflow was lost cannot block its organization for ever).
 */
export const MAX_CONCURRENT_INGESTIONS_PER_ORG = 3;
export const INGESTION_SLOT_WINDOW_MS = 60 * 60 * 1000;
/** Largest decoded image sharp accepts (width x height), against decompression bombs. */
export const MAX_INPUT_PIXELS = 50_000_000;

export type VariantName = 'small' | 'medium' | 'large';
/** Variants keep the aspect ratio; width is at most this many pixels (never enlarged). */
export const VARIANTS: readonly { name: VariantName; maxWidth: number }[] = [
  { name: 'small', maxWidth: 150 },
  { name: 'medium', maxWidth: 600 },
  { name: 'large', maxWidth: 1200 },
];

/** Maps a decoder's format name (sharp: jpeg, png, webp, gif, ...) to a stored format, or null if not accepted. */
export function acceptedFormat(decoderFormat: string | undefined | null): ImageFormat | null {
  const f = (decoderFormat ?? '').toLowerCase();
  if (f === 'jpeg' || f === 'jpg') return 'jpg';
  return (IMAGE_FORMATS as readonly string[]).includes(f) ? (f as ImageFormat) : null;
}

/** Variants are written in the original format, except gif which becomes png (one still frame). */
export function variantFormat(format: ImageFormat): Exclude<ImageFormat, 'gif'> {
  return format === 'gif' ? 'png' : format;
}

export function contentTypeOf(format: ImageFormat): string {
  return format === 'jpg' ? 'image/jpeg' : `image/${format}`;
}

/** Whether a declared content type may be an image we accept (before decoding proves it). */
export function isImageContentType(contentType: string | null | undefined): boolean {
  const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return ['image/jpeg', 'image/jpg', 'image/pjpeg', 'image/png', 'image/webp', 'image/gif', 'application/octet-stream', 'binary/octet-stream'].includes(ct);
}

/** The file name without folders and without its last extension: `shoes/ABC-123.large.png` -> `ABC-123.large`. */
export function nameFromFileName(fileName: string | null | undefined): string {
  const base = (fileName ?? '').split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return (dot > 0 ? base.slice(0, dot) : base).trim();
}

/** The image name a URL implies: its last path segment, decoded, without extension. */
export function nameFromUrl(url: string): string {
  try {
    const segs = new URL(url).pathname.split('/').filter(Boolean);
    const last = segs.length ? segs[segs.length - 1] : '';
    let decoded = last;
    try {
      decoded = decodeURIComponent(last);
    } catch {
      /* keep raw */
    }
    return nameFromFileName(decoded);
  } catch {
    return '';
  }
}

/**
 * The SKU an image links to: the image name when `extractSkuFromImageName` (it takes
 * precedence), else the given sku; blank means none (the image stays unlinked).
 */
export function resolveSku(input: { sku?: string | null; extractSkuFromImageName?: boolean | null; imageName: string }): string | null {
  const raw = input.extractSkuFromImageName ? input.imageName : (input.sku ?? '');
  const sku = raw.trim();
  return sku === '' ? null : sku;
}

/** Category image names: trimmed, lowercased, whitespace runs become one hyphen. */
export function normaliseCategoryName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

function ipv4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
}

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
];

function expandIpv6(ip: string): number[] | null {
  let s = ip.toLowerCase().split('%')[0];
  // Embedded IPv4 tail (::ffff:1.2.3.4).
  const v4 = s.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (v4) {
    const n = ipv4ToInt(v4[1]);
    s = s.slice(0, -v4[1].length) + `${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = s.includes('::') ? 8 - h.length - t.length : 0;
  const parts = [...h, ...Array<string>(fill).fill('0'), ...t].map((x) => parseInt(x, 16));
  return parts.length === 8 && parts.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? parts : null;
}

/** True for loopback, private, link-local, CGNAT, multicast, unspecified and other non-public addresses. */
export function isNonPublicAddress(ip: string): boolean {
  const kind = isIP(ip);
  if (kind === 4) {
    const n = ipv4ToInt(ip);
    return V4_BLOCKED.some(([base, bits]) => {
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      return ((n & mask) >>> 0) === ((ipv4ToInt(base) & mask) >>> 0);
    });
  }
  if (kind === 6) {
    const p = expandIpv6(ip);
    if (!p) return true;
    if (p.every((x) => x === 0)) return true; // ::
    if (p.slice(0, 7).every((x) => x === 0) && p[7] === 1) return true; // ::1
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible: judge the IPv4 address.
    if (p.slice(0, 5).every((x) => x === 0) && (p[5] === 0xffff || p[5] === 0)) {
      return isNonPublicAddress(`${p[6] >> 8}.${p[6] & 255}.${p[7] >> 8}.${p[7] & 255}`);
    }
    if (p[0] === 0x64 && p[1] === 0xff9b) return isNonPublicAddress(`${p[6] >> 8}.${p[6] & 255}.${p[7] >> 8}.${p[7] & 255}`); // NAT64
    if ((p[0] & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
    if ((p[0] & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
    if ((p[0] & 0xffc0) === 0xfec0) return true; // site-local (deprecated)
    if ((p[0] & 0xff00) === 0xff00) return true; // multicast
    if (p[0] === 0x2001 && p[1] === 0x0db8) return true; // documentation
    return false;
  }
  return true; // not an address at all
}

/** Shape check of a remote image URL: a reason it is refused, or null. */
export function urlShapeProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'imageUrl is not a valid URL.';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `Only http and https URLs are fetched (got ${u.protocol.replace(':', '')}).`;
  if (!u.hostname) return 'imageUrl has no host.';
  return null;
}

/**
 * Whether the resolved addresses of a host may be fetched: every one must be public,
 * unless private addresses are allowed by configuration (tests, trusted intranets).
 * Returns the refusal reason or null.
 */
export function addressProblem(host: string, addresses: string[], allowPrivate: boolean): string | null {
  if (!addresses.length) return `The host ${host} did not resolve.`;
  if (allowPrivate) return null;
  const bad = addresses.find(isNonPublicAddress);
  return bad ? `The host ${host} resolves to a private, loopback or link-local address (${bad}); such addresses are not fetched.` : null;
}
