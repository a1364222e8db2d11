/**
 * Image rules without I/O: accepted formats, variant sizes, names and SKUs taken from file
 * names, category image names, and the shape of a remote image URL (which addresses may be
 * fetched: src/domain/network/addresses.ts, used by the one outbound client).
 */

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
