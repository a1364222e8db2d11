/**
 * Downloads a remote image for ingestion through the one outbound client
 * (src/adapters/http-client.ts: addresses, IP literals and every redirect checked, https
 * unless OUTBOUND_ALLOW_PRIVATE_NETWORKS, connect and total deadlines), plus the image rules:
 * an image content type, a size cap enforced while streaming. Failures say whether a retry
 * could help; transport failures all read the same (UNREACHABLE).
 */
import { isImageContentType, urlShapeProblem } from '../../domain/images/rules.js';
import { OutboundError, outboundRequest } from '../../adapters/http-client.js';

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

/** Downloads one image; throws FetchFailure with a readable reason. */
export async function fetchImage(rawUrl: string, opts: FetchOptions): Promise<Fetched> {
  const shape = urlShapeProblem(rawUrl);
  if (shape) throw new FetchFailure(shape, false, 'bad_url');
  try {
    const res = await outboundRequest(rawUrl, {
      headers: { accept: 'image/*', 'user-agent': 'b2b-commerce-image-fetcher/1' },
      timeoutMs: opts.timeoutMs,
      maxRedirects: opts.maxRedirects ?? 3,
      maxBytes: opts.maxBytes,
      allowPrivateNetworks: opts.allowPrivate,
      inspect: (status, headers) => {
        if (status !== 200) return new FetchFailure(`The image URL answered HTTP ${status}.`, status >= 500 || status === 408 || status === 429, `http_${status}`);
        const contentType = String(headers['content-type'] ?? '');
        if (!isImageContentType(contentType)) return new FetchFailure(`The response is not an image (Content-Type ${contentType.slice(0, 100) || 'missing'}).`, false, 'not_an_image');
        const declared = Number(headers['content-length']);
        if (Number.isFinite(declared) && declared > opts.maxBytes) return new FetchFailure(`The image is larger than the ${mb(opts.maxBytes)} limit (${mb(declared)}).`, false, 'too_large');
        return null;
      },
    });
    return { data: res.body, contentType: String(res.headers['content-type'] ?? ''), finalUrl: res.url };
  } catch (e) {
    if (e instanceof OutboundError) {
      if (e.reason === 'too_large') throw new FetchFailure(`The image is larger than the ${mb(opts.maxBytes)} limit.`, false, 'too_large');
      if (e.reason === 'redirects') throw new FetchFailure('Too many redirects.', false, 'redirects');
      throw new FetchFailure(e.message, e.retryable, e.reason);
    }
    throw e;
  }
}
