/**
 * Sandbox workers that crash tests start and SIGKILL themselves. The crash tests run in the sandbox
 * environment (its own API, worker, database and Temporal namespace), so killing its worker cannot
 * delay workflows other test files wait for. `leaveOneRunning()` (afterAll) starts one normal
 * worker and records its pid in stack.extraPidsFile, so later files have a worker and the stack stops it.
 * Jest runs files in parallel: `acquire()` (beforeAll) makes crash-test files take turns, so one file's
 * workers never pick up another file's activities.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createOrg, SANDBOX_API, stack, type OrgFixture } from './helpers';

const st = stack as typeof stack & { pids?: Record<string, number>; distDir?: string; extraPidsFile?: string };
const workerJs = () => path.join(st.distDir!, 'worker.js');

/** Whether a process is a sandbox worker (dist/worker.js on the sandbox namespace), read from /proc. */
function isSandboxWorker(pid: number): boolean {
  try {
    const isWorker = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(workerJs());
    return isWorker && readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`TEMPORAL_NAMESPACE=${stack.env.sandbox.TEMPORAL_NAMESPACE}`);
  } catch {
    return false;
  }
}

export const kill = (c: ChildProcess): void => {
  if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
};

const killPid = (pid: number): void => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
};

export class SandboxWorkers {
  private readonly spawned: ChildProcess[] = [];
  private lock: string | null = null;

  /** Waits until no other crash-test file holds the sandbox workers (a lock file beside extraPidsFile). */
  async acquire(): Promise<void> {
    const lock = `${st.extraPidsFile!}.lock`;
    for (;;) {
      try {
        closeSync(openSync(lock, 'wx'));
        this.lock = lock;
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Starts a sandbox worker with extra environment; `ready` resolves when it logs "worker ready". */
  start(extraEnv: Record<string, string>, name: string): { child: ChildProcess; ready: Promise<void> } {
    const child = spawn(process.execPath, [workerJs()], { env: { ...process.env, ...stack.env.sandbox, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    // Kept beside the stack's logs (the runner names the folder when a test fails).
    const logFile = path.join(path.dirname(st.extraPidsFile!), 'logs', `sandbox-${name.replace(/[^a-z0-9]+/gi, '-')}-${child.pid}.log`);
    let out = '';
    const keep = (d: Buffer) => {
      out += String(d);
      appendFileSync(logFile, d);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    this.spawned.push(child);
    const ready = new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if (out.includes('"worker ready"')) {
          clearInterval(t);
          resolve();
        }
      }, 100);
      child.on('exit', (c) => {
        clearInterval(t);
        reject(new Error(`${name} exited ${c}: ${out.slice(-2000)}`));
      });
    });
    return { child, ready };
  }

  /** Kills the workers this file started. */
  killOwn(): void {
    for (const c of this.spawned) kill(c);
  }

  /**
   * Kills every sandbox worker this file did not start: the stack's and the normal ones earlier crash-test files
   * left running (else those serve the queue instead of this file's worker, and a fault injected into ours never
   * lands). The pid file also lists other processes files start for themselves (APIs, production workers): only
   * sandbox workers are killed.
   */
  killOthers(): void {
    const earlier = existsSync(st.extraPidsFile!)
      ? readFileSync(st.extraPidsFile!, 'utf8')
          .split('\n')
          .map(Number)
          .filter((n) => n > 0 && isSandboxWorker(n))
      : [];
    for (const pid of [st.pids!['worker-sandbox'], ...earlier]) killPid(pid);
  }

  /** afterAll: kills this file's workers and leaves one normal sandbox worker running for later files. */
  async leaveOneRunning(): Promise<void> {
    this.killOwn();
    const keep = spawn(process.execPath, [workerJs()], { env: { ...process.env, ...stack.env.sandbox }, stdio: 'ignore', detached: true });
    keep.unref();
    appendFileSync(st.extraPidsFile!, `${keep.pid}\n`);
    await new Promise((r) => setTimeout(r, 3000));
    if (this.lock) rmSync(this.lock, { force: true });
    this.lock = null;
  }
}

/**
 * The preamble of a crash-test file (or describe block): beforeAll takes the sandbox workers and
 * creates an organization on the sandbox API (handed to `ready`, with any setup of its own);
 * afterAll leaves one worker running for later files.
 */
export function sandboxSuite(ready: (org: OrgFixture) => void | Promise<void>): SandboxWorkers {
  const workers = new SandboxWorkers();
  beforeAll(async () => {
    await workers.acquire();
    await ready(await createOrg({ base: SANDBOX_API }));
  }, 600_000);
  afterAll(() => workers.leaveOneRunning());
  return workers;
}
