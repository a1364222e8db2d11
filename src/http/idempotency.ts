/**
 * Idempotency-Key on every state-changing operation (POST, PUT, PATCH of an authenticated
 * caller), in one place: src/app.ts runs every such request with the header through
 * `withIdempotencyKey` (DESIGN "Conventions", docs/security.md "Retries, versions and media
 * types"). The first 2xx answer for an (organization, caller, operation, key) is stored in
 * `idempotency_record` and replayed, with `Idempotent-Replayed: true`, when the same key comes with
 * the same request (body, uploaded files' bytes and query), also after a restart; another request
 * with that key is a 409; a request still running with it is a 409 with Retry-After, unless its
 * claim is older than the lease: the request holding it died without answering (process killed,
 * database restarted), and the next request takes the claim over. Failed requests are not stored,
 * so the client can retry. The caller (user, client or API key) is part of the scope: another
 * caller's key is never replayed. An answer that carries a secret or a token (RouteDef
 * `answersSecret`) is never stored: its record keeps only the request's hash, and a repeated key
 * is a 409 (the secret cannot be shown twice; a new key asks for a new one).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundRows } from '../db/orm-sql.js';
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

/** Seconds a client is told to wait before repeating a request whose key is still in flight. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 2;

/** What an uploaded file (formidable) contributes to a request's hash: its name, type and bytes, not its temporary path. */
interface UploadedFile {
  filepath: string;
  originalFilename?: string | null;
  mimetype?: string | null;
}
const isUpload = (v: unknown): v is UploadedFile => !!v && typeof v === 'object' && typeof (v as UploadedFile).filepath === 'string';

async function fileDigest(f: UploadedFile): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(f.filepath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The hash that says two requests are the same: the parsed body as sent (before validation, so a
 * retry is recognised whatever the body's field order or spacing), each uploaded file by name,
 * type and content, and the query string when there is one.
 */
export async function requestFingerprint(body: unknown, files: Record<string, unknown>, querystring: string): Promise<string> {
  const uploads: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(files))
    if (isUpload(f)) uploads[name] = { name: f.originalFilename ?? null, type: f.mimetype ?? null, sha256: await fileDigest(f) };
  const parts: Record<string, unknown> = { body: body ?? null };
  if (Object.keys(uploads).length) parts.files = uploads;
  if (querystring) parts.query = querystring;
  return requestHash(Object.keys(parts).length === 1 ? parts.body : parts);
}

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

/** An answer as the HTTP layer sends it (src/http/route.ts Reply): only its JSON parts are stored. */
interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: unknown;
  redirect?: string;
}

/**
 * Runs `run` under the key: the stored answer when there is one (`replayed`), else the answer
 * of `run`, stored when it is a 2xx JSON answer (only its status, body and Location), or only
 * marked as given when `withhold` says it carries a secret. A failed `run` frees the key.
 */
export async function withIdempotencyKey<A extends Answer>(
  em: EntityManager,
  opts: { scope: KeyScope; key: string; hash: string; leaseMs: number; withhold: boolean },
  run: () => Promise<A>,
): Promise<{ answer: A | Replay; replayed: boolean }> {
  const { scope, key } = opts;
  const replay = await claimKey(em, scope, key, opts.hash, opts.leaseMs);
  if (replay) return { answer: replay, replayed: true };
  let answer: A;
  try {
    answer = await run();
  } catch (e) {
    await releaseKey(em, scope, key);
    throw e;
  }
  if (answer.status >= 200 && answer.status < 300 && !answer.raw && !answer.redirect) {
    if (opts.withhold) await completeKey(em, scope, key, answer.status, null, {}, true);
    else await completeKey(em, scope, key, answer.status, answer.body, answer.headers?.Location ? { Location: answer.headers.Location } : {});
  } else await releaseKey(em, scope, key);
  return { answer, replayed: false };
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
  try {
    await boundRows(
      em,
      'insert into idempotency_record (id, organization_id, caller, route, key, request_hash, created_at) values (gen_random_uuid(), $1, $2, $3, $4, $5, now())',
      [organizationId, caller, route, key, hash],
    );
    return null;
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
  }
  const rows = await boundRows<{ request_hash: string; response_status: number | null; response_body: unknown; response_headers: Record<string, string> | null; withheld: boolean }>(
    em,
    'select request_hash, response_status, response_body, response_headers, withheld from idempotency_record where organization_id = $1 and caller = $2 and route = $3 and key = $4',
    [organizationId, caller, route, key],
  );
  const row = rows[0];
  if (!row) return claimKey(em, scope, key, hash, leaseMs);
  if (row.request_hash !== hash)
    throw AppError.conflict('This Idempotency-Key was already used with a different request (body, files or query); use a new key for a new request.');
  if (row.response_status === null) {
    const taken = await boundRows<{ id: string }>(
      em,
      `update idempotency_record set created_at = now()
        where organization_id = $1 and caller = $2 and route = $3 and key = $4 and response_status is null and created_at < now() - make_interval(secs => $5)
        returning id`,
      [organizationId, caller, route, key, leaseMs / 1000],
    );
    if (taken.length) return null;
    throw new AppError('conflict', 'A request with this Idempotency-Key is still being processed; repeat it after Retry-After seconds.', undefined, {
      'Retry-After': String(IN_FLIGHT_RETRY_AFTER_SECONDS),
    });
  }
  if (row.withheld)
    throw AppError.conflict(
      'This Idempotency-Key was already used; the answer carried a secret or token, which is never stored or shown twice. Send a new key to ask again.',
    );
  return { status: row.response_status, body: row.response_body, headers: row.response_headers ?? {} };
}

export async function completeKey(
  em: EntityManager,
  scope: KeyScope,
  key: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  withheld = false,
): Promise<void> {
  await boundRows(
    em,
    'update idempotency_record set response_status = $1, response_body = $2, response_headers = $3, withheld = $4, completed_at = now() where organization_id = $5 and caller = $6 and route = $7 and key = $8',
    [
      status,
      withheld ? null : JSON.stringify(body ?? null),
      Object.keys(headers).length ? JSON.stringify(headers) : null,
      withheld,
      scope.organizationId,
      scope.caller,
      scope.route,
      key,
    ],
  );
}

export async function releaseKey(em: EntityManager, scope: KeyScope, key: string): Promise<void> {
  await boundRows(em, 'delete from idempotency_record where organization_id = $1 and caller = $2 and route = $3 and key = $4 and response_status is null', [
    scope.organizationId,
    scope.caller,
    scope.route,
    key,
  ]);
}
