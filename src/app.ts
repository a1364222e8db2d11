/**
 * createApp(deps) builds the Koa application without listening: error mapping to
 * problem details, trace ids, JSON access logs, a MikroORM EntityManager per request,
 * body parsing with size limits, and every RouteDef from src/api.
 */
import { randomBytes } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { forkRequestFrom, withRequestEntityManager } from './db/orm.js';
import type { ReplicaReads } from './db/replica.js';
import Router from '@koa/router';
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import qs from 'qs';
import { allRoutes } from './api/index.js';
import type { Deps } from './deps.js';
import { sha256 } from './domain/auth/secrets.js';
import { AppError, DEPENDENCY_RETRY_AFTER_SECONDS, dependencyDown, dependencyUnavailable, toProblem } from './errors.js';
import { authenticate, type Principal } from './http/auth.js';
import { requestIp } from './http/client-ip.js';
import { checkInput, checkParams, MAX_QUERY_STRING } from './http/input-guard.js';
import { compression, conditionalReads, corsFor, securityHeadersFor } from './http/conventions.js';
import { linkHeader, pagingOf } from './http/paging.js';
import { countRequest, enforceTenantLimits, rateLimitExceeded, rateLimitHeaders, admitTenantRequest, type RateLimitState, type TenantCaller } from './http/rate-limit.js';
import { honoursIdempotencyKey, readShapesOf, readsReplica, type Reply, type Req, type RouteDef } from './http/route.js';
import { IDEMPOTENCY_HEADER, requestFingerprint, withIdempotencyKey, type KeyScope } from './http/idempotency.js';
import { unknownFieldErrors, validate } from './http/validate.js';
import { checkPreconditions, resourceReadOf, versionTag, withResourceLock, type ResourceRead } from './http/versions.js';
import type { AnySchema } from 'yup';
import { callerClassOf } from './domain/organizations/rate-classes.js';
import { log } from './logger.js';
import { httpDuration, httpRequests, readTargets } from './metrics.js';
import { withServerSpan } from './tracing.js';

const JSON_LIMIT = '1mb';
/** Multipart limit of a route that sets none. */
const MULTIPART_DEFAULT_MAX_BYTES = 1024 * 1024;

/** formidable error codes (formidable/src/FormidableError.js): size limits are 413, the rest malformed input. */
const FORMIDABLE_TOO_LARGE = new Set([1006, 1009, 1016]);
const isFormidableError = (e: { code?: unknown; httpCode?: unknown }) =>
  typeof e?.code === 'number' && e.code >= 1000 && e.code <= 1018 && typeof e.httpCode === 'number';

/**
 * PostgreSQL data errors an input can still provoke when a schema misses a limit (a value out
 * of a column's range, a malformed text representation): a 400, logged so the schema gets fixed.
 */
const PG_INPUT_ERRORS = new Set(['22001', '22003', '22007', '22008', '22021', '22P02', '22P05', '2202E', '54001']);
function pgCode(err: unknown, depth = 0): string | undefined {
  const e = err as { code?: unknown; cause?: unknown } | undefined;
  if (!e || depth > 3) return undefined;
  if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return pgCode(e.cause, depth + 1);
}

function mapError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; message?: string; name?: string; type?: string; code?: unknown; httpCode?: unknown };
  const down = dependencyDown(err);
  if (down) {
    log.warn('dependency unavailable', { dependency: down, error: String(err).slice(0, 300) });
    return dependencyUnavailable(down);
  }
  if (isFormidableError(e)) {
    if (FORMIDABLE_TOO_LARGE.has(e.code as number)) return new AppError('payload_too_large', 'The request body is larger than allowed.');
    return AppError.badRequest('The multipart body is malformed, empty, or has more files or fields than allowed.');
  }
  const pg = pgCode(err);
  if (pg && PG_INPUT_ERRORS.has(pg)) {
    log.warn('input reached the database unvalidated', { code: pg, error: String(err).slice(0, 300) });
    return AppError.badRequest('A value is out of range, too long or malformed.');
  }
  if (err instanceof RangeError && /call stack/i.test(err.message)) return AppError.badRequest('The request is nested too deeply.');
  // formidable reports its limits with httpCode (e.g. 413 for maxTotalFileSize).
  const status = e?.status ?? e?.statusCode ?? (typeof e?.httpCode === 'number' ? e.httpCode : undefined);
  if (status === 413 || e?.type === 'entity.too.large' || /maxFileSize|too large/i.test(e?.message ?? ''))
    return new AppError('payload_too_large', 'The request body is larger than allowed.');
  if (status === 415) return new AppError('unsupported_media_type', 'Unsupported content type.');
  if (status === 400 || e?.name === 'SyntaxError') return AppError.badRequest('The request body is not valid JSON or form data.');
  if (e?.name === 'NotFoundError') return AppError.notFound();
  return new AppError('internal', 'An unexpected error occurred.');
}

