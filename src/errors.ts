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
  | 'precondition_failed'
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
  precondition_failed: 412,
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
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  internal: 'Internal server error',
  unavailable: 'Service unavailable',
};

/**
 * What each kind means to a client, served at `/problems#<slug>` (the problem `type` URI points
 * there, so the error reference is the API's own, not a third-party page).
 */
export const PROBLEM_REFERENCE: Record<ErrorKind, { slug: string; meaning: string; action: string }> = {
  validation: { slug: 'validation', meaning: 'One or more fields failed validation; `errors` maps each field to its messages.', action: 'Fix the named fields and send the request again.' },
  bad_request: { slug: 'bad-request', meaning: 'The request is malformed or breaks a business rule (e.g. a second active cart, a non-empty folder).', action: 'Read `detail`, change the request; do not retry it unchanged.' },
  unauthorized: { slug: 'unauthorized', meaning: 'The token or API key is missing, expired, revoked or invalid.', action: 'Log in again (POST /api/auth/login or /api/auth/token) and retry with the new token.' },
  payment_required: { slug: 'payment-failed', meaning: 'The payment provider declined or could not process the charge.', action: 'Use another card or payment method; `detail` gives the provider reason when it is safe to show.' },
  forbidden: { slug: 'forbidden', meaning: 'The token is valid but its role may not perform this operation.', action: 'Use a token of a role that may (see the operation in /docs).' },
  not_found: { slug: 'not-found', meaning: 'The resource does not exist, or belongs to another organization.', action: 'Check the id; do not retry unchanged.' },
  method_not_allowed: { slug: 'method-not-allowed', meaning: 'The path exists but not with this HTTP method; `Allow` lists the methods it has.', action: 'Use one of the methods in `Allow`.' },
  conflict: { slug: 'conflict', meaning: 'The request conflicts with the current state: a duplicate key, or a state that does not allow the change.', action: 'Read the current resource, then decide.' },
  precondition_failed: {
    slug: 'precondition-failed',
    meaning: 'If-Match named another version than the current one (someone changed the resource since you read it), or If-None-Match: * found the resource already there. `detail` and the `ETag` header name the current version.',
    action: 'Read the resource again, re-apply your change to it, and send it with the new ETag in If-Match.',
  },
  payload_too_large: { slug: 'payload-too-large', meaning: 'The body or an uploaded file is larger than the operation accepts.', action: 'Send less (for bulk data use /api/imports).' },
  unsupported_media_type: { slug: 'unsupported-media-type', meaning: 'The content type or file type is not accepted by this operation.', action: 'Send JSON, or the multipart form the operation documents.' },
  rate_limited: { slug: 'rate-limited', meaning: 'Too many requests in the current window; `RateLimit` and `Retry-After` say when to come back.', action: 'Wait `Retry-After` seconds before retrying.' },
  unavailable: { slug: 'unavailable', meaning: 'A dependency of the service is temporarily unavailable.', action: 'Retry after `Retry-After` seconds, with backoff.' },
  internal: { slug: 'internal', meaning: 'An unexpected error; the `traceId` identifies it in the service logs.', action: 'Retry with exponential backoff (1, 2, 4 seconds); report the traceId if it persists.' },
};

export { STATUS as PROBLEM_STATUSES, TITLE as PROBLEM_TITLES };

/** Path of a kind's entry in the error reference (one page, GET /problems, one anchor per kind). */
export const problemPath = (kind: ErrorKind): string => `/problems#${PROBLEM_REFERENCE[kind].slug}`;

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
/**
 * A field message is worded by the server; the bound only keeps one that quotes input from making a
 * large response. It is long enough for a message listing every allowed value (the webhook event
 * catalogue), which is never cut.
 */
const MAX_MESSAGE = 2000;
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

/** The problem document of an error; `baseUrl` (the API's public base URL) makes `type` an absolute URI. */
export function toProblem(err: AppError, traceId: string, baseUrl = ''): Problem {
  return {
    type: `${baseUrl}${problemPath(err.kind)}`,
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

/** A dependency a request can find down (issue 21): the API answers 503 with Retry-After, never 500 or a hang. */
export type Dependency = 'database' | 'temporal' | 'object storage' | 'network';

/** Seconds a client is told to wait when a dependency is down (Retry-After). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

const DEPENDENCY_LABEL: Record<Dependency, string> = {
  database: 'The database',
  temporal: 'The workflow service (Temporal)',
  'object storage': 'Object storage',
  network: 'A service this request needs',
};

/** The 503 a request gets when `dependency` is unreachable, hung or refusing work. */
export function dependencyUnavailable(dependency: Dependency): AppError {
  return new AppError(
    'unavailable',
    `${DEPENDENCY_LABEL[dependency]} is temporarily unavailable; nothing was changed unless the response says otherwise. Retry after ${DEPENDENCY_RETRY_AFTER_SECONDS} seconds.`,
    undefined,
    { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
  );
}

/** Socket-level failures: the peer is gone, refuses, or stopped answering. */
export const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED']);
/**
 * PostgreSQL states that mean "not now" rather than "wrong input": connection exceptions (08),
 * shutdown / cannot connect now (57P01-03), too many connections (53300), a statement cancelled by
 * statement_timeout (57014), a session ended by idle_in_transaction_session_timeout (25P03).
 */
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300|57014|25P03)$/;
/** What node-postgres and pg-pool say when the server is gone or hung (client-side timeouts). */
const PG_UNAVAILABLE_MESSAGE = /Query read timeout|timeout exceeded when trying to connect|Connection terminated|connection error|terminating connection|database system is (starting up|shutting down|in recovery mode)|Client was closed/i;
/** gRPC UNAVAILABLE (14) and DEADLINE_EXCEEDED (4), as the Temporal client reports them. */
const GRPC_UNAVAILABLE = new Set([4, 14]);

/**
 * Which dependency an error says is down, or null. Walks the cause chain (MikroORM and the Temporal
 * client wrap the driver's error). Object storage errors are tagged by src/adapters/storage.ts and
 * Temporal's arrive as gRPC statuses, and outbound HTTP (payment providers, webhooks, integrations)
 * maps its own failures; a bare socket error left (ECONNREFUSED on a new pool connection, which
 * node-postgres does not wrap) is therefore the database's.
 */
export function dependencyDown(err: unknown): Dependency | null {
  let e = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; metadata?: unknown; details?: unknown } | undefined;
  let sawNetwork = false;
  for (let depth = 0; e && depth < 6; depth++, e = e.cause as typeof e) {
    if (typeof e !== 'object') break;
    const name = typeof e.name === 'string' ? e.name : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (typeof e.code === 'number' && GRPC_UNAVAILABLE.has(e.code) && ('metadata' in e || 'details' in e)) return 'temporal';
    if (name === 'WorkflowUpdateRPCTimeoutOrCancelledError' || (name === 'ServiceError' && /connect to Temporal/i.test(message))) return 'temporal';
    if (typeof e.code === 'string' && PG_UNAVAILABLE.test(e.code)) return 'database';
    if (PG_UNAVAILABLE_MESSAGE.test(message) || name === 'ConnectionException') return 'database';
    if (typeof e.code === 'string' && NETWORK_ERROR_CODES.has(e.code)) sawNetwork = true;
  }
  return sawNetwork ? 'database' : null;
}
