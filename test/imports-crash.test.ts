/**
 * A worker SIGKILLed in the middle of an import job: the job finishes on a new worker with exact
 * counts, no duplicate and no lost record. Runs in the sandbox environment (its own API, worker,
 * database and Temporal namespace), like the checkout crash test, so killing that worker cannot
 * delay workflows other test files wait for; afterAll leaves one normal sandbox worker running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { createOrg, dbQuery, SANDBOX_API, stack, type OrgFixture } from './helpers';
import { counts, productCount, submitFile, waitJob } from './import-helpers';
import { ensurePriceTier } from './matrix-fixtures';

const st = stack as typeof stack & { pids?: Record<string, number>; distDir?: string; extraPidsFile?: string };

describe('worker crash during an import job', () => {
  const spawned: ChildProcess[] = [];
  let sb: OrgFixture;
  beforeAll(async () => {
    sb = await createOrg({ base: SANDBOX_API });
    await ensurePriceTier(sb, 'Retail');
  });

  const startWorker = (name: string) => {
    const child = spawn(process.execPath, [path.join(st.distDir!, 'worker.js')], { env: { ...process.env, ...stack.env.sandbox }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    spawned.push(child);
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
  };

  afterAll(async () => {
    for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    const keep = spawn(process.execPath, [path.join(st.distDir!, 'worker.js')], { env: { ...process.env, ...stack.env.sandbox }, stdio: 'ignore', detached: true });
    keep.unref();
    appendFileSync(st.extraPidsFile!, `${keep.pid}\n`);
    await new Promise((r) => setTimeout(r, 3000));
  });

  test('when the worker is SIGKILLed mid-job, then a new worker finishes it with exact counts and no duplicate or lost record', async () => {
    try {
      process.kill(st.pids!['worker-sandbox'], 'SIGKILL');
    } catch {
      /* already replaced by an earlier test file */
    }
    const first = startWorker('first worker');
    await first.ready;
    const total = 40_000;
    const lines = ['sku,name,price:Retail'];
    for (let i = 1; i <= total; i++) lines.push(`K-${i},Crash ${i},${(i % 90) + 1}.50`);
    const res = await submitFile(sb, { kind: 'products' }, 'crash.csv', lines.join('\n'));
    expect(res.status).toBe(202);
    const id = res.body.jobId as string;
    await waitJob(sb, id, (j) => j.processed >= 3000, 120_000);
    first.child.kill('SIGKILL');
    const mid = (await waitJob(sb, id, () => true)).processed;
    expect(mid).toBeLessThan(total);
    const second = startWorker('replacement worker');
    await second.ready;
    const done = await waitJob(sb, id, undefined, 180_000);
    expect(counts(done)).toEqual({ status: 'Succeeded', totalRecords: total, processed: total, created: total, updated: 0, unchanged: 0, failed: 0 });
    expect(await productCount(sb, 'sandbox')).toBe(total);
    expect((await dbQuery<{ n: number }>('select count(*)::int as n from product_price where organization_id = $1', [sb.organizationId], 'sandbox'))[0].n).toBe(total);
    expect((await dbQuery<{ n: number }>('select count(*)::int as n from import_chunk_run where job_id = $1', [id], 'sandbox'))[0].n).toBe(40);
  }, 300_000);
});
