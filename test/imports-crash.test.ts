/**
 * A worker SIGKILLed in the middle of an import job: the job finishes on a new worker with exact
 * counts, no duplicate and no lost record. Runs in the sandbox environment (its own API, worker,
 * database and Temporal namespace), like the checkout crash test, so killing that worker cannot
 * delay workflows other test files wait for; afterAll leaves one normal sandbox worker running.
 */
import { createOrg, dbQuery, SANDBOX_API, type OrgFixture } from './support/helpers';
import { counts, productCount, submitFile, waitJob } from './support/import-helpers';
import { ensurePriceTier } from './support/matrix-fixtures';
import { SandboxWorkers } from './support/sandbox-workers';

describe('worker crash during an import job', () => {
  const workers = new SandboxWorkers();
  let sb: OrgFixture;
  beforeAll(async () => {
    await workers.acquire();
    sb = await createOrg({ base: SANDBOX_API });
    await ensurePriceTier(sb, 'Retail');
  }, 600_000);

  afterAll(() => workers.leaveOneRunning());

  test('when the worker is SIGKILLed mid-job, then a new worker finishes it with exact counts and no duplicate or lost record', async () => {
    workers.killOthers();
    const first = workers.start({}, 'first worker');
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
    const second = workers.start({}, 'replacement worker');
    await second.ready;
    const done = await waitJob(sb, id, undefined, 180_000);
    expect(counts(done)).toEqual({ status: 'Succeeded', totalRecords: total, processed: total, created: total, updated: 0, unchanged: 0, failed: 0 });
    expect(await productCount(sb, 'sandbox')).toBe(total);
    expect((await dbQuery<{ n: number }>('select count(*)::int as n from product_price where organization_id = $1', [sb.organizationId], 'sandbox'))[0].n).toBe(total);
    expect((await dbQuery<{ n: number }>('select count(*)::int as n from import_chunk_run where job_id = $1', [id], 'sandbox'))[0].n).toBe(40);
  }, 300_000);
});
