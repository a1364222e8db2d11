/**
 * An API process a test file starts for itself (dist/server.js with the production environment of
 * the stack, on its own port, with extra environment), so the test can cut its dependencies or
 * send it SIGTERM without disturbing other files. Its pid goes to stack.extraPidsFile, so the
 * stack stops it even when the test does not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, createWriteStream } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../scripts/lib/procs';
import { stack } from './helpers';

const st = stack as typeof stack & { distDir?: string; extraPidsFile?: string };

export interface OwnApi {
  child: ChildProcess;
  base: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once the process ended. */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

export async function startOwnApi(extraEnv: Record<string, string> = {}): Promise<OwnApi> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...process.env, ...stack.env.production, PORT: String(port), PUBLIC_BASE_URL: base, ...extraEnv };
  const child = spawn(process.execPath, ['--enable-source-maps', path.join(st.distDir!, 'server.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid) appendFileSync(st.extraPidsFile!, `${child.pid}\n`);
  let out = '';
  // Also into the stack's log folder (kept when a run fails).
  const file = createWriteStream(path.join(stack.logDir, `own-api-${port}.log`), { flags: 'a' });
  child.stdout.on('data', (d) => ((out += String(d)), file.write(d)));
  child.stderr.on('data', (d) => ((out += String(d)), file.write(d)));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`own API exited ${child.exitCode}: ${out.slice(-2000)}`);
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`own API did not answer /health: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    base,
    output: () => out,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
