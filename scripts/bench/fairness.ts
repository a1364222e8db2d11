/**
 * Tenant fairness benchmark (not a test): `npm run bench:fairness`
 * (BENCH_SECONDS=20 per phase, BENCH_NOISY_CONCURRENCY=8, BENCH_NOISY_LIMIT=600 per minute).
 * Starts the stack (or uses API_URL + DATABASE_URL), makes two organizations with 50 products each,
 * and measures one client of the quiet tenant listing products back to back:
 *   1. alone;
 *   2. while the noisy tenant runs BENCH_NOISY_CONCURRENCY clients at full speed under its own
 *      limit (organization.rate_limit_per_minute = BENCH_NOISY_LIMIT: most of its requests get 429);
 *   3. the same tenant with its minute already spent (every request refused);
 *   4. the same without a limit for the noisy tenant (for contrast).
 * Prints p50/p99 of the quiet tenant per phase, the p99 ratio to phase 1 (goal: phases 2 and 3 <= 2x),
 * and the noisy tenant's 200 / 429 counts. The noisy clients run in a child process, so the quiet
 * client's latencies are the server's, not this process's event loop busy with the noisy answers.
 */
import '../../src/compat/node20.js';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { benchTarget } from '../lib/bench-target.js';
import { round, timeRatio, writeResults } from '../lib/bench-results.js';
import { clientIp, request, setupOrganization, type ApiResponse } from '../lib/api-client.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const NOISY = Number(process.env.BENCH_NOISY_CONCURRENCY ?? 8);
const NOISY_LIMIT = Number(process.env.BENCH_NOISY_LIMIT ?? 600);
const say = (s: string) => console.log(`[bench] ${s}`);

const api = (base: string, method: string, p: string, body?: unknown, token?: string): Promise<ApiResponse> => request(base, method, p, body, { token, forwardedFor: clientIp('10.8') });

async function tenant(base: string, name: string): Promise<{ id: string; token: string }> {
  const { orgId, token } = await setupOrganization(base, { name: `${name} ${randomUUID()}`, tag: randomUUID(), billingCountry: null, user: { FirstName: 'B', LastName: 'Ench' } });
  for (let i = 0; i < 50; i++)
    await api(base, 'PUT', '/api/products', { sku: `B-${i}`, name: `Bench ${i}`, prices: [{ tier: 'Retail', price: 10 + i, atQuantity: 1 }] }, token);
  return { id: orgId, token };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function phase(base: string, quiet: string, noisy: string | null): Promise<{ p50: number; p99: number; n: number; ok: number; limited: number }> {
  const until = performance.now() + SECONDS * 1000;
  const lat: number[] = [];
  const quietLoop = (async () => {
    while (performance.now() < until) {
      const t = performance.now();
      const r = await api(base, 'GET', '/api/products?pageSize=20', undefined, quiet);
      if (r.status !== 200) throw new Error(`quiet tenant got ${r.status}`);
      lat.push(performance.now() - t);
    }
  })();
  // The noisy clients run in a process of their own: in this one, handling their thousands of
  // answers would delay the quiet client's own reads and count client-side work as server latency.
  const noisyRun = noisy ? noisyProcess(base, noisy, SECONDS) : Promise.resolve({ ok: 0, limited: 0 });
  const [, { ok, limited }] = await Promise.all([quietLoop, noisyRun]);
  lat.sort((a, b) => a - b);
  return { p50: pct(lat, 50), p99: pct(lat, 99), n: lat.length, ok, limited };
}

/** Runs the noisy tenant's clients in a child process (this script with `--noisy`) for `seconds`; resolves with their 200 and 429 counts. */
function noisyProcess(base: string, token: string, seconds: number): Promise<{ ok: number; limited: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--noisy', base, token, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`noisy clients exited with ${code}`))));
  });
}

