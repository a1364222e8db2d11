/**
 * The processes one launcher owns (scripts/lib/stack.ts, scripts/lib/cluster.ts): each started with
 * its log, registered for kill()/revive() under its name, named in one line when it dies on its own,
 * and stopped in order: APIs and workers together, then the other processes newest first, then the
 * cleanups (newest first).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startProc, stopProc, waitFor, type Proc, type ProcOptions } from './procs.js';

export interface Revivable {
  kill(): Promise<void>;
  revive(): Promise<void>;
  running(): boolean;
}

/** Whether a process is ready, given the length its log had before this start (a log is appended to across restarts). */
export type ReadyCheck = (p: Proc, logOffset: number) => Promise<boolean>;

export interface LaunchOptions extends ProcOptions {
  /** The signal that stops it (default SIGTERM; PostgreSQL takes SIGINT, its fast shutdown). */
  stopSignal?: NodeJS.Signals;
}

/** What a started stack offers to chaos and tests (the Stack of stack.ts, the Cluster of cluster.ts). */
export interface Components {
  /** Names kill() and revive() accept. */
  components(): string[];
  /** SIGKILLs one component, as a crash would (no grace, no cleanup); resolves once it has exited. */
  kill(name: string): Promise<void>;
  /** Starts a killed component again with the same command, ports, data folder and environment; resolves once it is ready. */
  revive(name: string): Promise<void>;
  /** Whether the component's process is running (false once it exited, killed or on its own). */
  running(name: string): boolean;
}

export const alive = (child: ChildProcess | undefined): boolean => !!child && child.exitCode === null && child.signalCode === null;

/** App processes (stopped first, together): names starting with 'api' or 'worker'. */
const isApp = (name: string): boolean => name.startsWith('api') || name.startsWith('worker');

export class Supervisor implements Components {
  readonly procs: Proc[] = [];
  readonly pids: Record<string, number> = {};
  private readonly revivable = new Map<string, Revivable>();
  /** Processes kill() ended on purpose (their exit is no crash). */
  private readonly killed = new WeakSet<ChildProcess>();
  private readonly stopSignals = new Map<string, NodeJS.Signals>();
  private readonly cleanups: (() => Promise<void>)[] = [];
  private stopping = false;
  private stopped?: Promise<void>;

  constructor(
    readonly logDir: string,
    private readonly say: (s: string) => void,
    /** Processes a test started itself and leaves running (one pid a line); stop() SIGTERMs them first. */
    readonly extraPidsFile?: string,
  ) {}

  /**
   * A component that dies while the stack runs (not stopped, not killed on purpose) is named in one
   * line with its log file, so whoever watches the launcher or the test run sees which one and where to look.
   */
  private watchExit(p: Proc): Proc {
    p.child.once('exit', (code, signal) => {
      if (!this.stopping && !this.killed.has(p.child)) this.say(`${p.name} exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); its log: ${p.logFile}`);
    });
    if (p.child.pid) this.pids[p.name] = p.child.pid;
    return p;
  }

  /** Starts a process and registers it for kill()/revive(); `ready` is what revive() waits for (the caller waits for the first start). */
  launch(name: string, cmd: string, args: string[], env: Record<string, string>, ready: ReadyCheck, readyMs: number, opts: LaunchOptions = {}): Proc {
    const logFile = path.join(this.logDir, `${name}.log`);
    const logSize = (): number => (existsSync(logFile) ? statSync(logFile).size : 0);
    const p = this.watchExit(startProc(name, cmd, args, env, this.logDir, opts));
    this.procs.push(p);
    if (opts.stopSignal) this.stopSignals.set(name, opts.stopSignal);
    const current = (): Proc | undefined => this.procs.find((x) => x.name === name);
    this.register(name, {
      kill: async () => {
        const cur = current();
        if (cur) this.killed.add(cur.child);
        if (cur) await stopProc(cur, 'SIGKILL');
      },
      revive: async () => {
        const offset = logSize();
        const next = this.watchExit(startProc(name, cmd, args, env, this.logDir, opts));
        const i = this.procs.findIndex((x) => x.name === name);
        if (i >= 0) this.procs[i] = next;
        else this.procs.push(next);
        await waitFor(name, () => ready(next, offset), readyMs, next);
      },
      running: () => alive(current()?.child),
    });
    return p;
  }

  /** launch(), then waits until `ready` (reading the log from where this start began). */
  async start(name: string, cmd: string, args: string[], env: Record<string, string>, ready: ReadyCheck, readyMs: number, opts: LaunchOptions = {}): Promise<Proc> {
    const logFile = path.join(this.logDir, `${name}.log`);
    const offset = existsSync(logFile) ? statSync(logFile).size : 0;
    const p = this.launch(name, cmd, args, env, ready, readyMs, opts);
    await waitFor(name, () => ready(p, offset), readyMs, p);
    return p;
  }

  /** Registers a component the launcher runs some other way (the embedded PostgreSQL). */
  register(name: string, r: Revivable): void {
    this.revivable.set(name, r);
  }

  /** Runs at stop, after every process has stopped (newest first). */
  cleanup(fn: () => Promise<void>): void {
    this.cleanups.push(fn);
  }

  /** Called after each start step: a stop requested meanwhile ends the start (its catch stops the rest). */
  notStopped(): void {
    if (this.stopping) throw new Error('stopped while starting');
  }

  logSince(p: Proc, offset: number): string {
    return readFileSync(p.logFile).subarray(offset).toString('utf8');
  }

  /**
   * Stops what has started so far: other processes a test left (extra pids), APIs and workers together, then
   * the rest newest first, then the cleanups. A second call (a start failing because the stop ended one of its
   * processes) waits for the first.
   */
  readonly stop = (): Promise<void> => (this.stopped ??= this.stopAll());

  private async stopAll(): Promise<void> {
    this.stopping = true;
    if (this.extraPidsFile && existsSync(this.extraPidsFile)) {
      for (const line of readFileSync(this.extraPidsFile, 'utf8').split('\n')) {
        const pid = Number(line.trim());
        if (pid > 0) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            /* already gone */
          }
        }
      }
    }
    const apps = this.procs.filter((p) => isApp(p.name));
    const services = this.procs.filter((p) => !apps.includes(p)).reverse();
    this.procs.length = 0;
    await Promise.all(apps.map((p) => stopProc(p)));
    for (const p of services) await stopProc(p, this.stopSignals.get(p.name));
    const cs = this.cleanups.splice(0).reverse();
    for (const c of cs) await c().catch((e) => this.say(`cleanup failed: ${String(e)}`));
  }

  private component(name: string): Revivable {
    const c = this.revivable.get(name);
    if (!c) throw new Error(`no component ${name}; one of ${[...this.revivable.keys()].join(', ')}`);
    return c;
  }

  readonly components = (): string[] => [...this.revivable.keys()];
  readonly kill = (name: string): Promise<void> => this.component(name).kill();
  readonly revive = (name: string): Promise<void> => this.component(name).revive();
  readonly running = (name: string): boolean => this.component(name).running();
  /** What a started stack answers besides its addresses: the pids and the controls (startStack, startCluster). */
  readonly controls = () => ({ pids: this.pids, stop: this.stop, components: this.components, kill: this.kill, revive: this.revive, running: this.running });
}
