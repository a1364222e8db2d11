/**
 * Reads with bound parameters. MikroORM 7.2.1 interpolates every value into the SQL text before
 * executing it (`AbstractSqlConnection.execute` runs `platform.formatQuery(sql, params)` and sends
 * the result with an empty bind array; mikro-orm/mikro-orm#8001), so each statement has a unique
 * text and PostgreSQL parses and plans it afresh. The hot read paths (authentication, the catalog,
 * single resources) go through here instead: `$1`-style parameters bound at the wire, and a named
 * prepared statement per text on each pooled connection, so PostgreSQL parses a statement once per
 * connection and can reuse its plan (docs/decisions.md "Read path").
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';

// One pool per database URL for the process, created on first use: a cache, not a registry.
const pools = new Map<string, pg.Pool>();
const POOL_MAX = Number(process.env.READ_POOL_MAX ?? 8);

export function readPool(databaseUrl: string): pg.Pool {
  let pool = pools.get(databaseUrl);
  if (!pool) {
    // The same bounds as the ORM's pool (issue 21, src/db.ts): a down or hung server fails the read, it never hangs.
    const statementMs = Number(process.env.DB_STATEMENT_TIMEOUT_MS || 15_000);
    pool = new pg.Pool({
      connectionString: databaseUrl,
      max: POOL_MAX,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: Number(process.env.DB_ACQUIRE_TIMEOUT_MS || 5_000),
      statement_timeout: statementMs,
      query_timeout: statementMs + 1_000,
      keepAlive: true,
    });
    // An idle client losing its connection must not crash the process; the next checkout reconnects.
    pool.on('error', () => undefined);
    // Likewise a checked-out client (between two queries) losing its connection.
    pool.on('connect', (client) => client.on('error', () => undefined));
    pools.set(databaseUrl, pool);
  }
  return pool;
}

/** Closes every read pool of the process (at shutdown). */
export async function closeReadPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => undefined)));
}

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
 * Runs one read statement with bound parameters as a named prepared statement. Use only with SQL
 * texts that are constants (or chosen from a small fixed set): each distinct text is prepared
 * once per pooled connection.
 */
export async function readRows<T>(databaseUrl: string, text: string, params: unknown[] = [], prepare = true): Promise<T[]> {
  const res = await readPool(databaseUrl).query(prepare ? { name: statementName(text), text, values: params } : { text, values: [...params] });
  return res.rows as T[];
}

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

/** `readRows` on the database of the request's EntityManager. */
export const rowsOf = <T>(em: EntityManager, text: string, params: unknown[] = [], prepare = true): Promise<T[]> => readRows<T>(databaseUrlOf(em), text, params, prepare);
