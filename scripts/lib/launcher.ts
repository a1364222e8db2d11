/**
 * The main of a run command (npm run dev, npm run cluster): starts a stack, prints every address and one
 * "ready" line. SIGINT (Ctrl-C), SIGTERM and SIGHUP to this process alone, or the death of its parent
 * (npm, a supervisor, an IDE), stop everything it started, newest first, and wait for it; a port already
 * taken stops the start with a message. The process ids it owns go to <dataDir>/<tag>-pids.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { onStopSignals, type StackInfo } from './stack.js';
import { ensureBinaries } from './binaries.js';

export interface LauncherOptions {
  /** 'dev' or 'cluster': the prefix of its lines and of its pids file. */
  tag: string;
  dataDir: string;
  labels: Record<string, string>;
  start(dataDir: string, say: (s: string) => void, onStop: (stop: () => Promise<void>) => void): Promise<StackInfo>;
}

export function runLauncher(opts: LauncherOptions): void {
  const { tag, dataDir } = opts;
  const say = (s: string) => console.log(`[${tag}] ${s}`);
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
  // `npm run …` forwards SIGINT and SIGTERM but not SIGHUP, and a killed wrapper forwards nothing:
  // when the parent goes away the launcher is re-parented, which it notices here.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void stop('parent process gone');
  }, 500);

  const main = async (): Promise<void> => {
    const stack = await opts.start(dataDir, say, (s) => (stopStack = s));
    if (stopping) return;
    for (const [k, v] of Object.entries(stack.urls)) console.log(`  ${(opts.labels[k] ?? k).padEnd(26)} ${v}`);
    logDir = stack.logDir;
    console.log(`  ${'Logs'.padEnd(26)} ${stack.logDir}`);
    const { temporal } = await ensureBinaries(() => undefined);
    console.log(`  ${'Temporal CLI'.padEnd(26)} ${temporal} (or: npm run temporal -- workflow list)`);
    // The processes this launcher owns, for operators and the launcher test.
    writeFileSync(path.join(dataDir, `${tag}-pids.json`), JSON.stringify({ launcher: process.pid, ...stack.pids }, null, 2));
    console.log('ready');
  };
  main().catch((e) => {
    // A stop under way ends the start with an error of its own (a process it stopped); the stop exits when done.
    if (stopping || String(e).includes('stopped while starting')) return;
    console.error(`[${tag}] ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
