/** Worker process: one Temporal worker per task queue (commerce, media, imports), sharing one workflow bundle. */
import './src/compat/node20.js';
import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { createActivities } from './src/activities/index.js';
import { loadConfig, taskQueue } from './src/config.js';
import { openOrm } from './src/db.js';
import { configureLogger, log } from './src/logger.js';
import { createStorage } from './src/integrations/storage.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env, process.env.ENVIRONMENT === 'sandbox' ? 'sandbox-worker' : 'worker');
  configureLogger({ level: config.logLevel, service: config.serviceName });
  const orm = await openOrm(config.databaseUrl);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./src/workflows/index.js', import.meta.url)),
    logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m) => log.warn(m), error: (m) => log.error(m) },
  });
  const storage = createStorage(config);
  await storage.ensureBucket();
  const activities = createActivities({ orm, config, storage });
  const queues = (['commerce', 'media', 'imports'] as const).filter((q) => config.workerConcurrency[q] > 0);
  const workers = await Promise.all(
    queues.map((q) =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: taskQueue(config, q),
        workflowBundle,
        activities,
        maxConcurrentActivityTaskExecutions: config.workerConcurrency[q],
        maxConcurrentWorkflowTaskExecutions: Math.max(2, config.workerConcurrency[q]),
      }),
    ),
  );
  log.info('worker ready', { namespace: config.temporal.namespace, queues });
  const stop = () => workers.forEach((w) => w.shutdown());
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await Promise.all(workers.map((w) => w.run()));
  await orm.close();
  await connection.close();
}

main().catch((e) => {
  log.error('worker failed', { error: String(e), stack: (e as Error).stack });
  process.exit(1);
});
