/**
 * Replay test of the bench workflows (scripts/bench/workflows, the `bench` queue of the benchmark
 * and history-recording scripts; no production worker bundles them): every history under
 * scripts/bench/histories/ is replayed against today's bench workflow code, as test/replay.test.ts
 * does for src/workflows. Needs the compiled scripts (npm test builds them); no stack.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import * as benchWorkflows from '../scripts/bench/workflows/index';

jest.setTimeout(120_000);
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed by another file in this jest worker: keep its logger.
}
const ROOT = path.join(__dirname, '..');
const DIR = path.join(ROOT, 'scripts', 'bench', 'histories');
const files = (readdirSync(DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort();
const load = (f: string) => JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) as { events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[] };

test('when the bench histories are listed, then every bench workflow has at least one', () => {
  const recorded = new Set(files.map((f) => load(f).events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name));
  expect(Object.keys(benchWorkflows).filter((w) => !recorded.has(w))).toEqual([]);
});

test('when every recorded bench history is replayed against the current bench workflow code, then none fails', async () => {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: path.join(ROOT, 'dist', 'scripts', 'bench', 'workflows', 'index.js'),
    workflowInterceptorModules: [path.join(ROOT, 'dist', 'src', 'workflows', 'tracing-interceptors.js')],
    logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m) => console.error(m) },
  });
  const failures: string[] = [];
  const histories = files.map((f) => ({ workflowId: f, history: temporal.api.history.v1.History.fromObject(load(f)) }));
  for await (const r of Worker.runReplayHistories({ workflowBundle, replayName: 'bench-replay-test' }, histories)) {
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(histories.length).toBeGreaterThan(0);
});
