/**
 * Structured JSON logs, one line per event. Callers pass plain fields; any key that
 * looks like a secret (password, token, secret, card number, cvv, authorization) is
 * replaced before writing, so a careless call site cannot leak one.
 */
const SECRET_KEY = /pass(word)?|secret|token|authorization|api[-_]?key|card(number)?$|cvv|cardcode/i;
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof LEVELS;

let threshold: number = LEVELS.info;
let service = 'app';

export function configureLogger(opts: { level: LogLevel; service: string }): void {
  threshold = LEVELS[opts.level];
  service = opts.service;
}

/** Secret-shaped substrings scrubbed from every logged string (ORM errors dump entities, for one). */
const SECRET_VALUE: [RegExp, string][] = [
  [/scrypt\$[^\s'",]+/g, '[redacted-hash]'],
  [/b2bk_[A-Za-z0-9_-]+/g, '[redacted-key]'],
  [/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '[redacted-token]'],
  [/\b(?:\d[ -]?){13,19}\b/g, '[redacted-number]'],
  [/((?:password|secret|token|cvv|cardCode|cardNumber)\w*['"]?\s*[:=]\s*)(['"])[^'"]*\2/gi, '$1$2[redacted]$2'],
];

export function scrub(s: string): string {
  return SECRET_VALUE.reduce((acc, [re, rep]) => acc.replace(re, rep), s);
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

function write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, service, msg, ...(redact(fields ?? {}) as object) });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
