/** API process: builds dependencies, applies nothing but configuration, listens. */
import './src/compat/node20.js';
import { createApp } from './src/app.js';
import { loadConfig } from './src/config.js';
import { openOrm } from './src/db.js';
import { CredentialVersions } from './src/http/auth.js';
import { configureLogger, log } from './src/logger.js';
import { createStorage } from './src/integrations/storage.js';
import { connectTemporal } from './src/integrations/temporal.js';
import { ensureWebhookDispatcher } from './src/services/webhooks/dispatcher.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env, process.env.ENVIRONMENT === 'sandbox' ? 'sandbox-api' : 'api');
  configureLogger({ level: config.logLevel, service: config.serviceName });
  const orm = await openOrm(config.databaseUrl);
  const temporal = await connectTemporal(config);
  const storage = createStorage(config);
  await storage.ensureBucket();
  await ensureWebhookDispatcher(temporal, config);
  const app = createApp({ config, orm, temporal, storage, credentialVersions: new CredentialVersions(config.credentialCacheSeconds * 1000) });
  const server = app.listen(config.port, () => log.info('api listening', { port: config.port, url: config.publicBaseUrl }));
  const shutdown = () => {
    log.info('api stopping');
    server.close(() => {
      void Promise.all([orm.close(), temporal.connection.close()]).finally(() => process.exit(0));
    });
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((e) => {
  log.error('api failed to start', { error: String(e), stack: (e as Error).stack });
  process.exit(1);
});
