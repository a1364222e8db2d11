/**
 * The webhook dispatcher waits for work inside its claim activity (docs/decisions.md, "The webhook
 * dispatcher waits for work inside its activity"): an idle deployment no longer runs a timer, an
 * activity task and two workflow tasks every poll interval. In the sandbox environment with a
 * worker this file starts (test/support/sandbox-workers.ts), so the claim is known to run on it: a delivery
 * made while a claim waits is answered by that claim; an idle dispatcher makes no workflow task
 * a poll interval and starts no timer; a worker told to stop while its claim waits completes the
 * claim (with nothing) instead of holding it until the shutdown grace time cancels it.
 */
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ChildProcess } from 'node:child_process';
import { SANDBOX_API, call, createOrg, stack, type OrgFixture } from './support/helpers';
import { pathParamFixtures } from './support/matrix-fixtures';
import { SandboxWorkers } from './support/sandbox-workers';
import { startReceiver, type Receiver } from './support/webhook-receiver';

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
  // A grace time shorter than the claim's wait: a claim that ignored the stop would be cancelled by it.
  const own = workers.start({ WEBHOOK_CLAIM_WAIT_MS: String(CLAIM_WAIT_MS), SHUTDOWN_GRACE_MS: '3000' }, 'dispatcher');
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
async function freshClaimOnOurWorker(freshMs: number): Promise<{ activityId: string }> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const d = await dispatcher().describe();
    const claim = d.raw.pendingActivities?.find((a) => a.activityType?.name === 'claimWebhookDeliveries');
    if (claim?.activityId) {
      const startedAt = claim.lastStartedTime?.seconds ? Number(claim.lastStartedTime.seconds) * 1000 + Math.floor((claim.lastStartedTime.nanos ?? 0) / 1e6) : 0;
      const running = claim.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
      const ours = claim.lastWorkerIdentity?.startsWith(`${worker.pid}@`);
      if (running && ours && Date.now() - startedAt < freshMs) return { activityId: claim.activityId };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no claim of the dispatcher ran on this file\'s worker within 90 s');
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The dispatcher's current run and its history so far. */
async function history(): Promise<{ runId: string; events: HistoryEvent[] }> {
  const { runId } = await dispatcher().describe();
  const h = await client.workflow.getHandle('webhook-dispatcher', runId).fetchHistory();
  return { runId, events: h.events ?? [] };
}

const ms = (e: HistoryEvent | undefined) => Number(e?.eventTime?.seconds ?? 0) * 1000 + Math.floor((e?.eventTime?.nanos ?? 0) / 1e6);
const byId = (events: HistoryEvent[], id: unknown) => events.find((e) => String(e.eventId) === String(id));
/** How a claim attempt ended: the event that closed the activity scheduled as `scheduledId`, if any yet. */
function claimOutcome(events: HistoryEvent[], scheduledId: unknown): 'completed' | 'failed' | 'timed out' | 'cancelled' | null {
  for (const e of events) {
    if (String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '') === String(scheduledId)) return 'completed';
    if (String(e.activityTaskFailedEventAttributes?.scheduledEventId ?? '') === String(scheduledId)) return 'failed';
    if (String(e.activityTaskTimedOutEventAttributes?.scheduledEventId ?? '') === String(scheduledId)) return 'timed out';
    if (String(e.activityTaskCanceledEventAttributes?.scheduledEventId ?? '') === String(scheduledId)) return 'cancelled';
  }
  return null;
}

test('when an order is created while the claim waits, then that waiting claim answers its delivery', async () => {
  const sub = await call('POST', '/api/webhooks', { base: org.base, token: org.adminToken, body: { url: rx.url('/dispatch'), events: ['order.created'] } });
  expect(sub.status).toBe(201);
  // A claim with at least 5 s of its wait left, so it is still waiting when the order commits.
  await freshClaimOnOurWorker(CLAIM_WAIT_MS - 5000);
  const orderedAt = Date.now();
  const orderId = await pathParamFixtures.orderId(org);
  const got = await rx.waitFor('/dispatch', (l) => l.some((r) => r.json?.type === 'order.created'), 60_000);
  expect((got.find((r) => r.json?.type === 'order.created')!.json.data as { orderId: string }).orderId).toBe(orderId);
  const log = await call('GET', `/api/webhooks/${sub.body.webhookId}/deliveries`, { base: org.base, token: org.adminToken });
  const deliveryId = log.body.Data[0].deliveryId as string;
  // The claim whose answer started this delivery's workflow had started before the order existed:
  // it was waiting, looked at the outbox, and answered (a claim that only looked once would have
  // answered nothing long before, and a later claim would have found the delivery).
  const { events } = await history();
  const startedChild = events.findIndex((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId === `webhook-delivery-${deliveryId}`);
  expect(startedChild).toBeGreaterThan(0);
  const answered = events.slice(0, startedChild).reverse().find((e) => e.activityTaskCompletedEventAttributes);
  const scheduled = byId(events, answered?.activityTaskCompletedEventAttributes?.scheduledEventId);
  expect(scheduled?.activityTaskScheduledEventAttributes?.activityType?.name).toBe('claimWebhookDeliveries');
  const started = byId(events, answered?.activityTaskCompletedEventAttributes?.startedEventId);
  expect(ms(started)).toBeLessThan(orderedAt);
});

test('when nothing is to be delivered, then the dispatcher makes no workflow task a poll interval and starts no timer (the claim waits in its activity)', async () => {
  // The test stack polls the outbox every 300 ms: a dispatcher that slept between empty claims
  // completed two workflow tasks and started a timer a poll, about 20 and 10 over these 3 seconds.
  await freshClaimOnOurWorker(CLAIM_WAIT_MS);
  const before = await history();
  await new Promise((r) => setTimeout(r, 3000));
  const after = await history();
  expect(after.runId).toBe(before.runId);
  const tasks = (h: { events: HistoryEvent[] }) => h.events.filter((e) => e.workflowTaskCompletedEventAttributes).length;
  expect(tasks(after) - tasks(before)).toBeLessThanOrEqual(2);
  expect(after.events.filter((e) => e.timerStartedEventAttributes)).toEqual([]);
});

test('when the worker is told to stop while its claim waits, then the claim completes with nothing at once and the worker exits 0', async () => {
  // At least 5 s of the claim's wait left: more than the worker's 3-second grace time.
  const { activityId } = await freshClaimOnOurWorker(CLAIM_WAIT_MS - 5000);
  // A running activity's started event is written when it ends: find the claim by its scheduled event.
  const { events } = await history();
  const scheduledId = events.find((e) => e.activityTaskScheduledEventAttributes?.activityId === activityId)?.eventId;
  expect(scheduledId).toBeTruthy();
  expect(claimOutcome(events, scheduledId)).toBeNull();
  const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  worker.kill('SIGTERM');
  expect(await exited).toBe(0);
  // Ignoring the stop, the claim would still be waiting when the 3-second grace time cancelled it
  // (a failed attempt, retried on another worker).
  let outcome: ReturnType<typeof claimOutcome> = null;
  for (let i = 0; i < 50 && !outcome; i++) {
    outcome = claimOutcome((await history()).events, scheduledId);
    if (!outcome) await new Promise((r) => setTimeout(r, 200));
  }
  expect(outcome).toBe('completed');
});