function errorHandler(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    const traceId = (ctx.state.traceId as string) ?? randomBytes(16).toString('hex');
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new AppError('not_found', `No route for ${ctx.method} ${ctx.path}.`);
      if (ctx.status === 405 && ctx.body == null)
        throw new AppError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}.`);
    } catch (err) {
      const appErr = mapError(err);
      if (appErr.kind === 'internal')
        log.error('unhandled error', { traceId, method: ctx.method, path: ctx.path, error: String(err), stack: (err as Error)?.stack });
      ctx.status = appErr.status;
      ctx.type = 'application/problem+json';
      ctx.body = toProblem(appErr, traceId, deps.config.publicBaseUrl);
      for (const [k, v] of Object.entries(appErr.headers ?? {})) ctx.set(k, v);
      // RFC 9110 section 11.6.1: a 401 names the scheme that would be accepted.
      if (appErr.status === 401 && !ctx.response.get('WWW-Authenticate')) ctx.set('WWW-Authenticate', 'Bearer');
      // Every 503 tells the client when to come back.
      if (appErr.status === 503 && !ctx.response.get('Retry-After')) ctx.set('Retry-After', String(DEPENDENCY_RETRY_AFTER_SECONDS));
    }
  };
}

/**
 * No caching of API answers by browsers or shared caches (they carry tenant data, tokens and
 * credentials) unless a route sets its own Cache-Control (DESIGN "Security decisions"); a client
 * that keeps its own copy revalidates it with the ETag. nosniff and the other security headers
 * come from koa-helmet (src/http/conventions.ts). Koa sends no X-Powered-By; it is removed in
 * case a proxy or middleware adds one.
 */
function cacheControl(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
      ctx.remove('X-Powered-By');
    }
  };
}

/** Sets ctx.ip from the socket and as much of X-Forwarded-For as TRUST_PROXY allows. */
function resolveClientIp(deps: Deps): Koa.Middleware {
  return async (ctx, next) => {
    ctx.request.ip = requestIp(ctx.req, deps.config.trustProxy);
    await next();
  };
}

/**
 * Trace id, the access log line and the HTTP metrics of every request. Both name the route
 * template (`/api/orders/:orderId`, set by handleRoute; `(unmatched)` otherwise), never the
 * concrete path, so their number of distinct values stays the number of routes; the log line
 * also names the organization and the kind of caller (user, client, apikey, super, anonymous).
 * The trace id is the OpenTelemetry trace id (32 hex) of the request's server span, child of an
 * incoming `traceparent` (src/tracing.ts); with tracing off, that header's trace id or a new one.
 */
function traceAndLog(): Koa.Middleware {
  return async (ctx, next) =>
    withServerSpan(`${ctx.method}`, ctx.headers, async (traceId, span) => {
      ctx.state.traceId = traceId;
      ctx.set('X-Trace-Id', traceId);
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        const route = (ctx.state.route as string | undefined) ?? '(unmatched)';
        const labels = { route, method: ctx.method, status: String(ctx.status) };
        httpRequests.inc(labels);
        httpDuration.observe(labels, seconds);
        const caller = ctx.state.caller as { organizationId: string; kind: string; role: string } | undefined;
        if (span) {
          span.updateName(`${ctx.method} ${route}`);
          span.setAttributes({
            'http.request.method': ctx.method,
            'http.route': route,
            'http.response.status_code': ctx.status,
            ...(caller ? { 'organization.id': caller.organizationId } : {}),
          });
          if (ctx.status >= 500) span.setStatus({ code: 2 });
        }
        log.info('request', {
          traceId,
          method: ctx.method,
          route,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(seconds * 1e4) / 10,
          ip: ctx.ip,
          organizationId: caller?.organizationId ?? null,
          callerKind: caller?.kind ?? 'anonymous',
          role: caller?.role ?? null,
        });
      }
    });
}

/** The route's body parser; run by handleRoute after authentication, so anonymous callers cannot make the server parse (and store) bodies. */
function bodyParser(def: RouteDef, deps: Deps): Koa.Middleware | null {
  const kind = def.bodyKind ?? (def.body ? 'json' : undefined);
  if (!kind) return null;
  const maxBytes = (typeof def.maxBodyBytes === 'function' ? def.maxBodyBytes(deps.config) : def.maxBodyBytes) ?? MULTIPART_DEFAULT_MAX_BYTES;
  return koaBody({
    json: kind === 'json' || kind === 'json-or-multipart',
    urlencoded: kind === 'form',
    multipart: kind === 'multipart' || kind === 'json-or-multipart',
    // SPEC's DELETE endpoints (admins, price tiers, sales reps...) carry a JSON body.
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    text: false,
    jsonLimit: def.bodyLimits?.json ?? JSON_LIMIT,
    formLimit: JSON_LIMIT,
    jsonStrict: false,
    formidable: {
      maxFileSize: maxBytes,
      maxTotalFileSize: maxBytes,
      maxFiles: 1,
      maxFields: 50,
      maxFieldsSize: 64 * 1024,
      allowEmptyFiles: false,
      minFileSize: 1,
    },
    onError: (err) => {
      throw err;
    },
  });
}

/** Files of a multipart request by field name (koa-body/formidable `File` objects, first one per field). */
function uploadedFiles(ctx: Koa.Context): Record<string, unknown> {
  return Object.fromEntries(Object.entries(requestFiles(ctx)).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

/** koa-body's parsed files; Koa's own Request type does not declare them, so one cast reads them. */
function requestFiles(ctx: Koa.Context): Record<string, unknown> {
  return (ctx.request as unknown as { files?: Record<string, unknown> }).files ?? {};
}

/** koa-body's parsed body; Koa's own Request type does not declare it, so one cast reads it. */
function requestBodyOf(ctx: Koa.Context): unknown {
  return (ctx.request as unknown as { body?: unknown }).body;
}

/** Deletes the temporary files formidable wrote for a multipart request. */
async function removeUploads(ctx: Koa.Context): Promise<void> {
  const files = requestFiles(ctx);
  const all = Object.values(files).flatMap((v): unknown[] => (Array.isArray(v) ? v : [v])) as { filepath?: string }[];
  await Promise.all(all.filter((f) => f?.filepath).map((f) => unlink(f.filepath!).catch(() => undefined)));
}

/** Who an Idempotency-Key belongs to: the user, or the client / API key. */
const callerOf = (auth: Principal): string => (auth.kind === 'user' ? `user:${auth.userId ?? auth.subject}` : `${auth.kind}:${auth.subject}`).slice(0, 120);

/** Media types each body kind accepts; a body in any other is a 415 (JSON also in its `+json` suffix types). */
const MEDIA_TYPES: Record<NonNullable<RouteDef['bodyKind']>, string[]> = {
  json: ['application/json', 'application/*+json'],
  form: ['application/x-www-form-urlencoded'],
  multipart: ['multipart/form-data'],
  'json-or-multipart': ['application/json', 'application/*+json', 'multipart/form-data'],
};

/** A request that carries a body must say it is one of the media types the operation reads. */
function checkMediaType(ctx: Koa.Context, kind: NonNullable<RouteDef['bodyKind']>): void {
  if (!ctx.request.length && !ctx.get('Transfer-Encoding')) return;
  const accepted = MEDIA_TYPES[kind];
  if (!ctx.is(accepted))
    throw new AppError(
      'unsupported_media_type',
      `This operation reads a body of type ${accepted.filter((t) => !t.includes('*')).join(' or ')}; the request sent ${ctx.get('Content-Type') || 'no Content-Type'}.`,
    );
}

/** What a route learns from the other routes: the read shapes its body may echo, and the read of the resource it writes. */
interface RouteContext {
  readShapes: AnySchema[];
  resource: ResourceRead | null;
}

/** The resource's current state as its own GET answers it (null when it does not exist): what If-Match compares with. */
async function currentState(get: RouteDef, req: Req): Promise<unknown> {
  try {
    const query = get.query ? validate(get.query, {}, 'coerce') : {};
    // The read is the resource's own GET, run for the writer (who may write it, so may read it).
    const reply = await get.handler({ ...req, body: undefined, query } as never);
    return reply.status >= 200 && reply.status < 300 && !reply.raw ? (reply.body ?? null) : null;
  } catch (e) {
    if (e instanceof AppError && e.kind === 'not_found') return null;
    throw e;
  }
}

function handle(def: RouteDef, deps: Deps, routeCtx: RouteContext = { readShapes: [], resource: null }): Koa.Middleware {
  if (def.bodyKind === 'multipart' || def.bodyKind === 'json-or-multipart') {
    const inner = handleRoute(def, deps, routeCtx);
    return async (ctx, next) => {
      try {
        await inner(ctx, next);
      } finally {
        await removeUploads(ctx);
      }
    };
  }
  return handleRoute(def, deps, routeCtx);
}

function handleRoute(def: RouteDef, deps: Deps, { readShapes, resource }: RouteContext): Koa.Middleware {
  const parse = bodyParser(def, deps);
  const bodyKind = def.bodyKind ?? (def.body ? 'json' : undefined);
  const jsonOnly = def.bodyKind === 'json' || !def.bodyKind;
  return async (ctx) => {
    // The global EntityManager: each call resolves to the request's own fork, made on its first use (src/db/orm.ts).
    const em = deps.orm.em;
    // @koa/router sets ctx.params; the plain Koa.Context type does not declare it.
    const params = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
    const paramErrors = checkParams(params);
    if (paramErrors) throw AppError.validation(paramErrors, 'A path parameter is malformed.');
    const rawQuery = qs.parse(ctx.querystring, { depth: 3, arrayLimit: 200, parameterLimit: 200 });
    const queryErrors = checkInput(rawQuery, { maxString: MAX_QUERY_STRING, root: 'query' });
    if (queryErrors) throw AppError.validation(queryErrors, 'A query parameter is malformed.');
    const isPublic = def.auth === 'public';
    ctx.state.route = def.path;
    const auth = isPublic ? null : await authenticate(ctx, em, deps);
    if (auth) ctx.state.caller = { organizationId: auth.organizationId, kind: auth.isSuper ? 'super' : auth.kind, role: auth.role };
    /** Checks role, organization, query and body, then runs the handler: the request's reply, not yet sent. */
    const answer = async (): Promise<Reply> => {
      if (auth && !auth.isSuper && !(def.auth as readonly string[]).includes(auth.role)) throw AppError.forbidden();
      let orgId = auth?.organizationId ?? '';
      if (auth && params.organizationId !== undefined && params.organizationId !== auth.organizationId) {
        if (!auth.isSuper) throw AppError.forbidden('The organization in the path differs from the token organization.');
        orgId = params.organizationId;
      }
      if (bodyKind) checkMediaType(ctx, bodyKind);
      if (parse) await parse(ctx, async () => undefined);
      const query = def.query ? validate(def.query, rawQuery, 'coerce') : rawQuery;
      let requestBody = requestBodyOf(ctx);
      const bodyErrors = checkInput(requestBody);
      if (bodyErrors) throw AppError.validation(bodyErrors, 'The request body is malformed.');
      // Multipart: uploaded files join the fields, so one schema validates (and reports) both.
      const multipart = def.bodyKind === 'multipart' || (def.bodyKind === 'json-or-multipart' && !!ctx.is('multipart'));
      if (multipart) requestBody = { ...((requestBody as object) ?? {}), ...uploadedFiles(ctx) };
      const isJsonBody = jsonOnly || (def.bodyKind === 'json-or-multipart' && !multipart);
      /** Validation and the handler: what an Idempotency-Key's first request runs (and a replay does not). */
      const run = async (): Promise<Reply> => {
        let body: unknown = requestBody;
        if (def.body && isJsonBody) {
          const unknown = unknownFieldErrors(def.body, readShapes, requestBody);
          if (unknown) throw AppError.validation(unknown, `The request body has fields this operation does not know: ${Object.keys(unknown).join(', ')}.`);
        }
        if (def.body) body = validate(def.body, requestBody, isJsonBody ? 'strict' : 'coerce');
        if (def.rateLimit) ctx.set(rateLimitHeaders(await applyRateLimits(def, deps, em, ctx.ip, body)));
        // Req.auth is declared present because handlers of non-public routes always have it; public handlers never read it.
        const req: Req = { ctx, em, deps, auth: auth as Principal, orgId, body, query, params };
        const ifMatch = ctx.get('If-Match');
        const ifNoneMatch = ctx.get('If-None-Match');
        // RouteDef stores handlers type-erased (src/http/route.ts); req was validated against the route's own schemas.
        if (!resource || !(ifMatch || ifNoneMatch)) return def.handler(req as never);
        const readParams = resource.params(params, body);
        // The check and the write under one lock per resource: two writers naming the same version cannot both pass.
        return withResourceLock(deps.orm.em, `${orgId} ${resource.get.path} ${JSON.stringify(readParams)}`, async () => {
          await checkPreconditions({ ifMatch, ifNoneMatch }, resource.creates, async () => (readParams ? currentState(resource.get, { ...req, params: readParams }) : null));
          return def.handler(req as never);
        });
      };
      const key = auth && honoursIdempotencyKey(def) ? ctx.get(IDEMPOTENCY_HEADER) : '';
      let reply: Reply;
      if (!key) reply = await run();
      else {
        const scope: KeyScope = { organizationId: orgId, caller: callerOf(auth!), route: `${def.method.toUpperCase()} ${ctx.path}` };
        const hash = await requestFingerprint(requestBodyOf(ctx), multipart ? uploadedFiles(ctx) : {}, ctx.querystring);
        const keyed = await withIdempotencyKey(em, { scope, key, hash, leaseMs: deps.config.idempotencyClaimLeaseMs, withhold: !!def.answersSecret }, run);
        reply = keyed.answer;
        if (keyed.replayed) {
          ctx.set('Idempotent-Replayed', 'true');
          reply = { status: keyed.answer.status, body: keyed.answer.body ?? undefined, headers: keyed.answer.headers };
        }
      }
      // A write may have changed what the read cache holds (a removed admin, a rotated key): its NOTIFY
      // is handled before the reply goes out, so the caller's next request sees the change.
      if (def.method !== 'get') await deps.credentialVersions.sync();
      return reply;
    };
    // Paced (or held and refused) in memory first; then a read is counted against its tenant's limits
    // beside its own statement (one round trip less per read), anything else waits for the count
    // first. Either way an exceeded limit is the answer. (The count's failure is held as a value
    // until awaited, so it is never an unhandled rejection.)
    const caller: TenantCaller | null = auth && def.tenantLimits !== 'exempt' ? { organizationId: auth.organizationId, callerClass: callerClassOf(auth), credential: sha256(callerOf(auth)) } : null;
    if (caller) await admitTenantRequest(caller, deps.config.tenantRateLimits);
    // Before anything uses the request's EntityManager: a list or report may read the replica.
    if (deps.replicaReads && readsReplica(def)) await readFromReplicaIfFresh(deps.replicaReads);
    const counted: Promise<Error | null> = caller
      ? applyTenantLimits(deps, em, ctx, caller).then(
          () => null,
          (e: unknown) => (e instanceof Error ? e : new Error(`tenant limits failed: ${String(e)}`)),
        )
      : Promise.resolve(null);
    const limitsPassed = async () => {
      const refused = await counted;
      if (refused) throw refused;
    };
    if (def.method !== 'get') await limitsPassed();
    let reply: Reply;
    try {
      reply = await answer();
    } catch (e) {
      await limitsPassed();
      throw e;
    }
    await limitsPassed();
    for (const [k, v] of Object.entries(reply.headers ?? {})) ctx.set(k, v);
    if (reply.redirect) {
      ctx.status = reply.status;
      ctx.redirect(reply.redirect);
      ctx.status = reply.status;
      return;
    }
    ctx.status = reply.status;
    if (reply.raw) {
      ctx.type = reply.raw.contentType;
      ctx.body = reply.raw.data;
    } else if (reply.body === undefined || reply.body === null) {
      // No body: an explicit null makes Koa answer Content-Length: 0 without a Content-Type (a 200
      // stays a 200), so a client's JSON parser is never handed an empty "application/json".
      ctx.body = null;
      ctx.status = reply.status;
    } else {
      // Serialised here, once: the ETag and compression middleware then hash and compress this text
      // instead of each calling JSON.stringify on the object again.
      const isJson =
        typeof reply.body === 'object' && reply.body !== null && !Buffer.isBuffer(reply.body) && typeof (reply.body as { pipe?: unknown }).pipe !== 'function';
      ctx.body = isJson ? JSON.stringify(reply.body) : reply.body;
      if (isJson) ctx.type = 'application/json';
      // A read's ETag is the version of what it shows (src/http/versions.ts), not a digest of its bytes.
      if (isJson && def.method === 'get' && reply.status === 200 && !reply.headers?.ETag) ctx.set('ETag', versionTag(reply.body));
      const page = pagingOf(reply.body);
      if (page) ctx.set('Link', linkHeader(ctx.path, ctx.querystring, page));
    }
  };
}

/** Sends the request's reads to the replica when it has caught up with the primary (src/db/replica.ts), and counts where they went. */
async function readFromReplicaIfFresh(replica: ReplicaReads): Promise<void> {
  const { target, reason } = await replica.choose();
  const switched = target === 'replica' && forkRequestFrom(replica.orm.em, replica.url);
  readTargets.inc({ target: switched ? 'replica' : 'primary', reason });
}

/** Per-organization and per-credential limits on authenticated requests (issue 21), with RateLimit headers on every answer. */
async function applyTenantLimits(deps: Deps, em: EntityManager, ctx: Koa.Context, caller: TenantCaller): Promise<void> {
  const limits = deps.config.tenantRateLimits;
  const state = await enforceTenantLimits(em, { ...caller, ...limits, orgDefault: limits.perOrganizationPerMinute });
  ctx.set(rateLimitHeaders(state));
}

/**
 * Rate limits of a public or login route. Keys are hashed (a 5,000-character ClientId is a
 * 64-character key). Login routes are limited per ClientId / e-mail and per client IP; the
 * per-IP count is taken only when the first limit passed. Returns the standing against each
 * policy counted (for the RateLimit headers); an exceeded one is a 429 carrying them.
 */
async function applyRateLimits(def: RouteDef, deps: Deps, em: EntityManager, ip: string, body: unknown): Promise<RateLimitState[]> {
  const rl = def.rateLimit!;
  const limits = deps.config.rateLimits;
  // The key function is typed by the route's body schema; body was validated against that schema.
  const subject = rl.key({ ip, body: body as never });
  const states = [
    await countRequest(em, `${rl.scope}:${def.path}:${sha256(subject)}`, rl.scope === 'login' ? limits.loginPerMinute : limits.publicPerMinute, rl.scope),
  ];
  if (states[0].remaining < 0) throw rateLimitExceeded(states[0], states);
  if (rl.scope === 'login') {
    states.push(await countRequest(em, `login-ip:${def.path}:${sha256(ip)}`, limits.loginPerIpPerMinute, 'login-ip'));
    if (states[1].remaining < 0) throw rateLimitExceeded(states[1], states);
  }
  return states;
}

export function createApp(deps: Deps, routes: RouteDef[] = allRoutes): Koa {
  const app = new Koa();
  const router = new Router();
  for (const def of routes) router[def.method](def.path, handle(def, deps, { readShapes: readShapesOf(def, routes), resource: resourceReadOf(def, routes) }));
  app.use(cacheControl());
  app.use(securityHeadersFor());
  app.use(corsFor(deps.config.corsOrigins));
  app.use(resolveClientIp(deps));
  app.use(traceAndLog());
  app.use(compression());
  app.use(errorHandler(deps));
  for (const mw of conditionalReads()) app.use(mw);
  app.use((ctx, next) => withRequestEntityManager(deps.orm.em, next));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  app.on('error', (err) => log.error('koa error', { error: String(err) }));
  return app;
}
