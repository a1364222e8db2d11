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

/** Content codings whose representation gets its own ETag (`"v-abc-gzip"` beside `"v-abc"`). */
const CODED_TAG = /-(gzip|br|zstd|deflate)"$/i;

/** The ETag of a representation in a content coding: the identity tag with `-<coding>` before its closing quote. */
export const codedTag = (tag: string, coding: string): string => (CODED_TAG.test(tag) ? tag : tag.replace(/"$/, `-${coding.toLowerCase()}"`));

/**
 * gzip or br (whichever the client prefers) for answers of 1 KB and more, with one ETag per
 * representation: a compressed answer's ETag is the identity one with `-gzip` / `-br` appended
 * (RFC 9110 8.8.3: the bytes differ, so caches must not mix them). If-None-Match accepts either
 * form of the current version (the coding suffix is taken off before conditional-get compares),
 * and a 304 names the tag the client sent. If-Match ignores the suffix too (src/http/versions.ts).
 */
export function compression(): Koa.Middleware {
  const gz = compress({ threshold: 1024, filter: (type) => COMPRESSIBLE.test(type), deflate: false });
  return async (ctx, next) => {
    const sent = ctx.get('If-None-Match');
    if (sent) ctx.req.headers['if-none-match'] = sent.replace(/-(gzip|br|zstd|deflate)"/gi, '"');
    await gz(ctx, next);
    const tag = ctx.response.get('ETag');
    if (!tag) return;
    const coding = ctx.response.get('Content-Encoding');
    if (coding && coding !== 'identity') ctx.set('ETag', codedTag(tag, coding));
    else if (ctx.status === 304) {
      // The representation the client holds: the tag it sent, in the coding it sent it with.
      const held = (sent.match(/(W\/)?"[^"]*"/g) ?? []).find((t) => t.replace(/^W\//, '').replace(CODED_TAG, '"') === tag.replace(/^W\//, ''));
      if (held) ctx.set('ETag', held.replace(/^W\//, tag.startsWith('W/') ? 'W/' : ''));
    }
  };
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
