/** A small parameterized-SQL handle over one pg connection, for the set-based chunk appliers. */
import pg from 'pg';

export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export function createImportPool(databaseUrl: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max });
  // An idle client losing its connection (PostgreSQL restarted) is emitted on the pool; unheard, that
  // error ends the process (the API died on every database restart). The next checkout reconnects.
  pool.on('error', () => undefined);
  // A checked-out client is not the pool's to listen to: its own listener keeps a drop between two
  // queries from ending the process too (the query in flight still fails, and the caller sees it).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs `fn` in one transaction on one connection; rolls back on any error. */
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

// One small pool per database for the API process's in-process set-based writes (the product
// upsert, the bulk endpoints), created on first use: a cache, not a registry.
const apiPools = new Map<string, pg.Pool>();
export function apiPool(databaseUrl: string): pg.Pool {
  let pool = apiPools.get(databaseUrl);
  if (!pool) apiPools.set(databaseUrl, (pool = createImportPool(databaseUrl, 4)));
  return pool;
}
