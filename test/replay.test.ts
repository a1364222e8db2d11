/**
 * Replay test: every recorded history under test/histories/ (JSON as written by
 * `npm run histories:record`: protobufjs' object form of the History) is replayed against
 * today's workflow code with Worker.runReplayHistories. A change that alters the commands a
 * recorded execution produced (an activity added, removed or reordered, a timer changed without
 * `patched()`) fails here, before it can break running workflows in production.
 * Needs the compiled workflows (npm test builds them); no stack.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import * as workflows from '../src/workflows/index';

jest.setTimeout(120_000);
try {
  Runtime.install({ logger: new DefaultLogger('WARN') });
} catch {
  // Already installed by another file in this jest worker: keep its logger.
}
const DIR = path.join(__dirname, 'histories');
const ROOT = path.join(__dirname, '..');
/** Histories of the current code at the top; those of earlier versions (still replayable) in subfolders. */
const files = (readdirSync(DIR, { recursive: true }) as string[]).filter((f) => f.endsWith('.json')).sort();

interface JsonHistory {
  events: { eventType: string; workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
}
const load = (f: string) => JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) as JsonHistory;
const typeOf = (h: JsonHistory) => h.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '?';

test('when the histories are listed, then every workflow the workers register has at least one', () => {
  const recorded = new Set(files.map((f) => typeOf(load(f))));
  expect(Object.keys(workflows).filter((w) => !recorded.has(w))).toEqual([]);
});

test('when every recorded history is replayed against the current workflow code, then none fails', async () => {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: path.join(ROOT, 'dist', 'src', 'workflows', 'index.js'),
    // As the workers' bundles (src/worker/bundles.ts): the tracing interceptors pass untraced histories through unchanged.
    workflowInterceptorModules: [path.join(ROOT, 'dist', 'src', 'workflows', 'tracing-interceptors.js')],
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (m) => console.error(m),
    },
  });
  const failures: string[] = [];
  const histories = files.map((f) => ({ workflowId: f, history: temporal.api.history.v1.History.fromObject(load(f)) }));
  for await (const r of Worker.runReplayHistories({ workflowBundle, replayName: 'replay-test' }, histories)) {
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  expect(failures).toEqual([]);
  expect(histories.length).toBeGreaterThan(0);
});
