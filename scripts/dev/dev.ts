/**
 * The run command (npm run dev): the whole service on embedded defaults with data under
 * ./.data; prints every address and one "ready" line. SIGINT (Ctrl-C), SIGTERM and SIGHUP to
 * this process alone, or the death of its parent (npm, a supervisor, an IDE), stop everything it
 * started, newest first, and wait for it; a port already taken stops the start with a message.
 */
import '../../src/compat/node20.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { onStopSignals, startStack } from '../lib/stack.js';
import { ensureBinaries } from '../lib/binaries.js';

const labels: Record<string, string> = {
  api: 'API (production)',
  sandboxApi: 'API (sandbox)',
  docs: 'API docs',
  temporal: 'Temporal gRPC',
  temporalUi: 'Temporal Web UI',
  minio: 'MinIO S3',
  minioConsole: 'MinIO console',
  smtp: 'SMTP catcher',
  mailbox: 'Caught e-mails (JSON)',
  provider: 'Payment provider sandbox',
  postgres: 'PostgreSQL',
  apiOps: 'API ops (/metrics, /ready)',
  workerOps: 'Worker ops (/metrics, /ready)',
  sandboxApiOps: 'Sandbox API ops',
  sandboxWorkerOps: 'Sandbox worker ops',
};

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  const say = (s: string) => console.log(`[dev] ${s}`);
  let stopStack: (() => Promise<void>) | undefined;
  let stopping = false;
  let logDir = '';
  const stop = async (why: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    say(`${why}: stopping...${logDir ? ` (logs: ${logDir})` : ''}`);
    await stopStack?.();
    say('stopped');
    process.exit(0);
  };
  // Installed before anything starts, so a signal during the start stops what has started so far.
  onStopSignals((sig) => void stop(sig));
  // `npm run dev` forwards SIGINT and SIGTERM but not SIGHUP, and a killed wrapper forwards nothing:
  // when the parent goes away the launcher is re-parented, which it notices here.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop('parent process gone');
  }, 500);

  const stack = await startStack({ mode: 'dev', dataDir, say, onStop: (s) => (stopStack = s) });
  if (stopping) return;
  for (const [k, v] of Object.entries(stack.urls)) console.log(`  ${(labels[k] ?? k).padEnd(26)} ${v}`);
  logDir = stack.logDir;
  console.log(`  ${'Logs'.padEnd(26)} ${stack.logDir}`);
  const { temporal } = await ensureBinaries(() => undefined);
  console.log(`  ${'Temporal CLI'.padEnd(26)} ${temporal} (or: npm run temporal -- workflow list)`);
  // The processes this launcher owns, for operators and the launcher test.
  writeFileSync(path.join(dataDir, 'dev-pids.json'), JSON.stringify({ launcher: process.pid, ...stack.pids }, null, 2));
  console.log('ready');
}

main().catch((e) => {
  if (String(e).includes('stopped while starting')) return;
  console.error(`[dev] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
