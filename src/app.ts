/**
 * createApp(deps) builds the Koa application without listening: error mapping to
 * problem details, trace ids, JSON access logs, a MikroORM EntityManager per request,
 * body parsing with size limits, and every RouteDef from src/api.
 */
import { randomUUID } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { RequestContext } from '@mikro-orm/postgresql';
import Router from '@koa/router';
import Koa from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import qs from 'qs';
import { allRoutes } from './api/index.js';
import type { Deps } from './deps.js';
import { AppError, toProblem } from './errors.js';
import { authenticate } from './http/auth.js';
import { enforceRateLimit } from './http/rate-limit.js';
import type { Reply, Req, RouteDef } from './http/route.js';
import { claimKey, completeKey, IDEMPOTENCY_HEADER, releaseKey, requestHash } from './http/idempotency.js';
import { validate } from './http/validate.js';
import { log } from './logger.js';

const JSON_LIMIT = '1mb';
const MULTIPART_MAX_BYTES = 50 * 1024 * 1024;

function mapError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; message?: string; name?: string; type?: string };
  const status = e?.status ?? e?.statusCode;
  if (status === 413 || e?.type === 'entity.too.large' || /maxFileSize|too large/i.test(e?.message ?? ''))
    return new AppError('payload_too_large', 'The request body is larger than allowed.');
  if (status === 415) return new AppError('unsupported_media_type', 'Unsupported content type.');
  if (status === 400 || e?.name === 'SyntaxError') return AppError.badRequest('The request body is not valid JSON or form data.');
  if (e?.name === 'NotFoundError') return AppError.notFound();
  return new AppError('internal', 'An unexpected error occurred.');
}

