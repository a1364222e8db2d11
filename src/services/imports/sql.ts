/** A small parameterized-SQL handle over one pg connection, for the set-based chunk appliers. */
import pg from 'pg';

export type Sql = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

export function createImportPool(databaseUrl: string, max: number): pg.Pool {
  return new pg.Pool({ connectionString: databaseUrl, max });
}

/** Runs `fn` in one transaction on one connection; rolls back on any error. */
export async function inTransaction<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const sql: Sql = async <R,>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as R[];
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
