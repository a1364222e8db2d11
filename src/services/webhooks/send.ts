/**
 * One outbound webhook POST through the one outbound client (src/adapters/http-client.ts):
 * https only and public addresses only unless OUTBOUND_ALLOW_PRIVATE_NETWORKS; no redirects
 * followed (a 3xx is a failed attempt); a hard deadline; every transport failure reads the same.
 */
import { outboundRequest, OutboundError, UNREACHABLE, urlProblem } from '../../adapters/http-client.js';

export interface PostResult {
  statusCode: number | null;
  retryAfter: string | null;
  error: string | null;
  durationMs: number;
}

/** Why a target URL may not be stored (shape, scheme, IP literal; host names are checked when called), or null. */
export function targetProblem(raw: string, allowPrivate: boolean): string | null {
  const problem = urlProblem(raw, { allowPrivateNetworks: allowPrivate });
  return problem ? `url ${problem}` : null;
}

export async function postJson(
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
  try {
    const res = await outboundRequest(rawUrl, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'b2b-commerce-webhooks/1', ...headers },
      timeoutMs: opts.timeoutMs,
      allowPrivateNetworks: opts.allowPrivate,
      readBody: false,
    });
    const ra = res.headers['retry-after'];
    return done(res.status, null, typeof ra === 'string' ? ra : null);
  } catch (e) {
    if (e instanceof OutboundError) return done(null, UNREACHABLE);
    throw e;
  }
}