function errorHandler(): Koa.Middleware {
  return async (ctx, next) => {
    const traceId = (ctx.state.traceId as string) ?? randomUUID();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new AppError('not_found', `No route for ${ctx.method} ${ctx.path}.`);
      if (ctx.status === 405 && ctx.body == null) throw new AppError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}.`);
    } catch (err) {
      const appErr = mapError(err);
      if (appErr.kind === 'internal') log.error('unhandled error', { traceId, method: ctx.method, path: ctx.path, error: String(err), stack: (err as Error)?.stack });
      ctx.status = appErr.status;
      ctx.type = 'application/problem+json';
      ctx.body = toProblem(appErr, traceId);
      for (const [k, v] of Object.entries(appErr.headers ?? {})) ctx.set(k, v);
    }
  };
}

function traceAndLog(): Koa.Middleware {
  return async (ctx, next) => {
    const traceId = randomUUID();
    ctx.state.traceId = traceId;
    ctx.set('X-Trace-Id', traceId);
    const start = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      log.info('request', { traceId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10, ip: ctx.ip });
    }
  };
}

function bodyParser(def: RouteDef): Koa.Middleware {
  const kind = def.bodyKind ?? (def.body ? 'json' : undefined);
  if (!kind)
    return async (_ctx, next) => {
      await next();
    };
  return koaBody({
    json: kind === 'json',
    urlencoded: kind === 'form',
    multipart: kind === 'multipart',
    // SPEC's DELETE endpoints (admins, price tiers, sales reps...) carry a JSON body.
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    text: false,
    jsonLimit: JSON_LIMIT,
    formLimit: JSON_LIMIT,
    jsonStrict: false,
    formidable: { maxFileSize: MULTIPART_MAX_BYTES, maxFiles: 1 },
    onError: (err) => {
      throw err;
    },
  });
}

/** Files of a multipart request by field name (koa-body/formidable `File` objects, first one per field). */
function uploadedFiles(ctx: Koa.Context): Record<string, unknown> {
  const files = (ctx.request as unknown as { files?: Record<string, unknown> }).files ?? {};
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

/** Deletes the temporary files formidable wrote for a multipart request. */
async function removeUploads(ctx: Koa.Context): Promise<void> {
  const files = (ctx.request as unknown as { files?: Record<string, unknown> }).files ?? {};
  const all = Object.values(files).flatMap((v): unknown[] => (Array.isArray(v) ? v : [v])) as { filepath?: string }[];
  await Promise.all(all.filter((f) => f?.filepath).map((f) => unlink(f.filepath!).catch(() => undefined)));
}

/** Runs the handler, through the Idempotency-Key store when the route opts in and the header is sent. */
async function runHandler(def: RouteDef, req: Req, ctx: Koa.Context): Promise<Reply> {
  const key = def.idempotent && req.auth ? ctx.get(IDEMPOTENCY_HEADER) : '';
  if (!key) return def.handler(req as never);
  const route = `${def.method.toUpperCase()} ${ctx.path}`;
  const replay = await claimKey(req.em, req.orgId, route, key, requestHash(req.body));
  if (replay) {
    ctx.set('Idempotent-Replayed', 'true');
    return { status: replay.status, body: replay.body ?? undefined };
  }
  let reply: Reply;
  try {
    reply = await def.handler(req as never);
  } catch (e) {
    await releaseKey(req.em, req.orgId, route, key);
    throw e;
  }
  if (reply.status < 300 && !reply.raw && !reply.redirect) await completeKey(req.em, req.orgId, route, key, reply.status, reply.body);
  else await releaseKey(req.em, req.orgId, route, key);
  return reply;
}

function handle(def: RouteDef, deps: Deps): Koa.Middleware {
  if (def.bodyKind === 'multipart') {
    const inner = handleRoute(def, deps);
    return async (ctx, next) => {
      try {
        await inner(ctx, next);
      } finally {
        await removeUploads(ctx);
      }
    };
  }
  return handleRoute(def, deps);
}

function handleRoute(def: RouteDef, deps: Deps): Koa.Middleware {
  return async (ctx) => {
    const em = RequestContext.getEntityManager();
    if (!em) throw new Error('no request context');
    const params = (ctx as unknown as { params: Record<string, string> }).params ?? {};
    const isPublic = def.auth === 'public';
    const auth = isPublic ? null : await authenticate(ctx, em as never, deps.config, deps.credentialVersions);
    if (auth && !auth.isSuper && !(def.auth as readonly string[]).includes(auth.role)) throw AppError.forbidden();
    let orgId = auth?.organizationId ?? '';
    if (auth && params.organizationId !== undefined && params.organizationId !== auth.organizationId) {
      if (!auth.isSuper) throw AppError.forbidden('The organization in the path differs from the token organization.');
      orgId = params.organizationId;
    }
    const rawQuery = qs.parse(ctx.querystring, { depth: 3, arrayLimit: 200 });
    const query = def.query ? validate(def.query, rawQuery, 'coerce') : rawQuery;
    let requestBody = (ctx.request as unknown as { body?: unknown }).body;
    // Multipart: uploaded files join the fields, so one schema validates (and reports) both.
    if (def.bodyKind === 'multipart') requestBody = { ...((requestBody as object) ?? {}), ...uploadedFiles(ctx) };
    let body: unknown = requestBody;
    if (def.body) body = validate(def.body, requestBody, def.bodyKind === 'json' || !def.bodyKind ? 'strict' : 'coerce');
    if (def.rateLimit) {
      const limit = def.rateLimit.scope === 'login' ? deps.config.rateLimits.loginPerMinute : deps.config.rateLimits.publicPerMinute;
      await enforceRateLimit(em as never, `${def.rateLimit.scope}:${def.path}:${def.rateLimit.key({ ip: ctx.ip, body: body as never })}`, limit);
    }
    const req: Req = { ctx, em: em as never, deps, auth: auth as never, orgId, body, query, params };
    const reply = await runHandler(def, req, ctx);
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
    } else if (reply.status !== 204) {
      ctx.body = reply.body === undefined ? '' : reply.body;
      if (reply.body === undefined) ctx.type = 'application/json';
    }
  };
}

export function createApp(deps: Deps, routes: RouteDef[] = allRoutes): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
  const router = new Router();
  for (const def of routes) router[def.method](def.path, bodyParser(def), handle(def, deps));
  app.use(traceAndLog());
  app.use(errorHandler());
  app.use((ctx, next) => RequestContext.create(deps.orm.em, next));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  app.on('error', (err) => log.error('koa error', { error: String(err) }));
  return app;
}
