import { defineConfig, MikroORM, RequestContext } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from '../entities/index.js';
import { migrationsList } from '../migrations/index.js';
import { requestEntityManagers } from './request-context.js';

export { forkRequestFrom, requestReadUrl, withRequestEntityManager } from './request-context.js';

/** Bounds of the API's and workers' pools (issue 21); scripts and migrations run without them. */
export interface DbTimeouts {
  /** Waiting for a pooled connection, including opening a new one (pg-pool connectionTimeoutMillis). */
  acquireMs: number;
  /** One statement: server-side statement_timeout, and a client-side read timeout slightly longer (a hung server answers nothing). */
  statementMs: number;
}

/** ORM configuration for a database URL. Migrations are listed explicitly (src/migrations/index.ts). */
export function ormConfig(databaseUrl: string, poolMax = 10, timeouts?: DbTimeouts, read?: { replicaUrl: string }) {
  return defineConfig({
    // Reads go to the primary unless this ORM is the one of replica reads (src/db/replica.ts).
    ...(read ? { replicas: [{ name: 'replica', clientUrl: read.replicaUrl }], preferReadReplicas: true } : { preferReadReplicas: false }),
    ...(timeouts
      ? {
          driverOptions: {
            connectionTimeoutMillis: timeouts.acquireMs,
            statement_timeout: timeouts.statementMs,
            query_timeout: timeouts.statementMs + 1_000,
            idle_in_transaction_session_timeout: Math.max(60_000, timeouts.statementMs * 2),
            keepAlive: true,
          },
        }
      : {}),
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, path: 'src/migrations', pathTs: 'src/migrations', snapshot: false, emit: 'ts', silent: true },
    pool: { min: 0, max: poolMax },
    // Triggers and functions are hand-written in migrations (analytics rollups, the webhook outbox): never diffed or dropped.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
    debug: false,
    allowGlobalContext: false,
    // The global EntityManager resolves to the request's (withRequestEntityManager), else to MikroORM's RequestContext.
    context: (name: string) => requestEntityManagers.getStore()?.get() ?? RequestContext.getEntityManager(name),
  });
}

export async function openOrm(databaseUrl: string, poolMax?: number, timeouts?: DbTimeouts, read?: { replicaUrl: string }): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax, timeouts, read));
}
