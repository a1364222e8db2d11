/**
 * The webhook dispatcher waits for work inside its claim activity (docs/decisions.md, "The webhook
 * dispatcher waits for work inside its activity"): an idle deployment no longer runs a timer, an
 * activity task and two workflow tasks every poll interval. In the sandbox environment with a
 * worker this file starts (test/sandbox-workers.ts), so the claim is known to run on it: a delivery
 * made while a claim waits arrives without the claim waiting out its window; an idle dispatcher
 * makes no workflow task for seconds; a worker told to stop while its claim waits exits at once.
 */
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ChildProcess } from 'node:child_process';
import { SANDBOX_API, call, createOrg, stack, uniq, type OrgFixture } from './helpers';
import { SandboxWorkers } from './sandbox-workers';
import { startReceiver, type Receiver } from './webhook-receiver';

jest.setTimeout(180_000);
const workers = new SandboxWorkers();
const CLAIM_WAIT_MS = 20_000;
let connection: Connection;
let client: Client;
let worker: ChildProcess;
let org: OrgFixture;
let rx: Receiver;

beforeAll(async () => {
  await workers.acquire();
  workers.killOthers();
  const own = workers.start({ WEBHOOK_CLAIM_WAIT_MS: String(CLAIM_WAIT_MS) }, 'dispatcher');
  worker = own.child;
  await own.ready;
  connection = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection, namespace: stack.env.sandbox.TEMPORAL_NAMESPACE });
  org = await createOrg({ base: SANDBOX_API });
  rx = await startReceiver();
}, 600_000);

afterAll(async () => {
  await rx?.close();
  await connection?.close();
  await workers.leaveOneRunning();
});

const dispatcher = () => client.workflow.getHandle('webhook-dispatcher');

/** The dispatcher's claim that is running on this file's worker, once one started within `freshMs` (else waits for the next). */
async function freshClaimOnOurWorker(freshMs: number): Promise<{ startedAt: number }> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const d = await dispatcher().describe();
    const claim = d.raw.pendingActivities?.find((a) => a.activityType?.name === 'claimWebhookDeliveries');
    const startedAt = claim?.lastStartedTime?.seconds ? Number(claim.lastStartedTime.seconds) * 1000 + Math.floor((claim.lastStartedTime.nanos ?? 0) / 1e6) : 0;
    const running = claim?.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
    const ours = running && claim?.lastWorkerIdentity?.startsWith(`${worker.pid}@`);
    if (ours && Date.now() - startedAt < freshMs) return { startedAt };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no claim of the dispatcher ran on this file\'s worker within 90 s');
}

/** Workflow tasks the dispatcher's current run has completed so far. */
async function workflowTasks(): Promise<{ runId: string; count: number }> {
  const h = dispatcher();
  const { runId } = await h.describe();
  const history = await client.workflow.getHandle('webhook-dispatcher', runId).fetchHistory();
  return { runId, count: (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes).length };
}

test('when an order is created while the claim waits, then order.created arrives without the claim waiting out its window', async () => {
  const sub = await call('POST', '/api/webhooks', { base: org.base, token: org.adminToken, body: { url: rx.url('/dispatch'), events: ['order.created'] } });
  expect(sub.status).toBe(201);
  const { startedAt } = await freshClaimOnOurWorker(2000);
  const orderedAt = Date.now();
  const created = await call('POST', '/api/orders', {
    base: org.base,
    token: org.adminToken,
    body: {
      customer: { customerNumber: uniq('C'), companyName: 'Hook Co' },
      orderType: 'Direct',
      poNumber: 'PO-8',
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber: 'R1' },
      items: [{ sku: 'S1', productName: 'Thing', quantity: 1, price: 5 }],
      user: { userId: 'u1', userType: 'Admin' },
    },
  });
  expect([created.status, created.text]).toEqual([201, expect.any(String)]);
  const got = await rx.waitFor('/dispatch', (l) => l.some((r) => r.json?.type === 'order.created'), 60_000);
  const arrivedAt = got.find((r) => r.json?.type === 'order.created')!.at;
  // The claim waiting at the order's commit would have answered at startedAt + CLAIM_WAIT_MS
  // had it not looked at the outbox meanwhile; it answered well before that.
  expect(startedAt + CLAIM_WAIT_MS - orderedAt).toBeGreaterThan(15_000);
  expect(arrivedAt).toBeLessThan(startedAt + CLAIM_WAIT_MS - 5_000);
  expect((got.find((r) => r.json?.type === 'order.created')!.json.data as { orderId: string }).orderId).toBe(created.body.data.id);
});

test('when nothing is to be delivered, then the dispatcher makes no workflow task a poll interval (the claim waits in its activity)', async () => {
  // The test stack polls the outbox every 300 ms: a dispatcher that slept between empty claims
  // completed two workflow tasks a poll, about 20 in these 3 seconds.
  await freshClaimOnOurWorker(CLAIM_WAIT_MS);
  const before = await workflowTasks();
  await new Promise((r) => setTimeout(r, 3000));
  const after = await workflowTasks();
  expect(after.runId).toBe(before.runId);
  expect(after.count - before.count).toBeLessThanOrEqual(2);
});

test('when the worker is told to stop while its claim waits, then it exits at once, not after the claim\'s wait or the shutdown grace time', async () => {
  await freshClaimOnOurWorker(3000);
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  const t0 = Date.now();
  worker.kill('SIGTERM');
  const code = await exited;
  expect(code).toBe(0);
  // The claim had at least 17 s left and the grace time is 25 s: either would show here.
  expect(Date.now() - t0).toBeLessThan(10_000);
});
