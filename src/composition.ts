/**
 * The composition root: `createInfrastructure(role)` builds, once per process and explicitly, everything the
 * API (server.ts) and the worker (worker.ts) need: configuration, logger, ORM, object storage, the
 * Temporal client, and the read cache (credential versions, live claims, API keys, price tiers;
 * LISTEN/NOTIFY-invalidated) that src/http/auth.ts calls (src/services/auth/cache.ts, injected so
 * http does not import services). Nothing is
 * registered by importing a module; routes, services and activities receive these dependencies as
 * arguments.
 */
import { loadConfig, taskQueue } from './config.js';
import { openOrm } from './db/orm.js';
import { openReplicaReads } from './db/replica.js';
import type { Deps } from './deps.js';
import { createMailer, type Mailer } from './adapters/mail.js';
import { createStorage } from './adapters/storage.js';
import { attachStartOutbox, connectTemporal } from './adapters/temporal.js';
import { keepStart } from './services/workflow-outbox.js';
import { ReadCache } from './services/auth/cache.js';
import { closePools } from './db/pools.js';
import { configureLogger } from './logger.js';
import { setPasswordHashCost } from './domain/auth/secrets.js';
import { startProcessMetrics } from './metrics.js';
import { initTracing } from './tracing.js';
import { collectOutboxMetrics, collectPoolMetrics, collectStatementMetrics, collectTaskQueueMetrics } from './services/ops/collectors.js';

export interface Infrastructure extends Deps {
  /** Outgoing mail (pooled SMTP connections, opened on the first e-mail: the API sends none). */
  mailer: Mailer;
  /** Closes the database pool, the Temporal connection and the mail connections. */
  close(): Promise<void>;
}

/** Connections per process (MikroORM's pool); db_pool_connections{state="max"}. */
const DB_POOL_MAX = 10;

export async function createInfrastructure(role: 'api' | 'worker', env: NodeJS.ProcessEnv = process.env): Promise<Infrastructure> {
  const config = loadConfig(env, env.ENVIRONMENT === 'sandbox' ? `sandbox-${role}` : role);
  configureLogger({ level: config.logLevel, service: config.serviceName });
  setPasswordHashCost(config.passwordHashCost);
  initTracing(config.serviceName, env);
  startProcessMetrics(config.serviceName);
  const orm = await openOrm(config.databaseUrl, DB_POOL_MAX, { acquireMs: config.timeouts.dbAcquireMs, statementMs: config.timeouts.dbStatementMs });
  collectPoolMetrics(orm, DB_POOL_MAX);
  const replicaReads =
    role === 'api' && config.replica
      ? await openReplicaReads(config.databaseUrl, config.replica.url, { ...config.replica, poolMax: DB_POOL_MAX, timeouts: { acquireMs: config.timeouts.dbAcquireMs, statementMs: config.timeouts.dbStatementMs } })
      : undefined;
  if (role === 'api') collectStatementMetrics(orm);
  const temporal = await connectTemporal(config);
  attachStartOutbox(temporal, keepStart(orm));
  // Backlogs (issue 43 item 4): the API reports the deployment's queues and outboxes.
  if (role === 'api') {
    collectOutboxMetrics(orm);
    collectTaskQueueMetrics(temporal, config, (['commerce', 'media', 'imports', 'mail'] as const).map((q) => taskQueue(config, q)));
  }
  const storage = createStorage(config);
  await storage.ensureBucket();
  // Both listen for invalidations: the API for what authentication and the catalog read, the worker for provider settings.
  const readCache = new ReadCache(config.databaseUrl, config.credentialCacheSeconds * 1000, true);
  await readCache.start();
  const mailer = createMailer(config);
  return {
    config,
    orm,
    temporal,
    storage,
    credentialVersions: readCache,
    readCache,
    mailer,
    ...(replicaReads ? { replicaReads } : {}),
    async close() {
      mailer.close();
      await readCache.stop();
      await Promise.all([orm.close(), replicaReads?.close(), temporal.connection.close(), closePools()]);
    },
  };
}
