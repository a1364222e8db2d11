/**
 * Every statement written as SQL text goes through src/db, with PostgreSQL's own `$1`, `$2`, ...
 * placeholders and the values bound at the wire (never interpolated into the text). Three runners,
 * by where the statement must run:
 *
 * - `boundRows(em, ...)` / `boundSql(em)` (src/db/orm-sql.ts, apart because it loads the ESM-only
 *   kysely, which the unit tests' CommonJS cannot): on the ORM's connection, so inside
 *   `em.transactional()` in that transaction (its locks and its snapshot), outside it on the ORM's pool.
 * - `readRows(url, ...)` / `rowsOf(em, ...)`: one read as a named prepared statement on the read
 *   pool (src/db/pools.ts), for the hot paths (authentication, the catalog, single resources).
 * - `inTransaction(pool, fn)`: a pg transaction on one connection of a pool (the batch pool:
 *   set-based writes of the bulk endpoints, the product upsert, import chunks), `fn` getting an `Sql`.
 *
 * Why not `em.execute`: MikroORM 7.2.1 interpolates every value into the SQL text before
 * executing it (`AbstractSqlConnection.execute` runs `platform.formatQuery(sql, params)`, which
 * escapes strings one character at a time, and sends the result with an empty bind array;
 * mikro-orm/mikro-orm#8001): a 3 MB payload costs seconds of CPU and garbage, and each statement
 * has a unique text that PostgreSQL parses and plans afresh (docs/decisions.md "Read path").
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { readPool } from './pools.js';
import { requestReadUrl } from './request-context.js';

/** One statement with `$n` placeholders and its rows: the handle every SQL-text caller takes. */
export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

const names = new Map<string, string>();
/** A stable prepared-statement name per SQL text. */
function statementName(text: string): string {
  let n = names.get(text);
  if (!n) {
    n = `r_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`;
    if (names.size < 10_000) names.set(text, n);
  }
  return n;
}

/** The database URL of an EntityManager (its ORM's `clientUrl`). */
export const databaseUrlOf = (em: EntityManager): string => em.config.get('clientUrl');

/**
 * Runs one read statement with bound parameters as a named prepared statement on the read pool,
 * so PostgreSQL parses it once per connection and can reuse its plan. Use only with SQL texts that
 * are constants (or chosen from a small fixed set): each distinct text is prepared once per pooled
 * connection.
 */
export async function readRows<T>(databaseUrl: string, text: string, params: unknown[] = [], prepare = true): Promise<T[]> {
  const res = await readPool(databaseUrl).query(prepare ? { name: statementName(text), text, values: params } : { text, values: [...params] });
  return res.rows as T[];
}

/** `readRows` on the database of the request's EntityManager. */
export const rowsOf = <T>(em: EntityManager, text: string, params: unknown[] = [], prepare = true): Promise<T[]> => readRows<T>(databaseUrlOf(em), text, params, prepare);

/**
 * `rowsOf` for a read a route marked `reads: 'replica'` may serve from the replica: on the replica
 * when the request was sent there (src/db/replica.ts), else on the primary. Never a write.
 */
export const replicaRowsOf = <T>(em: EntityManager, text: string, params: unknown[] = [], prepare = true): Promise<T[]> =>
  readRows<T>(requestReadUrl() ?? databaseUrlOf(em), text, params, prepare);

/**
 * Turns the `?` placeholders of SQL compiled by MikroORM's QueryBuilder (`qb.toQuery()`) into
 * PostgreSQL's `$n`, numbering from `first`, so the builder's where clause can be run with bound
 * parameters. `?` inside quoted identifiers or string literals is left alone.
 */
export function dollarParams(sql: string, first = 1): string {
  let n = first;
  let out = '';
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else out += ch === '?' ? `$${n++}` : ch;
  }
  return out;
}

/** Runs `fn` in one transaction on one connection of `pool`; rolls back on any error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const sql: Sql = async <R>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as R[];
  try {
    await client.query('begin');
    const out = await fn(sql);
    await client.query('commit');
    return out;
  } catch (e) {
    await client.query('rollback').catch(() => undefined);
    throw e;
  } finally {
    client.release();
  }
}

/** A relay queue (a table keyed by organization_id and one id column, due by next_attempt_at). */
export interface RelayQueue {
  table: string;
  /** The id column after organization_id in the primary key. */
  id: string;
  /** Seconds added per attempt to the back-off (capped at 60). */
  backoffSeconds: number;
  limit: number;
  /** Columns answered besides organization_id and the id column. */
  returning?: readonly string[];
  /** Narrows the claim to one organization, bound as $1. */
  oneOrganization?: boolean;
}

/**
 * The statement one relay pass claims its due rows with: up to `limit` rows whose next attempt is
 * due, oldest first, skip locked (API processes share the work), their attempt counted and their
 * next attempt pushed back. The claimed keys are matched through `= any(array(...))` on both key
 * columns, so the update reaches its rows by the primary key with organization_id in the index
 * condition whatever the table's statistics say (a `(org, id) in (subquery)` semi-join may be
 * planned as a scan of the whole key index: docs/scaling.md "Statements carry organization_id").
 */
export function claimDueSql(q: RelayQueue): string {
  const cols = ['organization_id', q.id, ...(q.returning ?? [])].map((c) => `o.${c}`).join(', ');
  return `with due as (
      select organization_id, ${q.id} from ${q.table}
       where next_attempt_at <= now()${q.oneOrganization ? ' and organization_id = $1' : ''}
       order by next_attempt_at limit ${q.limit} for update skip locked)
    update ${q.table} o set attempts = o.attempts + 1, next_attempt_at = now() + make_interval(secs => least(60, ${q.backoffSeconds} * (o.attempts + 1)))
     where o.organization_id = any(array(select organization_id from due)) and o.${q.id} = any(array(select ${q.id} from due))
       and (o.organization_id, o.${q.id}) in (select organization_id, ${q.id} from due)
    returning ${cols}`;
}
