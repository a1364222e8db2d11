/**
 * The pg connections of a process besides MikroORM's own pool (src/db/orm.ts): one pool per
 * purpose and database URL, created on first use (a cache, not a registry), and the LISTEN
 * connection of the read cache. Nothing outside src/db creates a pg pool or client (ESLint).
 *
 * - `readPool`: the hot one-statement reads (authentication, the catalog, single resources, rate
 *   limits) as named prepared statements (src/db/sql.ts `readRows`), with the ORM pool's bounds.
 * - `probePool`: a replica's freshness check (src/db/replica.ts), with short bounds.
 * - `batchPool`: set-based writes in one pg transaction (src/db/sql.ts `inTransaction`): the API's
 *   product upsert and bulk endpoints, the worker's import chunks. No statement timeout: a chunk
 *   of an import may run longer than a request's statement.
 */
import pg from 'pg';

/** An idle or checked-out client losing its connection must not end the process; the next checkout reconnects. */
function survivingDrops(pool: pg.Pool): pg.Pool {
  // An idle client losing its connection (PostgreSQL restarted) is emitted on the pool; unheard, that
  // error ends the process (the API died on every database restart).
  pool.on('error', () => undefined);
  // A checked-out client is not the pool's to listen to: its own listener keeps a drop between two
  // queries from ending the process too (the query in flight still fails, and the caller sees it).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

type Purpose = 'read' | 'batch' | 'probe';
const pools = new Map<string, pg.Pool>();
const cached = (purpose: Purpose, databaseUrl: string, create: () => pg.Pool): pg.Pool => {
  const key = `${purpose} ${databaseUrl}`;
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = survivingDrops(create())));
  return pool;
};

const READ_POOL_MAX = Number(process.env.READ_POOL_MAX ?? 8);

/** The read pool of a database (prepared one-statement reads). */
export function readPool(databaseUrl: string): pg.Pool {
  return cached('read', databaseUrl, () => {
    // The same bounds as the ORM's pool (issue 21, src/db/orm.ts): a down or hung server fails the read, it never hangs.
    const statementMs = Number(process.env.DB_STATEMENT_TIMEOUT_MS || 15_000);
    return new pg.Pool({
      connectionString: databaseUrl,
      max: READ_POOL_MAX,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: Number(process.env.DB_ACQUIRE_TIMEOUT_MS || 5_000),
      statement_timeout: statementMs,
      query_timeout: statementMs + 1_000,
      keepAlive: true,
    });
  });
}

/**
 * A small pool for a replica's freshness check (src/db/replica.ts): a second to connect and a second
 * per statement, so a replica that went away costs a request at most that before reads fall back to the primary.
 */
export function probePool(databaseUrl: string): pg.Pool {
  return cached('probe', databaseUrl, () => new pg.Pool({ connectionString: databaseUrl, max: 4, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 1_000, statement_timeout: 1_000, query_timeout: 1_500, keepAlive: true }));
}

/**
 * The batch pool of a database (set-based writes, one transaction each). `max` applies when the
 * pool is created: 4 for the API's in-process writes; the worker sizes it by its import slots.
 */
export function batchPool(databaseUrl: string, max = 4): pg.Pool {
  return cached('batch', databaseUrl, () => new pg.Pool({ connectionString: databaseUrl, max }));
}

/** Closes every pool of the process (at shutdown). */
export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.end().catch(() => undefined)));
}

/** A dedicated connection for LISTEN (not pooled: it holds its session); the caller connects and ends it. */
export const listenClient = (databaseUrl: string, applicationName: string): pg.Client =>
  new pg.Client({ connectionString: databaseUrl, keepAlive: true, application_name: applicationName });
