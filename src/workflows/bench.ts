/**
 * Workflows of the `bench` task queue: benchmark baselines only. No production worker serves this
 * queue (worker.ts starts the queues of TASK_QUEUES); scripts/lib/bench-worker.ts runs it inside
 * the benchmark and history-recording scripts.
 */
export { benchNoop } from './bench-noop.js';
