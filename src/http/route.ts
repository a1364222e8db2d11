/**
 * Routes are data: each module exports RouteDefs, which the app registers on @koa/router
 * and which also produce /openapi.json (and so the security-matrix test). Auth, role,
 * organization-scope and validation checks live here once, not in handlers.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type Koa from 'koa';
import type { AnyObject, AnySchema, InferType, ObjectSchema } from 'yup';
import type { Config } from '../config.js';
import type { Deps } from '../deps.js';
import type { Principal, Role } from './auth.js';
import type { ListSpec } from './paging.js';

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

/**
 * A documented response. Error statuses (>= 400) given as a plain string are
 * application/problem+json (components/schemas/Problem); a success status needs a body
 * (`json(schema)`, `file(mime)`) or says it has none (`empty()`).
 */
export interface ResponseDoc {
  description: string;
  /** yup schema of the JSON body (`.meta({ component: 'Name' })` makes it a shared components/schemas entry). */
  schema?: AnySchema;
  /** A body that is not JSON: its media type (text/csv, application/pdf, text/html, application/octet-stream). */
  mediaType?: string;
  /** No body (204, or an empty 200 SPEC asks for). */
  empty?: true;
  example?: unknown;
  /** Other media types the same status may answer with (e.g. text/csv beside JSON), bodies as strings. */
  alsoMediaTypes?: string[];
  /** Response headers, e.g. Location. */
  headers?: Record<string, { description: string; schema?: Record<string, unknown> }>;
  /**
   * A 202 that names nothing to follow (e.g. a password-reset request, answered alike whether or not
   * the account exists): no Location. Every other 201 and 202 answers with Location (`created()`,
   * `accepted(body, location)`), and the document says so without the route listing the header.
   */
  noLocation?: true;
}

export interface RouteDef<BS extends Schema | undefined = Schema | undefined, QS extends Schema | undefined = Schema | undefined> {
  method: Method;
  /** @koa/router path, e.g. /api/organizations/:organizationId/integrations */
  path: string;
  /** Stable, hand-named operationId (listProducts, checkoutCart): clients generate method names from it. */
  operationId: string;
  summary: string;
  /** Longer Markdown description shown by the reference page. */
  description?: string;
  tag: string;
  /** 'public', or the roles allowed (Super is always allowed). */
  auth: 'public' | readonly Role[];
  /**
   * 'exempt': not counted against the tenant's limits nor refused by them (an admin must always be able
   * to read its own limits, GET /api/organizations/rate-limits). Every other authenticated route is counted.
   */
  tenantLimits?: 'exempt';
  /**
   * 'replica': a read the streaming replica may serve once it has caught up (src/db/replica.ts): set
   * on analytics, statements of account, timelines and exports; every paged GET list is one too
   * (`readsReplica`).
   */
  reads?: 'replica';
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
  /** A paged list: documents pageNumber, pageSize, sortOn, sortDirection and filters from the ListSpec the service parses with. */
  paged?: ListSpec;
  /** Path parameters whose schema differs from the shared ones in src/http/openapi.ts PATH_PARAMETERS. */
  pathParams?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** Query parameters read from ctx.query that no `query` schema declares (documentation only). */
  queryParams?: Record<string, { description: string; schema: Record<string, unknown>; required?: boolean }>;
  /** Example request body (JSON). */
  requestExample?: unknown;
  /**
   * The 2xx answer carries a secret or a token (credentials, a webhook signing secret, an access
   * token, a presigned upload URL): under an `Idempotency-Key` it is never stored, and a repeated
   * key is a 409 (src/http/idempotency.ts).
   */
  answersSecret?: true;
  /**
   * Documented responses, status -> ResponseDoc (json(schema), file(mime), empty()) or, for
   * errors, a description string (answered as application/problem+json). test/openapi.test.ts
   * fails when a success response has no schema.
   */
  responses: Record<number, string | ResponseDoc>;
  /** Role required to use a user token (not a client/API key token), e.g. profile. */
  handler: (req: Req<Inferred<BS>, InferredQuery<QS>>) => Promise<Reply>;
}

/** Identity helper that keeps handler types inferred from the yup schemas. */
export function defineRoute<BS extends Schema | undefined = undefined, QS extends Schema | undefined = undefined>(def: RouteDef<BS, QS>): RouteDef {
  // Handlers are contravariant in their inferred Req; the registry stores them type-erased (validation happens before the call).
  return def as unknown as RouteDef;
}

export const ok = (body?: unknown): Reply => ({ status: 200, body });
/** 201 with the created object and `Location`: where it can be read (a path of this API, or the page a setup created). */
export const created = (body: unknown, location: string): Reply => ({ status: 201, body, headers: { Location: location } });
/** 202 with what was accepted and `Location`: where its progress or outcome can be read (the job, the delivery, the approval it waits for). */
export const accepted = (body: unknown, location?: string): Reply => ({ status: 202, body, ...(location ? { headers: { Location: location } } : {}) });
export const noContent = (): Reply => ({ status: 204 });

/** A JSON response described by a yup schema (see src/domain/contract.ts for response building blocks). */
export const json = (schema: AnySchema, description: string, opts: { example?: unknown; headers?: ResponseDoc['headers']; alsoMediaTypes?: string[]; noLocation?: true } = {}): ResponseDoc => ({ description, schema, ...opts });
/** A non-JSON body (CSV, PDF, HTML; a stored file of any type is '*\/*'). */
export const file = (mediaType: string, description: string): ResponseDoc => ({ description, mediaType });
/** A response without a body. */
export const empty = (description: string): ResponseDoc => ({ description, empty: true });
/** The Location header of a 201 (src/http/openapi.ts adds it to every 201 and 202 on its own; a route may still name it). */
export const LOCATION = { Location: { description: 'URL of the created resource', schema: { type: 'string', format: 'uri-reference' } } };

/** The JSON schema a route answers 200 with, when it has one. */
function okSchema(def: RouteDef): AnySchema | undefined {
  const doc = def.responses[200];
  return typeof doc === 'object' && doc.schema ? doc.schema : undefined;
}

/**
 * What the resource a write addresses looks like when read: the 200 schema of the GET on the
 * same path, or of the GET on one of its items (`/api/webhooks` -> `/api/webhooks/:webhookId`),
 * lists excepted. The read-only fields of that shape may come back in the write's body (a
 * GET-modify-PUT round trip) without being refused as unknown fields.
 */
export function readShapesOf(def: RouteDef, routes: readonly RouteDef[]): AnySchema[] {
  if (def.method === 'get') return [];
  const item = new RegExp(`^${def.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/:[A-Za-z]+$`);
  return routes
    .filter((r) => r.method === 'get' && !r.paged && (r.path === def.path || item.test(r.path)))
    .map(okSchema)
    .filter((s): s is AnySchema => !!s && s.type === 'object');
}

/** Methods whose requests change state: each honours an Idempotency-Key (src/http/idempotency.ts). */
const KEYED_METHODS: ReadonlySet<Method> = new Set(['post', 'put', 'patch']);

/** Whether an operation honours `Idempotency-Key`: every state-changing one with an authenticated caller (the key's scope). */
export const honoursIdempotencyKey = (def: RouteDef): boolean => KEYED_METHODS.has(def.method) && def.auth !== 'public';

/** Whether a route's reads may go to the replica: a GET marked `reads: 'replica'`, or any paged GET list. */
export const readsReplica = (def: RouteDef): boolean => def.method === 'get' && (def.reads === 'replica' || !!def.paged);
