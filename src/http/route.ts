/**
 * Routes are data: each module exports RouteDefs, which the app registers on @koa/router
 * and which also produce /openapi.json (and so the security-matrix test). Auth, role,
 * organization-scope and validation checks live here once, not in handlers.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type Koa from 'koa';
import type { AnyObject, InferType, ObjectSchema } from 'yup';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import type { Principal, Role } from './auth.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw response (stream/buffer) with its content type; skips JSON. */
  raw?: { contentType: string; data: unknown };
  redirect?: string;
}

export interface Req<B = unknown, Q = unknown> {
  ctx: Koa.Context;
  em: EntityManager;
  deps: Deps;
  /** Present on every non-public route. */
  auth: Principal;
  /** The organization the request acts on: the token's, or a path one for Super callers. */
  orgId: string;
  body: B;
  query: Q;
  params: Record<string, string>;
}

type Schema = ObjectSchema<AnyObject>;
type Inferred<S> = S extends Schema ? InferType<S> : undefined;
/** Without a query schema the handler gets the parsed query string as is. */
type InferredQuery<S> = S extends Schema ? InferType<S> : Record<string, unknown>;

export interface RouteDef<BS extends Schema | undefined = Schema | undefined, QS extends Schema | undefined = Schema | undefined> {
  method: Method;
  /** @koa/router path, e.g. /api/organizations/:organizationId/integrations */
  path: string;
  summary: string;
  tag: string;
  /** 'public', or the roles allowed (Super is always allowed). */
  auth: 'public' | readonly Role[];
  /** Rate-limit bucket for public and login routes: key derived from the request. */
  rateLimit?: { scope: 'public' | 'login'; key: (r: { ip: string; body: Inferred<BS> }) => string };
  body?: BS;
  /** How the body arrives; json by default when `body` is set. 'json-or-multipart' takes either. */
  bodyKind?: 'json' | 'form' | 'multipart' | 'json-or-multipart';
  /** Largest multipart file accepted (bytes); parsed only after authentication. 1 MB when unset. */
  maxBodyBytes?: number | ((config: Config) => number);
  /** A larger JSON body limit than the default 1 MB, e.g. bulk imports. */
  bodyLimits?: { json?: string };
  query?: QS;
  /** Honours an `Idempotency-Key` header (routes that create or charge). */
  idempotent?: boolean;
  /** Documented responses: status -> description. */
  responses: Record<number, string>;
  /** Role required to use a user token (not a client/API key token), e.g. profile. */
  handler: (req: Req<Inferred<BS>, InferredQuery<QS>>) => Promise<Reply>;
}

/** Identity helper that keeps handler types inferred from the yup schemas. */
export function defineRoute<BS extends Schema | undefined = undefined, QS extends Schema | undefined = undefined>(def: RouteDef<BS, QS>): RouteDef {
  // Handlers are contravariant in their inferred Req; the registry stores them type-erased (validation happens before the call).
  return def as unknown as RouteDef;
}

export const ok = (body?: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const accepted = (body: unknown): Reply => ({ status: 202, body });
export const noContent = (): Reply => ({ status: 204 });
