/**
 * Worker crashes around the commission statement workflow. Runs in the sandbox environment (its
 * own API, worker and Temporal namespace), like the checkout crash test, so killing that worker
 * cannot delay other files' workflows. The stack's sandbox worker is killed; this file runs the
 * statement on workers it spawns and, in afterAll, leaves one normal sandbox worker running (its pid
 * in stack.extraPidsFile so the stack stops it).
 */
import { call, createOrg, dbQuery, SANDBOX_API, type OrgFixture } from './support/helpers';
import { createSalesRep, invoiceBody } from './support/matrix-fixtures';
import { kill, SandboxWorkers } from './support/sandbox-workers';

jest.setTimeout(180_000);
let sb: OrgFixture;
const workers = new SandboxWorkers();

beforeAll(async () => {
  await workers.acquire();
  sb = await createOrg({ base: SANDBOX_API });
  // Only this file's workers may poll the sandbox queues: the stack's worker and the normal workers
  // earlier crash tests left running (their pids are in extraPidsFile) stop here; afterAll leaves one.
  workers.killOthers();
}, 600_000);

afterAll(() => workers.leaveOneRunning());

const S = () => ({ base: sb.base, token: sb.adminToken });

async function seed(repNumber: string) {
  for (const [i, price] of [10, 20.05, 33.33].entries()) {
    const body = invoiceBody({ invoiceDate: `2026-02-0${i + 1}T10:00:00.000Z`, items: [{ sku: `CR-${i}`, productName: 'Crash', quantity: 3, price }] });
    body.primarySalesRep = { ...body.primarySalesRep, repNumber };
    const inv = await call('POST', '/api/invoices', { ...S(), body });
    expect(inv.status).toBe(201);
    expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, S())).status).toBe(200);
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const entriesOf = async (id: string) =>
  dbQuery<{ invoice_number: string; commission: string; lines: unknown }>('select invoice_number, commission::text, lines from commission_entry where statement_id = $1 order by invoice_number', [id], 'sandbox');

test('when the worker is killed during generation and while the statement waits for approval, then a new worker resumes with the same entries and no duplicate statement', async () => {
  const rep = await createSalesRep(sb);
  const plan = await call('POST', '/api/commissions/plans', { ...S(), body: { SalesRepId: rep.salesRepId, Name: 'Crash', DefaultRate: 0.1, EffectiveStartDate: '2026-01-01T00:00:00Z', Active: true } });
  expect(plan.status).toBe(201);
  await seed(rep.repNumber);

  // A worker that pauses inside generation, before its write; killed during that pause.
  const pausing = workers.start({ COMMISSION_GENERATION_PAUSE_MS: '8000' }, 'pausing worker');
  await pausing.ready;
  const res = await call('POST', '/api/commissions/statements', { ...S(), body: { salesRepId: rep.salesRepId, startDate: '2026-02-01', endDate: '2026-02-28' } });
  expect(res.status).toBe(202);
  const id = res.body.statementId as string;
  await new Promise((r) => setTimeout(r, 3000));
  const during = await call('GET', `/api/commissions/statements/${id}`, S());
  // Generating unless a worker another test file started meanwhile took the task; the outcome below must hold either way.
  if (during.body.status !== 'Generating') console.warn(`statement was ${during.body.status} before the kill; the mid-generation crash was not exercised`);
  kill(pausing.child);

  const normal = workers.start({}, 'replacement worker');
  await normal.ready;
  const draft = await waitFor('Draft', async () => {
    const r = await call('GET', `/api/commissions/statements/${id}`, S());
    return r.body.status === 'Draft' ? r.body : null;
  });
  // 30.00 x 0.1 = 3.00; 60.15 x 0.1 = 6.015 -> 6.02; 99.99 x 0.1 = 9.999 -> 10.00.
  expect(draft.entries.map((e: { commission: number }) => e.commission)).toEqual([3, 6.02, 10]);
  expect(draft.totalCommission).toBe(19.02);
  const before = await entriesOf(id);
  expect(before).toHaveLength(3);

  // Killed while the Draft waits for approval: the new worker replays and takes the update.
  kill(normal.child);
  const third = workers.start({}, 'third worker');
  await third.ready;
  const ap = await call('POST', `/api/commissions/statements/${id}/approve`, S());
  expect({ status: ap.status, body: ap.body }).toMatchObject({ status: 200, body: { status: 'Approved' } });
  expect(await entriesOf(id)).toEqual(before);
  const rows = await dbQuery<{ n: string }>('select count(*)::text as n from commission_statement where sales_rep_id = $1', [rep.salesRepId], 'sandbox');
  expect(rows[0].n).toBe('1');
  expect(ap.body.events.map((e: { type: string }) => e.type).filter((t: string) => t !== 'ReminderSent')).toEqual(['Requested', 'Generated', 'Approved']);
});
