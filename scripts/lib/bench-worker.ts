/**
 * The `bench` task queue's worker (benchNoop and its no-op activity), run inside a benchmark or
 * history-recording script. Production workers never register these (worker.ts serves only
 * TASK_QUEUES); the bundle is built when this starts.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createBenchActivities } from '../../src/activities/bench.js';
import { buildBundle } from '../../src/worker/bundles.js';

export const BENCH_QUEUE = 'bench';

export interface BenchWorker {
  taskQueue: string;
  stop(): Promise<void>;
}

export async function startBenchWorker(address: string, namespace = 'default'): Promise<BenchWorker> {
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: BENCH_QUEUE,
    workflowBundle: await buildBundle('bench'),
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
