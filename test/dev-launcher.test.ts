/**
 * The dev launcher (npm run dev) stops every process it started however it is stopped: a signal to
 * the launcher alone (what an IDE's stop button, a supervisor or `kill <pid>` sends), or the death
 * of the wrapper that started it; and a start that finds a port taken refuses instead of reporting
 * ready. Each case starts a whole dev stack (embedded PostgreSQL included) on free ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePorts } from '../scripts/lib/procs';
import { stack } from './support/helpers';

const st = stack as typeof stack & { distDir?: string };
const devJs = () => path.join(st.distDir!, 'scripts/dev/dev.js');
const PORT_NAMES = ['postgres', 'temporal', 'temporalUi', 'minio', 'minioConsole', 'smtp', 'smtpHttp', 'provider', 'api', 'sandboxApi', 'apiOps', 'workerOps', 'workerSdkMetrics', 'sandboxApiOps', 'sandboxWorkerOps', 'sandboxWorkerSdkMetrics', 'temporalMetrics'];

jest.setTimeout(420_000);

async function launcherEnv(dataDir: string): Promise<{ env: NodeJS.ProcessEnv; ports: Record<string, number> }> {
  const free = await freePorts(PORT_NAMES.length);
  const ports = Object.fromEntries(PORT_NAMES.map((k, i) => [k, free[i]]));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL; // the embedded path, as on a newcomer's machine
  for (const [k, p] of Object.entries(ports)) env[`PORT_${k.toUpperCase()}`] = String(p);
  return { env, ports };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the output once `ready` is printed, rejects when the process exits first. */
function untilReady(child: ChildProcess, out: { text: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out.text += d.toString();
      if (/^ready$/m.test(out.text)) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out.text += d.toString()));
    child.once('exit', (code) => reject(new Error(`launcher exited (${code}) before ready:\n${out.text}`)));
  });
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} not reached within ${ms / 1000} s`);
}

/** Every process the launcher reported, plus the embedded PostgreSQL postmaster. */
function ownedPids(dataDir: string): Record<string, number> {
  const pids = JSON.parse(readFileSync(path.join(dataDir, 'dev-pids.json'), 'utf8')) as Record<string, number>;
  const pm = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (existsSync(pm)) pids.postgres = Number(readFileSync(pm, 'utf8').split('\n')[0]);
  return pids;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function startAndStop(how: 'SIGTERM to the launcher' | 'SIGHUP to the launcher' | 'the wrapper killed'): Promise<void> {
  // Ports are chosen free, but other files' processes may take one before the launcher binds it: then
  // the launcher refuses (as the port-taken case below shows) and the start is tried on other ports.
  let dataDir = '';
  let child: ChildProcess | undefined;
  let out = { text: '' };
  let ports: Record<string, number> = {};
  for (let attempt = 1; ; attempt++) {
    dataDir = mkdtempSync(path.join(tmpdir(), 'b2b-dev-'));
    dirs.push(dataDir);
    const launched = await launcherEnv(dataDir);
    const env = launched.env;
    ports = launched.ports;
    // "the wrapper killed": a shell that does not exec the launcher, as `npm run dev` or a supervisor's
    // wrapper script; killing it forwards no signal, so only the launcher's own watch can stop the stack.
    child =
      how === 'the wrapper killed'
        ? spawn('sh', ['-c', `"${process.execPath}" "${devJs()}"; true`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(process.execPath, [devJs()], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    out = { text: '' };
    try {
      await untilReady(child, out);
      break;
    } catch (e) {
      if (attempt >= 3 || !out.text.includes('already in use')) throw e;
    }
  }
  const pids = ownedPids(dataDir);
  expect(Object.keys(pids)).toEqual(expect.arrayContaining(['launcher', 'postgres', 'temporal', 'minio', 'smtp-catcher', 'provider-sandbox', 'api', 'worker', 'api-sandbox', 'worker-sandbox']));
  for (const [name, pid] of Object.entries(pids)) expect([name, alive(pid)]).toEqual([name, true]);
  // The dev Temporal server's own metrics answer on the port the launcher gave it.
  const temporalMetrics = await fetch(`http://127.0.0.1:${ports.temporalMetrics}/metrics`);
  expect(temporalMetrics.status).toBe(200);
  expect(await temporalMetrics.text()).toMatch(/^# (HELP|TYPE) /m);

  if (how === 'SIGTERM to the launcher') {
    // A component that dies is named in one line with its log file (issue 43 item 5).
    process.kill(pids['smtp-catcher'], 'SIGKILL');
    await until('the crash line', () => /smtp-catcher exited unexpectedly \(signal SIGKILL\); its log: \S*smtp-catcher\.log/.test(out.text), 30_000);
    expect(out.text.split('\n').filter((l) => l.includes('smtp-catcher exited unexpectedly'))).toHaveLength(1);
  }

  if (how === 'SIGTERM to the launcher') process.kill(pids.launcher, 'SIGTERM');
  else if (how === 'SIGHUP to the launcher') process.kill(pids.launcher, 'SIGHUP');
  else process.kill(child.pid!, 'SIGKILL');

  // Each child gets up to 8 s after SIGTERM before SIGKILL; on a loaded machine the whole stop can take a minute or more.
  await until('every process the launcher started gone', () => Object.values(pids).every((pid) => !alive(pid)), 150_000).catch(() => undefined);
  const left = Object.entries(pids).filter(([, pid]) => alive(pid));
  expect(left).toEqual([]);
}

test('SIGTERM to the launcher alone stops every process it started (no orphans)', () => startAndStop('SIGTERM to the launcher'));

test('the launcher whose wrapper is killed (no signal forwarded) stops every process it started', () => startAndStop('the wrapper killed'));

test('a start that finds a port taken says so and stops instead of reporting ready', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'b2b-dev-'));
  dirs.push(dataDir);
  const { env, ports } = await launcherEnv(dataDir);
  const squatter = net.createServer();
  await new Promise<void>((r) => squatter.listen(ports.api, '127.0.0.1', () => r()));
  try {
    const child = spawn(process.execPath, [devJs()], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(1);
    expect(text).toContain(`already in use: ${ports.api} (api; PORT_API)`);
    expect(text).not.toMatch(/^ready$/m);
    // Nothing was started: no PostgreSQL cluster was created for this data folder.
    expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(false);
  } finally {
    await new Promise((r) => squatter.close(r));
  }
});

test('SIGHUP to the launcher alone (a closed terminal) stops every process it started', () => startAndStop('SIGHUP to the launcher'));
