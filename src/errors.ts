/**
 * The one error type of the service. Every failure a client should see is an AppError
 * with a kind; `toProblem` maps it to application/problem+json. Anything else is a 500
 * whose message and stack stay in the log.
 */
export type ErrorKind =
  | 'validation'
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payment_required'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

const STATUS: Record<ErrorKind, number> = {
  validation: 400,
  bad_request: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

const TITLE: Record<ErrorKind, string> = {
  validation: 'One or more validation errors occurred.',
  bad_request: 'Bad request',
  unauthorized: 'Unauthorized',
  payment_required: 'Payment failed',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  internal: 'Internal server error',
  unavailable: 'Service unavailable',
};

export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message?: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? TITLE[kind]);
    this.name = 'AppError';
  }
  get status(): number {
    return STATUS[this.kind];
  }

  static validation(errors: FieldErrors, detail = 'See errors for the fields that failed.'): AppError {
    return new AppError('validation', detail, errors);
  }
  static field(field: string, message: string): AppError {
    return AppError.validation({ [field]: [message] });
  }
  static badRequest(detail: string): AppError {
    return new AppError('bad_request', detail);
  }
  static notFound(what = 'Resource'): AppError {
    return new AppError('not_found', `${what} not found.`);
  }
  static unauthorized(detail = 'A valid token or API key is required.'): AppError {
    return new AppError('unauthorized', detail);
  }
  static forbidden(detail = 'Your role does not allow this operation.'): AppError {
    return new AppError('forbidden', detail);
  }
  static conflict(detail: string): AppError {
    return new AppError('conflict', detail);
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: FieldErrors;
  traceId: string;
}

const MAX_DETAIL = 500;
const MAX_MESSAGE = 300;
const MAX_FIELDS = 50;
const bound = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}...` : s);

const depth = (field: string) => (field.match(/[.[]/g) ?? []).length;

/**
 * Bounded field errors: a message that quotes input never makes a large response. When there are
 * more than MAX_FIELDS, the shallowest fields are kept first (e.g. "invoices has more than 1000 items"
 * before the items' own errors), in their original order otherwise.
 */
function boundErrors(errors: FieldErrors): FieldErrors {
  const entries = Object.entries(errors);
  const kept = entries.length <= MAX_FIELDS ? entries : [...entries].sort(([a], [b]) => depth(a) - depth(b)).slice(0, MAX_FIELDS);
  return Object.fromEntries(
    kept
      .map(([k, list]) => [bound(k, 120), list.slice(0, 10).map((m) => bound(m, MAX_MESSAGE))]),
  );
}

export function toProblem(err: AppError, traceId: string): Problem {
  return {
    type: `https://httpstatuses.io/${err.status}`,
    title: TITLE[err.kind],
    status: err.status,
    detail: err.kind === 'internal' ? undefined : bound(err.message, MAX_DETAIL),
    ...(err.errors ? { errors: boundErrors(err.errors) } : {}),
    traceId,
  };
}

/** True when a PostgreSQL error is a unique-constraint violation (optionally of the named constraint). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string; name?: string; cause?: unknown } | undefined;
  if (!e) return false;
  if (e.code === '23505' || e.name === 'UniqueConstraintViolationException') {
    return !constraint || e.constraint === constraint || String((e as Error).message ?? '').includes(constraint);
  }
  return e.cause ? isUniqueViolation(e.cause, constraint) : false;
}
