/**
 * Limits every request input must meet before it reaches yup, a handler or PostgreSQL,
 * whatever the route's own schema says: no NUL character (PostgreSQL text and jsonb reject
 * it), a length cap on every string and object key, finite numbers, and a nesting depth cap
 * (the walk is iterative, so an 8,000-level body cannot overflow the stack here, and yup
 * never sees it). Errors name the field and the rule, never the value.
 */
import type { FieldErrors } from '../errors.js';

/** Deepest nesting accepted in a JSON body (SPEC bodies nest at most 4 levels). */
export const MAX_DEPTH = 32;
/** Longest string accepted anywhere in a JSON body; schemas set tighter limits per field. */
export const MAX_BODY_STRING = 100_000;
/** Longest query-string value, and longest path parameter. */
export const MAX_QUERY_STRING = 2_000;
export const MAX_PARAM = 300;
/** Longest object key. */
export const MAX_KEY = 200;
/** At most this many field errors are reported (a body of 10,000 bad fields gets a short answer). */
export const MAX_REPORTED_ERRORS = 50;

export const hasNul = (s: string): boolean => s.includes('\u0000');

/** Renders a field path for an error without echoing a huge or binary key. */
function keyLabel(k: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const clean = k.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 60)}...` : clean;
}

const join = (base: string, k: string | number) => (typeof k === 'number' ? `${base}[${k}]` : base ? `${base}.${keyLabel(k)}` : keyLabel(k));

/**
 * Walks a parsed body or query (iteratively) and returns the field errors, or null when the
 * input meets the limits.
 */
export function checkInput(input: unknown, opts: { maxString: number; root?: string } = { maxString: MAX_BODY_STRING }): FieldErrors | null {
  const errors: FieldErrors = {};
  let count = 0;
  const add = (path: string, msg: string) => {
    if (count >= MAX_REPORTED_ERRORS) return;
    const key = path || opts.root || '$';
    const list = (errors[key] ??= []);
    if (!list.includes(msg)) {
      list.push(msg);
      count++;
    }
  };
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: input, path: '', depth: 0 }];
  while (stack.length && count < MAX_REPORTED_ERRORS) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (hasNul(v)) add(path, `${path || 'value'} must not contain the NUL character.`);
      if (v.length > opts.maxString) add(path, `${path || 'value'} must be at most ${opts.maxString} characters.`);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) add(path, `${path || 'value'} must be a finite number.`);
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_DEPTH) {
        add(path, `${path || 'The body'} is nested more than ${MAX_DEPTH} levels deep.`);
        continue;
      }
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: join(path, i), depth: depth + 1 });
      } else {
        for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
          if (hasNul(k) || k.length > MAX_KEY) {
            add(path, `${path || 'The body'} has a field name that is longer than ${MAX_KEY} characters or contains the NUL character.`);
            continue;
          }
          stack.push({ v: child, path: join(path, k), depth: depth + 1 });
        }
      }
    }
  }
  return Object.keys(errors).length ? errors : null;
}

/** Path parameters: no NUL, bounded length. */
export function checkParams(params: Record<string, string>): FieldErrors | null {
  const errors: FieldErrors = {};
  for (const [k, v] of Object.entries(params)) {
    if (typeof v !== 'string') continue;
    if (hasNul(v)) (errors[k] ??= []).push(`${k} must not contain the NUL character.`);
    if (v.length > MAX_PARAM) (errors[k] ??= []).push(`${k} must be at most ${MAX_PARAM} characters.`);
  }
  return Object.keys(errors).length ? errors : null;
}

/** Trims a validation message to a bounded length (a message must never carry a whole value). */
export function boundMessage(msg: string, max = 300): string {
  return msg.length > max ? `${msg.slice(0, max)}...` : msg;
}
