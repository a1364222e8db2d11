/**
 * Versions of resources and the conditional writes that use them (issue 38, finding 7;
 * docs/security.md "Retries, versions and media types").
 *
 * - The ETag of a resource's read is its version: a digest of the resource's state as its GET
 *   answers it, taken from the value (canonical JSON: key order, spacing, compression and the
 *   transfer encoding do not matter) with the signature and expiry of signed URLs left out, so a
 *   document whose answer carries a fresh presigned URL keeps its ETag while anything it shows
 *   (a line, an address, a status) changes it. The state of child rows (addresses, lines) is part
 *   of the version, which a row's own `updatedAt` would miss.
 * - Every write of a resource that has such a read (PUT, PATCH and DELETE on its path, and the
 *   actions under it, e.g. `POST /api/invoices/{id}/void`) honours `If-Match`: when the header names
 *   no current version the write is refused with 412 naming the current ETag, before it runs.
 *   `If-None-Match: *` on a create or upsert is a 412 when the resource is already there.
 *   Without either header nothing changes (SPEC clients send none).
 * - Tags are compared ignoring a weak prefix (`W/`) and an encoding suffix a proxy may have added
 *   (`"...-gzip"`, `"...-br"`), since the version is the same whatever the encoding.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundRows } from '../db/orm-sql.js';
import { AppError } from '../errors.js';
import type { RouteDef } from './route.js';

/** Query parameters that make a URL a signed, expiring one: left out of the version. */
const SIGNED_URL = /^https?:\/\/[^?#\s]+\?[^#\s]*\b(X-Amz-Signature|X-Amz-Expires|Signature|Expires|sig|se|token)=/i;

function canonicalState(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(SIGNED_URL.test(value) ? value.slice(0, value.indexOf('?')) : value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalState).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalState(obj[k])}`)
    .join(',')}}`;
}

/** The ETag (a strong, quoted tag) of a resource's state as its read answers it. */
export const versionTag = (state: unknown): string => `"v-${createHash('sha256').update(canonicalState(state)).digest('base64url').slice(0, 27)}"`;

/** An entity tag without a weak prefix or an encoding suffix a proxy appended (`"abc-gzip"` -> `"abc"`). */
export function opaqueTag(tag: string): string {
  let t = tag.trim();
  if (t.startsWith('W/')) t = t.slice(2);
  if (t.startsWith('"') && t.endsWith('"') && t.length >= 2) t = t.slice(1, -1);
  t = t.replace(/[-;](gzip|br|deflate|zstd|identity)$/i, '');
  return t;
}

/** The tags of an If-Match / If-None-Match header, or '*'. */
export function tagList(header: string): string[] | '*' {
  if (header.trim() === '*') return '*';
  return (header.match(/(W\/)?"[^"]*"|[^,\s]+/g) ?? []).map(opaqueTag);
}

/** How a write finds the read of the resource it changes. */
export interface ResourceRead {
  get: RouteDef;
  /** Path parameters of the read: the write's own, or (an upsert on a collection) one taken from the body. */
  params: (writeParams: Record<string, string>, body: unknown) => Record<string, string> | null;
  /** The write may create the resource (an upsert or a create on the collection): If-None-Match applies. */
  creates: boolean;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isResourceRead = (r: RouteDef) => {
  const ok = r.responses[200];
  return r.method === 'get' && !r.paged && typeof ok === 'object' && !!ok.schema && ok.schema.type === 'object';
};

/**
 * The read of the resource a write changes: the GET on the same path (PUT, PATCH, DELETE of
 * `/api/webhooks/:webhookId`), the GET one action segment up (`POST /api/invoices/:invoiceId/void`),
 * or, for a write on a collection whose body names the item (`PUT /api/customers` with
 * `customerNumber`), the item's GET.
 */
export function resourceReadOf(def: RouteDef, routes: readonly RouteDef[]): ResourceRead | null {
  if (def.method === 'get') return null;
  const reads = routes.filter(isResourceRead);
  const same = reads.find((r) => r.path === def.path);
  if (same) return { get: same, params: (p) => p, creates: def.method === 'put' && !/:\w+$/.test(def.path) };
  const parent = def.path.replace(/\/[a-z][a-z-]*$/, '');
  const up = parent !== def.path && /:\w+$/.test(parent) ? reads.find((r) => r.path === parent) : undefined;
  if (up) return { get: up, params: (p) => p, creates: false };
  const item = reads.find((r) => new RegExp(`^${escape(def.path)}/:(\\w+)$`).test(r.path));
  if (item && (def.method === 'put' || def.method === 'post')) {
    const name = item.path.slice(item.path.lastIndexOf(':') + 1);
    const fields = def.body ? Object.keys((def.body.describe() as { fields?: Record<string, unknown> }).fields ?? {}) : [];
    return {
      get: item,
      creates: true,
      params: (p, body) => {
        // The item's key in the body names which resource the write addresses; without it the write creates a new one.
        if (!fields.includes(name)) return null;
        const v = (body as Record<string, unknown> | null)?.[name];
        return typeof v === 'string' && v ? { ...p, [name]: v } : null;
      },
    };
  }
  return null;
}

/**
 * Checks If-Match and If-None-Match of a write against the resource's current version, read by
 * `current` (the resource's state, or null when it does not exist). Throws a 412 naming the
 * current ETag when they do not hold.
 */
export async function checkPreconditions(headers: { ifMatch: string; ifNoneMatch: string }, creates: boolean, current: () => Promise<unknown>): Promise<void> {
  const ifMatch = headers.ifMatch ? tagList(headers.ifMatch) : null;
  const ifNoneMatch = headers.ifNoneMatch && creates ? tagList(headers.ifNoneMatch) : null;
  if (!ifMatch && !ifNoneMatch) return;
  const state = await current();
  const tag = state === null ? null : versionTag(state);
  if (ifMatch) {
    if (tag === null) throw new AppError('precondition_failed', 'If-Match names a version, but the resource does not exist.');
    if (ifMatch !== '*' && !ifMatch.includes(opaqueTag(tag)))
      throw new AppError('precondition_failed', `If-Match does not name the current version ${tag}: the resource changed since it was read. Read it again and re-apply the change.`, undefined, { ETag: tag });
  }
  if (ifNoneMatch && tag !== null && (ifNoneMatch === '*' || ifNoneMatch.includes(opaqueTag(tag))))
    throw new AppError('precondition_failed', `If-None-Match: the resource already exists (current version ${tag}).`, undefined, { ETag: tag });
}

/**
 * Runs a conditional write (its If-Match / If-None-Match check and the write itself) holding a
 * transaction-scoped advisory lock on the resource, taken on a connection of its own: a second
 * conditional write of the same resource waits, then reads the version the first one wrote and
 * answers 412. Writes without a precondition take no lock (they asked for none).
 */
export async function withResourceLock<T>(root: EntityManager, resourceKey: string, write: () => Promise<T>): Promise<T> {
  return root.fork().transactional(async (tx) => {
    await boundRows(tx, 'select pg_advisory_xact_lock(hashtextextended($1, 0))', [resourceKey]);
    return write();
  });
}
