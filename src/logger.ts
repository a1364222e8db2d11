/**
 * Structured JSON logs through pino, one line per event: `{ level, time, service, msg, ...fields }`
 * (level as a word, time as ISO 8601 with `Z`). Callers pass plain fields; any key that looks like
 * a secret (password, token, secret, card number, cvv, authorization) is replaced and secret-shaped
 * substrings are scrubbed before writing, so a careless call site cannot leak one. warn and error
 * go to stderr, the rest to stdout. A line logged inside a traced operation carries its `traceId`.
 */
import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

const SECRET_KEY = /pass(word)?|secret|token|authorization|api[-_]?key|card(number)?$|cvv|cardcode/i;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

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
  if (value instanceof Error) return redact({ name: value.name, message: value.message, stack: value.stack }, depth);
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

function build(level: LogLevel, service: string): Logger {
  return pino(
    {
      level,
      base: { service },
      messageKey: 'msg',
      // The active OpenTelemetry span's trace id (an activity's, a request's) on every line logged
      // inside it; a field the call site passes wins. Off, the API's no-op context has no span.
      mixin: () => {
        const id = trace.getActiveSpan()?.spanContext().traceId;
        return id ? { traceId: id } : {};
      },
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => redact(fields) as Record<string, unknown>,
      },
    },
    // Synchronous writes, so a line logged just before process.exit is not lost. Lines below warn
    // (an access line per request) are gathered up to STDOUT_BUFFER bytes, written at least every
    // STDOUT_FLUSH_MS and at exit: one write per ~20 requests instead of one each (a write was 3-4%
    // of the API's CPU under load). warn and error are written at once.
    pino.multistream(
      [
        { level: 'debug', stream: bufferedStdout() },
        { level: 'warn', stream: pino.destination({ fd: 2, sync: true }) },
      ],
      { dedupe: true },
    ),
  );
}

const STDOUT_BUFFER = 8192;
const STDOUT_FLUSH_MS = 100;
let stdout: ReturnType<typeof pino.destination> | undefined;

/** Standard output, buffered as above: one per process, whichever logger writes to it; flushed when the process exits (process.exit included). */
function bufferedStdout(): pino.DestinationStream {
  if (!stdout) {
    const dest = pino.destination({ fd: 1, sync: true, minLength: STDOUT_BUFFER, periodicFlush: STDOUT_FLUSH_MS });
    process.on('exit', () => dest.flush());
    stdout = dest;
  }
  return stdout;
}

let current: Logger = build('info', 'app');

export function configureLogger(opts: { level: LogLevel; service: string }): void {
  current = build(opts.level, opts.service);
}

/** The pino logger behind `log` (for libraries that take one, or a child with bound fields). */
export function pinoLogger(): Logger {
  return current;
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => current.debug(fields ?? {}, msg),
  info: (msg: string, fields?: Record<string, unknown>) => current.info(fields ?? {}, msg),
  warn: (msg: string, fields?: Record<string, unknown>) => current.warn(fields ?? {}, msg),
  error: (msg: string, fields?: Record<string, unknown>) => current.error(fields ?? {}, msg),
};
