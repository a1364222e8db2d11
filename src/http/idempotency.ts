/**
 * Idempotency-Key support for routes that create or charge (DESIGN "Conventions"): the
 * first response (2xx) for an (organization, caller, route, key) is stored and replayed when the
 * same key comes with the same body; another body is a 409; a request still running with
 * that key is a 409 too, unless its claim is older than the lease: the request holding it died
 * without answering (process killed, database restarted), and the next request takes the claim over.
 * Failed requests are not stored, so the client can retry. The caller
 * (user, client or API key) is part of the scope: another caller's key is never replayed.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, isUniqueViolation } from '../errors.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(',')}}`;
}

export const requestHash = (body: unknown): string => createHash('sha256').update(canonical(body ?? null)).digest('hex');

/** Whose key it is: the organization, the caller (`user:<id>`, `client:<id>`, `apikey:<id>`) and `METHOD /path`. */
export interface KeyScope {
  organizationId: string;
  caller: string;
  route: string;
}

export interface Replay {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * Claims the key; returns a stored response to replay, or null when this request should run. A claim
 * without a response older than `leaseMs` is taken over, since no live request runs that long (one
 * taker wins: the update moves the claim's time to now, and a concurrent update re-checks its
 * condition against that). The routes behind keys are idempotent by their own keys too (checkout
 * workflow id, provider idempotency keys), so even a holder still alive past the lease charges
 * nothing twice.
 */
export async function claimKey(em: EntityManager, scope: KeyScope, key: string, hash: string, leaseMs: number): Promise<Replay | null> {
  const { organizationId, caller, route } = scope;
  if (key.length > 200) throw AppError.field('Idempotency-Key', 'Idempotency-Key must be at most 200 characters.');
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f]/.test(key)) throw AppError.field('Idempotency-Key', 'Idempotency-Key must not contain control characters.');
  const conn = em.getConnection();
  try {
    await conn.execute(
      'insert into idempotency_record (id, organization_id, caller, route, key, request_hash, created_at) values (gen_random_uuid(), ?, ?, ?, ?, ?, now())',
      [organizationId, caller, route, key, hash],
    );
    return null;
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
  }
  const rows = await conn.execute<{ request_hash: string; response_status: number | null; response_body: unknown; response_headers: Record<string, string> | null }[]>(
    'select request_hash, response_status, response_body, response_headers from idempotency_record where organization_id = ? and caller = ? and route = ? and key = ?',
    [organizationId, caller, route, key],
  );
  const row = rows[0];
  if (!row) return claimKey(em, scope, key, hash, leaseMs);
  if (row.request_hash !== hash) throw AppError.conflict('This Idempotency-Key was already used with a different request body.');
  if (row.response_status === null) {
    const taken = await conn.execute<{ id: string }[]>(
      `update idempotency_record set created_at = now()
        where organization_id = ? and caller = ? and route = ? and key = ? and response_status is null and created_at < now() - make_interval(secs => ?)
        returning id`,
      [organizationId, caller, route, key, leaseMs / 1000],
    );
    if (taken.length) return null;
    throw AppError.conflict('A request with this Idempotency-Key is still being processed; retry later.');
  }
  return { status: row.response_status, body: row.response_body, headers: row.response_headers ?? {} };
}

export async function completeKey(em: EntityManager, scope: KeyScope, key: string, status: number, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  await em
    .getConnection()
    .execute(
      'update idempotency_record set response_status = ?, response_body = ?, response_headers = ?, completed_at = now() where organization_id = ? and caller = ? and route = ? and key = ?',
      [status, JSON.stringify(body ?? null), Object.keys(headers).length ? JSON.stringify(headers) : null, scope.organizationId, scope.caller, scope.route, key],
    );
}

export async function releaseKey(em: EntityManager, scope: KeyScope, key: string): Promise<void> {
  await em
    .getConnection()
    .execute('delete from idempotency_record where organization_id = ? and caller = ? and route = ? and key = ? and response_status is null', [
      scope.organizationId,
      scope.caller,
      scope.route,
      key,
    ]);
}
