/**
 * SKU and product-name patterns: `*` is any run of characters (also none), `?` exactly one;
 * everything else is literal; matching is case-insensitive and covers the whole value.
 */
const cache = new Map<string, RegExp>();

export function patternToRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const body = Array.from(pattern)
      .map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    re = new RegExp(`^${body}$`, 'is');
    cache.set(pattern, re);
  }
  return re;
}

export function matchesPattern(pattern: string, value: string): boolean {
  return patternToRegExp(pattern).test(value);
}

export function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.some((p) => matchesPattern(p, value));
}

export const MAX_PATTERN_LENGTH = 100;

/** Why a pattern is not acceptable, or null. */
export function patternProblem(pattern: string): string | null {
  if (pattern.trim() === '') return 'must not be empty.';
  if (pattern.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters.`;
  if (Array.from(pattern).some((ch) => ch.charCodeAt(0) < 0x20)) return 'must not contain control characters.';
  return null;
}
