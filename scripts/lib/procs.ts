/** Child-process helpers for the launcher and the test runner: free ports, spawn with logs, wait, stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * The kernel's ephemeral range (outgoing connections take their local port from it), read once.
 * Ports handed out below are chosen under it: a port found free by listening on 0 comes from that
 * range, and once released an outgoing connection of any process (a pool opening a connection to
 * PostgreSQL, say) could take it before the server meant for it binds (EADDRINUSE at start).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 0;
  } catch {
    return 0;
  }
}
const EPHEMERAL_LOW = ephemeralLow();

/** Listens on `port` (0: any) on 127.0.0.1; null when it is taken. */
function hold(port: number): Promise<net.Server | null> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EADDRINUSE' || e.code === 'EACCES' ? resolve(null) : reject(e)));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

/**
 * `count` distinct free ports: all held open until every one is chosen, so none repeats. Chosen at
 * random between 10,000 and the ephemeral range (see EPHEMERAL_LOW), else by the kernel.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  for (let tries = 0; servers.length < count && tries < count * 50 && EPHEMERAL_LOW; tries++) {
    const srv = await hold(10_000 + Math.floor(Math.random() * (EPHEMERAL_LOW - 10_000)));
    if (srv) servers.push(srv);
  }
  while (servers.length < count) {
    const srv = await hold(0);
    if (srv) servers.push(srv);
  }
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

export interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
}

/** How a process is spawned besides its command: as another user (PostgreSQL refuses root), in a folder. */
export interface ProcOptions {
  uid?: number;
  gid?: number;
  cwd?: string;
}

export function startProc(name: string, cmd: string, args: string[], env: Record<string, string>, logDir: string, opts: ProcOptions = {}): Proc {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], uid: opts.uid, gid: opts.gid, cwd: opts.cwd });
  child.stdout?.pipe(out);
  child.stderr?.pipe(out);
  return { name, child, logFile };
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, proc?: Proc): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    if (proc && proc.child.exitCode !== null) throw new Error(`${what} exited with code ${proc.child.exitCode}; see ${proc.logFile}`);
    try {
      if (await check()) return;
    } catch (e) {
      lastErr = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000} s${lastErr ? `: ${String(lastErr)}` : ''}${proc ? `; see ${proc.logFile}` : ''}`);
}

export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  return res.ok;
}

export async function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export async function stopProc(p: Proc, signal: NodeJS.Signals = 'SIGTERM', graceMs = 8000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => {
      p.child.kill('SIGKILL');
    }, graceMs);
    p.child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    p.child.kill(signal);
  });
}
