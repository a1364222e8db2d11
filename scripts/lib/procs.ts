/** Child-process helpers for the launcher and the test runner: free ports, spawn with logs, wait, stop. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** `count` distinct free ports: all held open until every one is chosen, so none repeats. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const srv = net.createServer();
          srv.unref();
          srv.on('error', reject);
          srv.listen(0, '127.0.0.1', () => resolve(srv));
        }),
    ),
  );
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

export function startProc(name: string, cmd: string, args: string[], env: Record<string, string>, logDir: string): Proc {
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}.log`);
  const out = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
