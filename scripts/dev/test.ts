/**
 * The test command (npm test), in two phases, each on its own stack, ending with one line
 * "N passed, N failed" over both:
 *
 * 1. **The suite** on the test stack (embedded PostgreSQL unless DATABASE_URL, Temporal dev server,
 *    MinIO, SMTP catcher, provider sandbox, worker and API for production and sandbox) on free
 *    ports: every test file but test/cluster/, then the statement audit of every statement it ran.
 * 2. **The cluster phase** on `startCluster` (scripts/lib/cluster.ts: PostgreSQL primary and replica,
 *    the Temporal server on PostgreSQL, MinIO over four nodes, two APIs behind HAProxy, two workers
 *    per environment): test/cluster/ and the HTTP suites of the long-running processes
 *    (CLUSTER_SUITES) against the production topology.
 *
 * Extra arguments go to jest and run phase 1 only (e.g. a test file). TEST_PHASES=suite or
 * TEST_PHASES=cluster runs one phase; CLUSTER_TESTS overrides the cluster phase's files.
 */
import '../../src/compat/node20.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startCluster } from '../lib/cluster.js';
import { onStopSignals, startStack, type StackInfo } from '../lib/stack.js';
import { auditStatements, describeAudit, inspectorUrls, resetStatements } from '../lib/statement-audit.js';

/** What the cluster phase runs: the replica's tests and the suites of checkout, invoices, imports, quotes, approvals, credit and webhooks. */
const CLUSTER_SUITES = [
  'test/cluster/',
  'test/checkout.test.ts',
  'test/checkout-invoice.test.ts',
  'test/invoices.test.ts',
  'test/imports.test.ts',
  'test/quotes.test.ts',
  'test/approvals.test.ts',
  'test/credit.test.ts',
  'test/webhook-events.test.ts',
];

const say = (s: string) => console.log(`[test] ${s}`);

interface Outcome {
  passed: number;
  failed: number;
}

let stopCurrent: (() => Promise<void>) | undefined;
let jestChild: ReturnType<typeof spawn> | undefined;

/** Runs jest against a started stack; the audit (phase 1) counts as one more test per database. */
async function runJest(stack: StackInfo, dataDir: string, args: string[], extraEnv: Record<string, string>, audit: boolean): Promise<Outcome> {
  const databases = Object.entries(stack.env).map(([name, env]) => ({ name, url: env.DATABASE_URL }));
  if (audit) for (const db of databases) await resetStatements(db.url);
  // The tests read and alter the database as a role of their own, which the audit leaves out.
  const inspector = await inspectorUrls(Object.fromEntries(databases.map((d) => [d.name, d.url])));
  const stackFile = path.join(dataDir, 'stack.json');
  writeFileSync(stackFile, JSON.stringify({ ...stack, inspectorUrls: inspector }, null, 2));
  const results = path.join(dataDir, 'jest-results.json');
  const code = await new Promise<number>((resolve) => {
    // --forceExit: a handle a failed file left open (a socket, a child process) must not keep the run alive past its results.
    const jest = spawn(process.execPath, ['node_modules/jest/bin/jest.js', '--json', '--forceExit', `--outputFile=${results}`, ...args], {
      stdio: 'inherit',
      env: { ...process.env, ...extraEnv, STACK_FILE: stackFile },
    });
    jestChild = jest;
    jest.on('exit', (c) => resolve(c ?? 1));
  });
  let auditFailed = 0;
  let auditPassed = 0;
  // One check more: no statement of the run reaches a tenant table without organization_id.
  if (audit)
    for (const db of databases) {
      if (!inspector) {
        console.log(`statement audit (${db.name}): skipped, the tests' own statements cannot be told apart (no role could be created)`);
        continue;
      }
      const result = await auditStatements(db.url);
      for (const line of describeAudit(db.name, result)) console.log(line);
      if (result.skipped) continue;
      if (result.findings.length) auditFailed++;
      else auditPassed++;
    }
  let passed = 0;
  let failed = 0;
  try {
    const r = JSON.parse(readFileSync(results, 'utf8')) as { numPassedTests: number; numFailedTests: number; numRuntimeErrorTestSuites: number };
    passed = r.numPassedTests + auditPassed;
    failed = r.numFailedTests + r.numRuntimeErrorTestSuites + auditFailed;
  } catch {
    failed = Math.max(failed, 1);
  }
  if (code !== 0 && failed === 0) failed = 1;
  return { passed, failed };
}

/** One phase: start its stack in a fresh folder, run jest, stop everything; keeps the logs when something failed. */
async function phase(name: string, start: (dataDir: string, onStop: (s: () => Promise<void>) => void) => Promise<StackInfo & { stop(): Promise<void> }>, run: (stack: StackInfo, dataDir: string) => Promise<Outcome>): Promise<Outcome> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `b2b-test-${name}-`));
  const started = Date.now();
  say(`${name}: starting the stack`);
  let out: Outcome = { passed: 0, failed: 1 };
  let logDir = '';
  try {
    const stack = await start(dataDir, (s) => (stopCurrent = s));
    logDir = stack.logDir;
    say(`${name}: stack ready in ${Math.round((Date.now() - started) / 1000)} s`);
    try {
      out = await run(stack, dataDir);
    } finally {
      await stack.stop();
      stopCurrent = undefined;
    }
  } catch (e) {
    console.error(`[test] ${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    out = { passed: out.passed, failed: Math.max(out.failed, 1) };
  }
  say(`${name}: ${out.passed} passed, ${out.failed} failed in ${Math.round((Date.now() - started) / 1000)} s`);
  if (out.failed === 0 && process.env.KEEP_TEST_DATA !== 'true') rmSync(dataDir, { recursive: true, force: true });
  else say(`${name}: logs kept in ${logDir || dataDir}`);
  return out;
}

async function main(): Promise<number> {
  // Interrupted (Ctrl-C, SIGTERM, SIGHUP): stop jest and every process of the stack, leave no orphans.
  onStopSignals((sig) => {
    say(`${sig}: stopping the stack`);
    jestChild?.kill('SIGTERM');
    void (stopCurrent?.() ?? Promise.resolve()).finally(() => {
      console.log('0 passed, 1 failed');
      process.exit(130);
    });
  });
  const args = process.argv.slice(2);
  const phases = (process.env.TEST_PHASES ?? (args.length ? 'suite' : 'suite,cluster')).split(',');
  const total: Outcome = { passed: 0, failed: 0 };
  const add = (o: Outcome) => ((total.passed += o.passed), (total.failed += o.failed));
  if (phases.includes('suite'))
    add(
      await phase(
        'suite',
        // pg_stat_statements records every statement of the run for the statement audit after jest.
        (dataDir, onStop) => startStack({ mode: 'test', dataDir, say, onStop, statementStats: true }),
        (stack, dataDir) => runJest(stack, dataDir, args, {}, true),
      ),
    );
  if (phases.includes('cluster'))
    add(
      await phase(
        'cluster',
        (dataDir, onStop) => startCluster({ mode: 'test', dataDir, say, onStop }),
        (stack, dataDir) => runJest(stack, dataDir, process.env.CLUSTER_TESTS ? process.env.CLUSTER_TESTS.split(',') : CLUSTER_SUITES, { JEST_CLUSTER: 'true' }, false),
      ),
    );
  console.log(`${total.passed} passed, ${total.failed} failed`);
  return total.failed === 0 ? 0 : 1;
}

main().then(
  (c) => process.exit(c),
  (e) => {
    console.error(e);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
