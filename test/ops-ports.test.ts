/**
 * Issue 38 finding 10: the operations ports (/metrics, /ready, /codec) answered anyone on every
 * interface. They listen on 127.0.0.1 unless OPS_BIND says otherwise, and another bind address needs
 * OPS_TOKEN: without it the process does not start; with it every path but /health needs the token.
 */
import { spawn } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { freePort } from '../scripts/lib/procs';
import { stack } from './support/helpers';

jest.setTimeout(150_000);
const st = stack as typeof stack & { distDir?: string; urls: Record<string, string> };
/** This machine's first non-loopback IPv4 address (the one a neighbour on the network would use). */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

async function status(url: string, headers: Record<string, string> = {}): Promise<number | string> {
  try {
    return (await fetch(url, { headers, signal: AbortSignal.timeout(5000) })).status;
  } catch (e) {
    return String((e as { cause?: { code?: string } }).cause?.code ?? e);
  }
}

function startApi(env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(st.distDir!, 'server.js')], { env: { ...process.env, ...stack.env.production, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, exited, output: () => output };
}

describe('operations ports', () => {
  it('the ops ports of the running API and worker answer on loopback only, not on the machine address', async () => {
    expect(outside).toBeDefined();
    for (const key of ['apiOps', 'workerOps']) {
      const port = new URL(st.urls[key]).port;
      expect([key, await status(`http://127.0.0.1:${port}/health`)]).toEqual([key, 200]);
      expect([key, await status(`http://${outside}:${port}/metrics`)]).toEqual([key, 'ECONNREFUSED']);
    }
  });

  it('an ops port bound beyond loopback without OPS_TOKEN refuses to start', async () => {
    const api = startApi({ PORT: String(await freePort()), OPS_PORT: String(await freePort()), OPS_BIND: '0.0.0.0', OPS_TOKEN: '' });
    const code = await Promise.race([api.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 90_000))]);
    if (code === 'running') api.child.kill('SIGTERM');
    expect([code, api.output().slice(-1000)]).not.toEqual(['running', expect.anything()]);
    expect(code).not.toBe(0);
    expect(api.output()).toMatch(/OPS_TOKEN \(required when the ops port listens beyond loopback/);
  });

  it('an ops port bound beyond loopback answers /metrics, /ready and /codec to the bearer token only; /health to anyone', async () => {
    const token = 'ops-token-0123456789abcdef';
    const port = await freePort();
    const opsPort = await freePort();
    const api = startApi({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, OPS_PORT: String(opsPort), OPS_BIND: '0.0.0.0', OPS_TOKEN: token });
    try {
      const ops = `http://${outside}:${opsPort}`;
      const deadline = Date.now() + 60_000;
      while ((await status(`${ops}/health`)) !== 200) {
        if (Date.now() > deadline) throw new Error(`the ops port did not start: ${api.output().slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const auth = { authorization: `Bearer ${token}` };
      expect(await status(`${ops}/metrics`)).toBe(401);
      expect(await status(`${ops}/ready`)).toBe(401);
      expect(await status(`${ops}/metrics`, { authorization: 'Bearer wrong-token-0123456789' })).toBe(401);
      const codec = await fetch(`${ops}/codec/decode`, { method: 'POST', body: JSON.stringify({ payloads: [] }) });
      expect(codec.status).toBe(401);
      expect(await status(`${ops}/metrics`, auth)).toBe(200);
      expect([200, 503]).toContain(await status(`${ops}/ready`, auth));
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });
});