/** The child: NOISY clients at full speed (no pause, Retry-After ignored) until the time is up; prints the counts as JSON. */
async function noisyMain(base: string, token: string, seconds: number): Promise<void> {
  const until = performance.now() + seconds * 1000;
  let ok = 0;
  let limited = 0;
  await Promise.all(
    Array.from({ length: NOISY }, async () => {
      while (performance.now() < until) {
        const r = await api(base, 'GET', '/api/products?pageSize=20', undefined, token);
        if (r.status === 200) ok++;
        else if (r.status === 429) limited++;
        else throw new Error(`noisy tenant got ${r.status}`);
      }
    }),
  );
  console.log(JSON.stringify({ ok, limited }));
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const db = new pg.Client({ connectionString: target.databaseUrl });
  try {
    await db.connect();
    const quiet = await tenant(target.api, 'Quiet');
    const noisy = await tenant(target.api, 'Noisy');
    await phase(target.api, quiet.token, null); // warm-up
    const alone = await phase(target.api, quiet.token, null);
    await db.query('update organization set rate_limit_per_minute = $2 where id = $1', [noisy.id, NOISY_LIMIT]);
    const limited = await phase(target.api, quiet.token, noisy.token);
    // The same tenant with its minute already spent: every request is refused (held, then 429).
    await db.query(`update rate_limit_bucket set count = $2, window_start = now() where key = $1`, [`org:${noisy.id}`, NOISY_LIMIT]);
    const exhausted = await phase(target.api, quiet.token, noisy.token);
    // A second noisy tenant for the contrast: the first one's exhausted window would still refuse it
    // (a raised limit applies from the next window at the latest).
    const unlimitedNoisy = await tenant(target.api, 'Noisy unlimited');
    await db.query('update organization set rate_limit_per_minute = 10000000 where id = $1', [unlimitedNoisy.id]);
    const unlimited = await phase(target.api, quiet.token, unlimitedNoisy.token);
    const f = (x: number) => x.toFixed(1);
    console.log(
      `\nTenant fairness: quiet tenant = 1 client listing products back to back, ${SECONDS} s per phase; noisy tenant = ${NOISY} clients at full speed\n`,
    );
    console.log('| phase | quiet requests | quiet p50 ms | quiet p99 ms | p99 vs alone | noisy 200 | noisy 429 |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    console.log(`| quiet tenant alone | ${alone.n} | ${f(alone.p50)} | ${f(alone.p99)} | 1.00x | - | - |`);
    console.log(
      `| noisy tenant limited to ${NOISY_LIMIT}/min | ${limited.n} | ${f(limited.p50)} | ${f(limited.p99)} | ${(limited.p99 / alone.p99).toFixed(2)}x | ${limited.ok} | ${limited.limited} |`,
    );
    console.log(
      `| noisy tenant over its ${NOISY_LIMIT}/min (every request refused) | ${exhausted.n} | ${f(exhausted.p50)} | ${f(exhausted.p99)} | ${(exhausted.p99 / alone.p99).toFixed(2)}x | ${exhausted.ok} | ${exhausted.limited} |`,
    );
    console.log(
      `| noisy tenant without a limit | ${unlimited.n} | ${f(unlimited.p50)} | ${f(unlimited.p99)} | ${(unlimited.p99 / alone.p99).toFixed(2)}x | ${unlimited.ok} | ${unlimited.limited} |`,
    );
    const row = (what: string, r: typeof limited, noisyNote: string) => ({
      name: `quiet tenant p99 (GET /api/products), ${what}`,
      figure: round(r.p99),
      unit: 'ms',
      floor: round(alone.p99),
      ratio: timeRatio(r.p99, alone.p99),
      statementsPerOp: null,
      notes: `p99 ${(r.p99 / alone.p99).toFixed(2)}x the quiet tenant alone (goal <= 2x with the limit); quiet p50 ${f(r.p50)} ms over ${r.n} requests, alone p50 ${f(alone.p50)} ms; ${noisyNote}; floor: the quiet tenant's p99 alone, ${SECONDS} s per phase`,
    });
    writeResults('fairness', [
      row(
        `noisy tenant (${NOISY} clients, full speed) limited to ${NOISY_LIMIT}/min`,
        limited,
        `noisy tenant got ${limited.ok} x 200 and ${limited.limited} x 429`,
      ),
      row(
        `noisy tenant (${NOISY} clients, full speed) over its ${NOISY_LIMIT}/min, every request refused`,
        exhausted,
        `noisy tenant got ${exhausted.ok} x 200 and ${exhausted.limited} x 429`,
      ),
      row(`noisy tenant (${NOISY} clients, full speed) without a limit`, unlimited, `noisy tenant got ${unlimited.ok} x 200, no limit (contrast)`),
    ]);
  } finally {
    await db.end().catch(() => undefined);
    await target.stop();
  }
}

const [flag, noisyBase, noisyToken, noisySeconds] = process.argv.slice(2);
(flag === '--noisy' ? noisyMain(noisyBase, noisyToken, Number(noisySeconds)) : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
