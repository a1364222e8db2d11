/**
 * The test command (npm test): starts the whole stack on free ports (embedded PostgreSQL
 * unless DATABASE_URL, Temporal dev server, MinIO, SMTP catcher, provider sandbox, worker
 * and API for production and sandbox), runs jest against it, stops everything, and ends
 * with one line "N passed, N failed". Extra arguments go to jest (e.g. a test file).
 */
import '../src/compat/node20.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onStopSignals, startStack } from './lib/stack.js';

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
  const stack = await startStack({ mode: 'test', dataDir, say, onStop: (s) => (stopStack = s) });
  say(`stack ready in ${Math.round((Date.now() - started) / 1000)} s`);
  const stackFile = path.join(dataDir, 'stack.json');
  writeFileSync(stackFile, JSON.stringify(stack, null, 2));
  const results = path.join(dataDir, 'jest-results.json');
  let code = 1;
  try {
    code = await new Promise<number>((resolve) => {
      const jest = spawn(process.execPath, ['node_modules/jest/bin/jest.js', '--json', `--outputFile=${results}`, ...process.argv.slice(2)], {
        stdio: 'inherit',
        env: { ...process.env, STACK_FILE: stackFile },
      });
      jestChild = jest;
      jest.on('exit', (c) => resolve(c ?? 1));
    });
  } finally {
    await stack.stop();
  }
  let passed = 0;
  let failed = 0;
  try {
    const r = JSON.parse(readFileSync(results, 'utf8')) as { numPassedTests: number; numFailedTests: number; numRuntimeErrorTestSuites: number };
    passed = r.numPassedTests;
    failed = r.numFailedTests + r.numRuntimeErrorTestSuites;
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
