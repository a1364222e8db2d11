import { AsyncLocalStorage } from 'node:async_hooks';
import { defineConfig, MikroORM, RequestContext, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from '../entities/index.js';
import { migrationsList } from '../migrations/index.js';

/** Bounds of the API's and workers' pools (issue 21); scripts and migrations run without them. */
export interface DbTimeouts {
  /** Waiting for a pooled connection, including opening a new one (pg-pool connectionTimeoutMillis). */
  acquireMs: number;
  /** One statement: server-side statement_timeout, and a client-side read timeout slightly longer (a hung server answers nothing). */
  statementMs: number;
}

/**
 * A request's EntityManager, forked from the global one on its first use: the global EntityManager
 * resolves to it inside the request (the ORM's `context` option below), and a request that only
 * reads through bound SQL statements (a product, a customer, a cart) forks none. A fork is a unit of
 * work, an identity map and their helpers: a few percent of the API's CPU on the one-statement reads.
 */
class RequestEntityManager {
  #em: EntityManager | undefined;
  #forking = false;
  constructor(private readonly root: EntityManager) {}
  /** The fork; undefined while it is being made (the fork's construction resolves its own context: it is then itself). */
  get(): EntityManager | undefined {
    if (this.#em || this.#forking) return this.#em;
    this.#forking = true;
    try {
      // disableContextResolution: fork the global EntityManager itself, as RequestContext.create does.
      this.#em = this.root.fork({ useContext: true, disableContextResolution: true });
    } finally {
      this.#forking = false;
    }
    return this.#em;
  }
}
const requestEntityManagers = new AsyncLocalStorage<RequestEntityManager>();

/** Runs `next` (a request) with its own EntityManager, forked from `root` when it is first used. */
export const withRequestEntityManager = <T>(root: EntityManager, next: () => T): T => requestEntityManagers.run(new RequestEntityManager(root), next);

/** ORM configuration for a database URL. Migrations are listed explicitly (src/migrations/index.ts). */
export function ormConfig(databaseUrl: string, poolMax = 10, timeouts?: DbTimeouts) {
  return defineConfig({
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

export async function openOrm(databaseUrl: string, poolMax?: number, timeouts?: DbTimeouts): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, poolMax, timeouts));
}
