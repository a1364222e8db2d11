/**
 * The composition root: `createInfrastructure(role)` builds, once per process and explicitly, everything the
 * API (server.ts) and the worker (worker.ts) need: configuration, logger, ORM, object storage, the
 * Temporal client, the credential-version cache and the live-claims loader that src/http/auth.ts
 * calls (src/services/auth/claims.ts, injected so http does not import services). Nothing is
 * registered by importing a module; routes, services and activities receive these dependencies as
 * arguments.
 */
import { loadConfig } from './config.js';
import { openOrm } from './db.js';
import type { Deps } from './deps.js';
import { CredentialVersions } from './http/auth.js';
import { createStorage } from './adapters/storage.js';
import { connectTemporal } from './adapters/temporal.js';
import { liveClaims } from './services/auth/claims.js';
import { configureLogger } from './logger.js';

export interface Infrastructure extends Deps {
  /** Closes the database pool and the Temporal connection. */
  close(): Promise<void>;
}

export async function createInfrastructure(role: 'api' | 'worker', env: NodeJS.ProcessEnv = process.env): Promise<Infrastructure> {
  const config = loadConfig(env, env.ENVIRONMENT === 'sandbox' ? `sandbox-${role}` : role);
  configureLogger({ level: config.logLevel, service: config.serviceName });
  const orm = await openOrm(config.databaseUrl);
  const temporal = await connectTemporal(config);
  const storage = createStorage(config);
  await storage.ensureBucket();
  const credentialVersions = new CredentialVersions(config.credentialCacheSeconds * 1000);
  return {
    config,
    orm,
    temporal,
    storage,
    credentialVersions,
    loadClaims: liveClaims,
    async close() {
      await Promise.all([orm.close(), temporal.connection.close()]);
    },
  };
}
