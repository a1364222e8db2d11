/**
 * Worker process: one Temporal worker per task queue (commerce, media, imports, mail). Each registers
 * only its own queue's workflows (the pre-built bundle of src/workflows/<queue>.ts) and
 * activities (createQueueActivities). A queue with neither, or with concurrency 0, gets no worker.
 */
import './src/compat/node20.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeWorkflowExporter, type OpenTelemetrySinks, OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { NativeConnection, Worker, type ActivityInterceptorsFactory, type InjectedSinks } from '@temporalio/worker';
import { createQueueActivities, TASK_QUEUES } from './src/activities/index.js';
import { businessMetrics, retryVisibility, traceLogAttributes } from './src/activities/interceptors.js';
import { dataConverterFor } from './src/adapters/payload-codec.js';
import { createInfrastructure } from './src/composition.js';
import { taskQueue } from './src/config.js';
import { log } from './src/logger.js';
import { loadBundle, queueHasWorkflows } from './src/worker/bundles.js';
import { ensureJanitorSchedule } from './src/services/payments/reconciliation.js';
import { installWorkerRuntime, sdkMetricsText } from './src/worker/runtime.js';
import { startOpsServer } from './src/ops-server.js';
import { checkReadiness } from './src/services/ops/readiness.js';
import { currentTracing, shutdownTracing } from './src/tracing.js';

/**
 * Test hooks: with ENABLE_TEST_HOOKS=true (only the test stack sets it) the activity interceptors of
 * the module TEST_ACTIVITY_INTERCEPTORS names (the test stack's fault injection,
 * test/support/fault-injection.ts). Production code holds no test-only interceptor.
 */
async function testActivityInterceptors(): Promise<ActivityInterceptorsFactory[]> {
  const file = process.env.ENABLE_TEST_HOOKS === 'true' ? process.env.TEST_ACTIVITY_INTERCEPTORS : undefined;
  if (!file) return [];
  const mod = (await import(pathToFileURL(path.resolve(file)).href)) as { activityInterceptors: () => ActivityInterceptorsFactory[] };
  return mod.activityInterceptors();
}

async function main(): Promise<void> {
  const services = await createInfrastructure('worker');
  const { config } = services;
  installWorkerRuntime(config);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  // Aborted on SIGTERM/SIGINT: an activity waiting for work (the webhook claim) answers at once
  // instead of holding the shutdown for its whole wait.
  const stopping = new AbortController();
  const activitiesByQueue = createQueueActivities({ ...services, stopping: stopping.signal });
  const testInterceptors = await testActivityInterceptors();
  const production = process.env.NODE_ENV === 'production';
  // Traces (src/tracing.ts): a RunActivity span per activity (outermost, so every interceptor's and
  // the activity's log lines carry its trace id) and the workflows' spans through the `exporter`
  // sink. Off, the sink still exists and drops what a workflow started inside a trace sends.
  const tracing = currentTracing();
  const otelActivity: ActivityInterceptorsFactory = (ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) });
  const sinks: InjectedSinks<OpenTelemetrySinks> = {
    exporter: tracing ? makeWorkflowExporter(tracing.spanProcessor, tracing.resource) : { export: { fn: () => undefined } },
  };
  const activityInterceptors = [...(tracing ? [otelActivity] : []), traceLogAttributes, retryVisibility, businessMetrics, ...testInterceptors];
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
        dataConverter: dataConverterFor(config),
        interceptors: { activity: activityInterceptors },
        sinks,
        maxConcurrentActivityTaskExecutions: config.workerConcurrency[q],
        // SIGTERM (issue 21): polling stops at once; running activities get this long to finish
        // before they are cancelled (and retried elsewhere by Temporal).
        shutdownGraceTime: config.shutdownGraceMs,
        maxConcurrentWorkflowTaskExecutions: Math.max(2, config.workerConcurrency[q]),
      }),
    );
  }
  // The payment janitor's schedule (issue 21); Temporal away at start only delays it to the next start.
  await ensureJanitorSchedule(services.temporal, config).catch((e: unknown) => log.warn('payment janitor schedule not ensured', { error: String(e).slice(0, 300) }));
  const queues = workers.map((w) => w.options.taskQueue);
  log.info('worker ready', { namespace: config.temporal.namespace, queues });
  const ops = startOpsServer({ config, readiness: () => checkReadiness(services), extraMetrics: () => sdkMetricsText(config) });
  const stop = (signal: string) => {
    log.info('worker stopping', { signal, graceMs: config.shutdownGraceMs });
    stopping.abort();
    ops?.close();
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    void shutdownTracing();
    // Past the grace time and a margin for the last workflow tasks, the process ends regardless.
    setTimeout(() => process.exit(0), config.shutdownGraceMs + 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await Promise.all(workers.map((w) => w.run()));
  await services.close();
  await connection.close();
}

main().catch((e) => {
  log.error('worker failed', { error: String(e), stack: (e as Error).stack });
  process.exit(1);
});
