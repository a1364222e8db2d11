/**
 * The `bench` task queue's worker (benchNoop and its no-op activity, scripts/bench/workflows/),
 * run inside a benchmark or history-recording script. Production workers never register these:
 * the bench workflows live outside src, and worker.ts serves only TASK_QUEUES from the bundles of
 * src/workflows. The bench bundle is built when this starts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { workflowInterceptorsPath } from '../../src/worker/bundles.js';
import { createBenchActivities } from '../bench/workflows/activities.js';

export const BENCH_QUEUE = 'bench';
/** The compiled bench workflows (this file is dist/scripts/lib/bench-worker.js once compiled). */
export const benchWorkflowsPath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bench/workflows/index.js');

export interface BenchWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) };

export async function startBenchWorker(address: string, namespace = 'default'): Promise<BenchWorker> {
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: BENCH_QUEUE,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: benchWorkflowsPath, workflowInterceptorModules: [workflowInterceptorsPath], logger: quiet }),
    activities: createBenchActivities(),
  });
  const running = worker.run();
  return {
    taskQueue: BENCH_QUEUE,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
