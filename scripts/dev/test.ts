/**
 * The test command (npm test): starts the whole stack on free ports (embedded PostgreSQL
 * unless DATABASE_URL, Temporal dev server, MinIO, SMTP catcher, provider sandbox, worker
 * and API for production and sandbox), runs jest against it, stops everything, and ends
 * with one line "N passed, N failed". Extra arguments go to jest (e.g. a test file).
 */
import '../../src/compat/node20.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onStopSignals, startStack } from '../lib/stack.js';
import { auditStatements, describeAudit, inspectorUrls, resetStatements } from '../lib/statement-audit.js';

async function main(): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'b2b-test-'));
  const say = (s: string) => console.log(`[test] ${s}`);
  const started = Date.now();
  // Interrupted (Ctrl-C, SIGTERM, SIGHUP): stop jest and every process of the stack, leave no orphans.
  let stopStack: (() => Promise<void>) | undefined;
  let jestChild: ReturnType<typeof spawn> | undefined;
  onStopSignals((sig) => {
    say(`${sig}: stopping the stack`);
    jestChild?.kill('SIGTERM');
    void (stopStack?.() ?? Promise.resolve()).finally(() => {
      console.log('0 passed, 1 failed');
      process.exit(130);
    });
  });
  // pg_stat_statements records every statement of the run for the statement audit after jest.
  const stack = await startStack({ mode: 'test', dataDir, say, onStop: (s) => (stopStack = s), statementStats: true });
  const databases = Object.entries(stack.env).map(([name, env]) => ({ name, url: env.DATABASE_URL }));
  for (const db of databases) await resetStatements(db.url);
  // The tests read and alter the database as a role of their own, which the audit leaves out.
  const inspector = await inspectorUrls(Object.fromEntries(databases.map((d) => [d.name, d.url])));
  say(`stack ready in ${Math.round((Date.now() - started) / 1000)} s`);
  const stackFile = path.join(dataDir, 'stack.json');
  writeFileSync(stackFile, JSON.stringify({ ...stack, inspectorUrls: inspector }, null, 2));
  const results = path.join(dataDir, 'jest-results.json');
  let code = 1;
  let auditFailed = 0;
  let auditPassed = 0;
  try {
    code = await new Promise<number>((resolve) => {
      const jest = spawn(process.execPath, ['node_modules/jest/bin/jest.js', '--json', `--outputFile=${results}`, ...process.argv.slice(2)], {
        stdio: 'inherit',
        env: { ...process.env, STACK_FILE: stackFile },
      });
      jestChild = jest;
      jest.on('exit', (c) => resolve(c ?? 1));
    });
    // One check more: no statement of the run reaches a tenant table without organization_id.
    for (const db of databases) {
      if (!inspector) {
        console.log(`statement audit (${db.name}): skipped, the tests' own statements cannot be told apart (no role could be created)`);
        continue;
      }
      const audit = await auditStatements(db.url);
      for (const line of describeAudit(db.name, audit)) console.log(line);
      if (audit.skipped) continue;
      if (audit.findings.length) auditFailed++;
      else auditPassed++;
    }
  } finally {
    await stack.stop();
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
  if (failed === 0 && process.env.KEEP_TEST_DATA !== 'true') rmSync(dataDir, { recursive: true, force: true });
  else say(`logs kept in ${stack.logDir}`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (c) => process.exit(c),
  (e) => {
    console.error(e);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
