/**
 * Where a hosted payment may send the browser back to (no open redirect): the API's own
 * origin, the deployment's storefront origins (ALLOWED_RETURN_ORIGINS) or the organization's
 * configured origins. Origins compare as scheme://host[:port], lower-cased, default ports
 * dropped. Pure.
 */

/** The canonical origin of an http(s) URL, or null when it is not one. */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    if (u.username || u.password) return null;
    return u.origin.toLowerCase();
  } catch {
    return null;
  }
}

/** Normalizes an origin an admin or operator entered; null when it is not a bare http(s) origin. */
export function normalizeOrigin(raw: string): string | null {
  const origin = originOf(raw.trim());
  if (!origin) return null;
  const u = new URL(raw.trim());
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) return null;
  return origin;
}

export function isAllowedReturnUrl(url: string, allowedOrigins: readonly string[]): boolean {
  const origin = originOf(url);
  return origin !== null && allowedOrigins.map((o) => o.toLowerCase()).includes(origin);
}
