/**
 * Worker process: one Temporal worker per task queue (commerce, media, imports). Each registers
 * only its own queue's workflows (the pre-built bundle of src/workflows/<queue>.ts) and
 * activities (createQueueActivities). A queue with neither, or with concurrency 0, gets no worker.
 */
import './src/compat/node20.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createQueueActivities, TASK_QUEUES, type TaskQueueName } from './src/activities/index.js';
import { faultInjection, parseFaultRules, retryVisibility } from './src/activities/interceptors.js';
import { createInfrastructure } from './src/composition.js';
import { taskQueue } from './src/config.js';
import { log } from './src/logger.js';
import { loadBundle } from './src/worker/bundles.js';

async function queueHasWorkflows(queue: TaskQueueName): Promise<boolean> {
  const mod = (await import(`./src/workflows/${queue}.js`)) as Record<string, unknown>;
  return Object.values(mod).some((v) => typeof v === 'function');
}

async function main(): Promise<void> {
  const services = await createInfrastructure('worker');
  const { config } = services;
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const activitiesByQueue = createQueueActivities(services);
  const testHooks = process.env.ENABLE_TEST_HOOKS === 'true';
  const faults = testHooks && process.env.FAULT_INJECTION ? parseFaultRules(process.env.FAULT_INJECTION) : [];
  if (faults.length) log.warn('fault injection enabled (test hook)', { rules: faults });
  const production = process.env.NODE_ENV === 'production';
  const workers: Worker[] = [];
  for (const q of TASK_QUEUES) {
    if (config.workerConcurrency[q] <= 0) continue;
    const activities = activitiesByQueue[q];
    const hasWorkflows = await queueHasWorkflows(q);
    if (!hasWorkflows && Object.keys(activities).length === 0) continue;
    workers.push(
      await Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: taskQueue(config, q),
        ...(hasWorkflows ? { workflowBundle: await loadBundle(q, production) } : {}),
        activities,
        interceptors: { activity: faults.length ? [retryVisibility, faultInjection(faults)] : [retryVisibility] },
        maxConcurrentActivityTaskExecutions: config.workerConcurrency[q],
        maxConcurrentWorkflowTaskExecutions: Math.max(2, config.workerConcurrency[q]),
      }),
    );
  }
  const queues = workers.map((w) => w.options.taskQueue);
  log.info('worker ready', { namespace: config.temporal.namespace, queues });
  const stop = () => workers.forEach((w) => w.shutdown());
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  await Promise.all(workers.map((w) => w.run()));
  await services.close();
  await connection.close();
}

main().catch((e) => {
  log.error('worker failed', { error: String(e), stack: (e as Error).stack });
  process.exit(1);
});
