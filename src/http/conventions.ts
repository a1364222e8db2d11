/**
 * HTTP conventions every answer shares, through maintained Koa middleware: security headers
 * (koa-helmet), CORS for configured origins (@koa/cors), compression of large answers
 * (koa-compress), and ETag / 304 on reads (koa-etag + koa-conditional-get).
 */
import cors from '@koa/cors';
import type Koa from 'koa';
import compress from 'koa-compress';
import conditional from 'koa-conditional-get';
import etag from 'koa-etag';
import helmet from 'koa-helmet';
import { log } from '../logger.js';

/** Headers a browser client may read on a cross-origin answer. */
const EXPOSED = ['Location', 'Link', 'ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Trace-Id', 'Idempotent-Replayed', 'Content-Disposition', 'X-Ingestion-Id'];

/**
 * CORS for the configured origins only (CORS_ORIGINS; none by default, so browsers on other
 * sites cannot read answers). Tokens travel in headers, never cookies, so no credentials mode.
 * A refused origin gets no Access-Control-* header at all.
 */
export function corsFor(origins: readonly string[]): Koa.Middleware {
  const allowed = new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      return allowed.has(origin) ? origin : '';
    },
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: EXPOSED,
    maxAge: 600,
  });
}

/** Paths of the human reference page (an OpenAPI viewer served from its package), which needs scripts and styles. */
const isDocsPage = (path: string) => path === '/docs' || path.startsWith('/docs/');

/**
 * Security headers. API answers get a CSP that allows nothing (they are data, never a page to
 * run); the /docs viewer may load its own scripts, styles, fonts and workers and call the API
 * from its own origin. Both deny framing.
 */
export function securityHeadersFor(): Koa.Middleware {
  const common = { frameguard: { action: 'deny' as const }, crossOriginResourcePolicy: { policy: 'same-site' as const } };
  const api = helmet({
    ...common,
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } },
  });
  const docs = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'unsafe-inline'", 'blob:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        workerSrc: ["'self'", 'blob:'],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        objectSrc: ["'none'"],
      },
    },
  });
  return async (ctx, next) => {
    await (isDocsPage(ctx.path) ? docs : api)(ctx, next);
  };
}

/** Only documents are compressed: JSON, problem details, HTML. Downloads keep their bytes and Content-Length. */
const COMPRESSIBLE = /^(application\/(json|problem\+json)|text\/html)\b/i;

/** gzip or br (whichever the client prefers) for answers of 1 KB and more. */
export function compression(): Koa.Middleware {
  return compress({ threshold: 1024, filter: (type) => COMPRESSIBLE.test(type), deflate: false });
}

/**
 * The API is the origin server, so it evaluates If-None-Match itself: a request's
 * `Cache-Control: no-cache` / `Pragma: no-cache` (which fetch adds to every conditional request)
 * is addressed to caches in between and must not turn the 304 into a 200.
 */
const originRevalidation: Koa.Middleware = async (ctx, next) => {
  if (ctx.get('If-None-Match')) {
    delete ctx.req.headers['cache-control'];
    delete ctx.req.headers.pragma;
  }
  await next();
};

/**
 * ETag on every successful read and 304 when If-None-Match matches. koa-etag prints a
 * deprecation notice to the console when built; it goes to the JSON log instead.
 */
export function conditionalReads(): Koa.Middleware[] {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => log.debug('koa-etag notice', { notice: args.map(String).join(' ') });
  let tag: Koa.Middleware;
  try {
    tag = etag();
  } finally {
    console.warn = warn;
  }
  const onReads: Koa.Middleware = async (ctx, next) => {
    await (ctx.method === 'GET' || ctx.method === 'HEAD' ? tag(ctx, next) : next());
  };
  return [originRevalidation, conditional(), onReads];
}
