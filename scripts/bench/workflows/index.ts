/**
 * Workflows of the `bench` task queue: benchmark baselines only, outside src so no production
 * worker bundles them. scripts/lib/bench-worker.ts bundles this file (compiled:
 * dist/scripts/bench/workflows/index.js) and serves the queue inside the benchmark and
 * history-recording scripts; test/bench-replay.test.ts replays scripts/bench/histories/ against it.
 */
export { benchNoop } from './bench-noop.js';
