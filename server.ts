/** API process: builds dependencies, applies nothing but configuration, listens. */
import './src/compat/node20.js';
import { createApp } from './src/app.js';
import { createInfrastructure } from './src/composition.js';
import { log } from './src/logger.js';
import { ensureWebhookDispatcher } from './src/services/webhooks/dispatcher.js';

async function main(): Promise<void> {
  const services = await createInfrastructure('api');
  const { config, temporal } = services;
  await ensureWebhookDispatcher(temporal, config);
  const app = createApp(services);
  const server = app.listen(config.port, () => log.info('api listening', { port: config.port, url: config.publicBaseUrl }));
  const shutdown = () => {
    log.info('api stopping');
    server.close(() => {
      void services.close().finally(() => process.exit(0));
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
