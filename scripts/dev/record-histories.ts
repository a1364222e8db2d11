/**
 * npm run histories:record: records fresh workflow histories for the replay test.
 * Starts the test stack, runs the workflow test files (RECORD_FILES, space-separated, to choose
 * others), starts one benchNoop (on the bench queue, served by a worker in this script), then writes up to two closed executions of every workflow type
 * (different close statuses first) from both namespaces to test/histories/<type>-<n>.json (the
 * bench workflows' to scripts/bench/histories/, replayed by test/bench-replay.test.ts), as JSON
 * (protobufjs' object form of the History). Every exported workflow must end up with
 * a history; the script fails otherwise. Check the files in with the workflow change.
 */
import '../../src/compat/node20.js';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';

const { temporal } = proto;
import * as workflows from '../../src/workflows/index.js';
import * as benchWorkflows from '../bench/workflows/index.js';
import { startBenchWorker } from '../lib/bench-worker.js';
import { startStack } from '../lib/stack.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const OUT = path.join(ROOT, 'test', 'histories');
/** The bench workflows (scripts/bench/workflows) are no production workflows: their histories stay beside them. */
const BENCH_OUT = path.join(ROOT, 'scripts', 'bench', 'histories');
const outFor = (type: string) => (type in benchWorkflows ? BENCH_OUT : OUT);
const FILES = (
  process.env.RECORD_FILES ??
  'test/checkout.test.ts test/invoice-card-payments.test.ts test/hosted-late-approval.test.ts test/invoice-issuance.test.ts test/images.test.ts test/email-workflow.test.ts test/commissions.test.ts test/imports.test.ts test/webhooks.test.ts test/fulfillment.test.ts'
).split(/\s+/);
const PER_TYPE = 2;

/**
 * The history as protobufjs' plain object (enum names, 64-bit numbers and bytes as strings);
 * test/replay.test.ts reads it back with History.fromObject. (historyToJSON of
 * @temporalio/common fails in this install: two protobufjs copies disagree on `Type`.)
 */
const toJson = (h: proto.temporal.api.history.v1.IHistory) =>
  temporal.api.history.v1.History.toObject(temporal.api.history.v1.History.create(h), { longs: String, enums: String, bytes: String });

async function main(): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'b2b-histories-'));
  const say = (s: string) => console.log(`[histories] ${s}`);
  const stack = await startStack({ mode: 'test', dataDir, say });
  const stackFile = path.join(dataDir, 'stack.json');
  writeFileSync(stackFile, JSON.stringify(stack, null, 2));
  try {
    const code = await new Promise<number>((resolve) => {
      const jest = spawn(process.execPath, [path.join(ROOT, 'node_modules/jest/bin/jest.js'), ...FILES], {
        stdio: 'inherit',
        cwd: ROOT,
        env: { ...process.env, STACK_FILE: stackFile },
      });
      jest.on('exit', (c) => resolve(c ?? 1));
    });
    if (code !== 0) say('some tests failed; recording what ran anyway');
    const connection = await Connection.connect({ address: stack.urls.temporal });
    const wanted = new Set([...Object.keys(workflows), ...Object.keys(benchWorkflows)]);
    const written: Record<string, number> = {};
    for (const dir of [OUT, BENCH_OUT]) mkdirSync(dir, { recursive: true });
    // Only the types recorded in this run are replaced, so a run over some test files keeps the other types' histories.
    const cleared = new Set<string>();
    const clear = (type: string) => {
      if (cleared.has(type)) return;
      cleared.add(type);
      for (const f of readdirSync(outFor(type))) if (f.startsWith(`${type}-`) && f.endsWith('.json')) rmSync(path.join(outFor(type), f));
    };
    for (const namespace of ['default', 'sandbox']) {
      const client = new Client({ connection, namespace });
      if (namespace === 'default') {
        const bench = await startBenchWorker(stack.urls.temporal);
        try {
          const h = await client.workflow.start('benchNoop', { workflowId: `bench-noop-history-${Date.now()}`, taskQueue: bench.taskQueue, args: [] });
          await h.result();
        } finally {
          await bench.stop();
        }
      }
      const seen: Record<string, Set<string>> = {};
      // Closed executions first; a long-running workflow (the webhook dispatcher) that never closed in the run is
      // recorded while it runs: replay checks the commands of the history it has so far.
      const executions = async function* () {
        yield* client.workflow.list({ query: 'ExecutionStatus != "Running"' });
        yield* client.workflow.list({ query: 'ExecutionStatus = "Running"' });
      };
      for await (const wf of executions()) {
        if (!wanted.has(wf.type)) continue;
        if (wf.status.name === 'RUNNING' && written[wf.type]) continue;
        const statuses = (seen[wf.type] ??= new Set());
        const n = written[wf.type] ?? 0;
        if (n >= PER_TYPE || statuses.has(wf.status.name)) continue;
        statuses.add(wf.status.name);
        const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
        written[wf.type] = n + 1;
        clear(wf.type);
        const file = path.join(outFor(wf.type), `${wf.type}-${n + 1}.json`);
        writeFileSync(file, JSON.stringify(toJson(history), null, 1) + '\n');
        say(`${path.relative(ROOT, file)}: ${wf.workflowId} (${namespace}, ${wf.status.name})`);
      }
    }
    await connection.close();
    const missing = [...wanted].filter((t) => !readdirSync(outFor(t)).some((f) => f.startsWith(`${t}-`)));
    if (missing.length) {
      say(`no history recorded for: ${missing.join(', ')} (add a test file that runs it to RECORD_FILES)`);
      return 1;
    }
    return 0;
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (c) => process.exit(c),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
