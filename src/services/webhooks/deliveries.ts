/**
 * Deliveries: the log (list, detail with attempts), redeliver, replay, test events, and what the
 * dispatcher and the delivery workflow do (fan events out, make one attempt). New delivery rows
 * are started by the dispatcher (rows without `startedAt`), so a process dying after the commit
 * loses nothing.
 */
import type { webhookDelivery } from '../../domain/webhooks/responses.js';
import type { Out } from '../../domain/contract.js';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { classifyResponse, DELIVERY_TIMEOUT_MS, retryDelaysMs, subscriptionMatches, type WebhookEventType } from '../../domain/webhooks/rules.js';
import { signatureHeader } from '../../domain/webhooks/signature.js';
import { WebhookDelivery, WebhookEvent, WebhookSubscription } from '../../entities/Webhook.js';
import { AppError } from '../../errors.js';
import { UUID_RE } from '../../domain/ids.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { log } from '../../logger.js';
import { emitEvent } from './events.js';
import { postJson } from './send.js';
import { findSubscription, signingSecrets } from './subscriptions.js';

export const deliveryListSpec: ListSpec = {
  filters: { status: { prop: 'status', type: 'string' }, eventType: { prop: 'eventType', type: 'string' } },
  sorts: { createdAt: 'createdAt', status: 'status', eventType: 'eventType' },
  defaultSort: 'createdAt',
  defaultDirection: 'desc',
};

export function deliveryView(d: WebhookDelivery) {
  return {
    deliveryId: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType as WebhookEventType,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode ?? null,
    lastError: d.lastError ?? null,
    nextAttemptAt: d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    createdAt: d.createdAt.toISOString(),
  } satisfies Out<typeof webhookDelivery>;
}

export async function listDeliveries(em: EntityManager, orgId: string, webhookId: string, query: Record<string, unknown>) {
  await findSubscription(em, orgId, webhookId);
  // Newest first unless the caller sorts otherwise.
  const q = parseList(query, deliveryListSpec);
  const [rows, total] = await em.findAndCount(
    WebhookDelivery,
    { ...q.where, organizationId: orgId, webhookId },
    { orderBy: [q.orderBy, { id: 'desc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(deliveryView), total, q);
}

async function findDelivery(em: EntityManager, orgId: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  await findSubscription(em, orgId, webhookId);
  const d = UUID_RE.test(deliveryId) ? await em.findOne(WebhookDelivery, { id: deliveryId, organizationId: orgId, webhookId }) : null;
  if (!d) throw AppError.notFound('Delivery');
  return d;
}

export async function getDelivery(em: EntityManager, orgId: string, webhookId: string, deliveryId: string) {
  const d = await findDelivery(em, orgId, webhookId, deliveryId);
  return { ...deliveryView(d), attemptLog: d.attemptLog };
}

function newDelivery(em: EntityManager, orgId: string, webhookId: string, eventId: string, eventType: string): WebhookDelivery {
  return em.create(WebhookDelivery, {
    organizationId: orgId,
    webhookId,
    eventId,
    eventType,
    status: 'Pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: new Date(),
    attemptLog: [],
    startedAt: null,
  });
}

/**
 * A new delivery of the same event (same `webhook-id`) to the same subscription. An earlier
 * delivery of it still retrying ends here (Failed, "superseded"), so the receiver does not get the
 * event again from the old schedule; an attempt of it already under way ends at its next attempt
 * (attemptDelivery checks for a newer delivery first).
 */
export async function redeliver(em: EntityManager, orgId: string, webhookId: string, deliveryId: string) {
  const d = await findDelivery(em, orgId, webhookId, deliveryId);
  const again = newDelivery(em, orgId, webhookId, d.eventId, d.eventType);
  const open = await em.find(WebhookDelivery, { organizationId: orgId, webhookId, eventId: d.eventId, id: { $ne: again.id }, status: { $in: ['Pending', 'Retrying'] } });
  for (const o of open) supersede(o, again.id);
  await em.flush();
  return deliveryView(again);
}

/** Ends a delivery that a redelivery by hand replaced: no further attempts. */
function supersede(d: WebhookDelivery, byDeliveryId: string): void {
  d.status = 'Failed';
  d.nextAttemptAt = null;
  d.lastError = `Superseded by redelivery ${byDeliveryId}: no further attempts.`;
}

/** Redelivers every event whose latest delivery to this subscription since `since` Failed. */
export async function replayFailed(em: EntityManager, orgId: string, webhookId: string, since: Date) {
  await findSubscription(em, orgId, webhookId);
  const rows = await em.find(WebhookDelivery, { organizationId: orgId, webhookId, createdAt: { $gte: since } }, { orderBy: { createdAt: 'asc' } });
  const latest = new Map<string, WebhookDelivery>();
  for (const r of rows) latest.set(r.eventId, r);
  const failed = [...latest.values()].filter((r) => r.status === 'Failed');
  const created = failed.map((r) => newDelivery(em, orgId, webhookId, r.eventId, r.eventType));
  await em.flush();
  return { replayed: created.length, deliveryIds: created.map((c) => c.id) };
}

/** A `webhook.test` event delivered to this subscription only. */
export async function sendTestEvent(em: EntityManager, orgId: string, webhookId: string) {
  const s = await findSubscription(em, orgId, webhookId);
  const eventId = emitEvent(em, orgId, 'webhook.test', { webhookId: s.id, message: 'This is a test event.' });
  // The event is already fanned out here; the dispatcher must not fan it out again.
  const ev = em.getReference(WebhookEvent, eventId);
  ev.dispatchedAt = new Date();
  const d = newDelivery(em, orgId, s.id, eventId, 'webhook.test');
  await em.flush();
  return { eventId, deliveryId: d.id };
}

export interface DeliveryToStart {
  organizationId: string;
  deliveryId: string;
}

/**
 * Whether the dispatcher has anything to do: an undispatched outbox event or a delivery whose
 * workflow has not been started (one statement on the two partial indexes; the long poll's check).
 */
export async function hasDispatchWork(em: EntityManager): Promise<boolean> {
  const [row] = await boundRows<{ work: boolean }>(
    em,
    `select exists (select 1 from webhook_event where dispatched_at is null)
         or exists (select 1 from webhook_delivery where started_at is null) as work`,
  );
  return row?.work === true;
}

/**
 * Dispatcher step: fans undispatched outbox events out to the enabled subscriptions that
 * select them (one transaction, rows locked with SKIP LOCKED), then lists deliveries whose
 * workflow has not been started yet.
 */
export async function fanOutAndListUnstarted(em: EntityManager, limit = 200): Promise<DeliveryToStart[]> {
  await em.transactional(async (tx) => {
    const events = await tx.find(WebhookEvent, { dispatchedAt: null }, { orderBy: { occurredAt: 'asc' }, limit, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE });
    if (!events.length) return;
    const orgIds = [...new Set(events.map((e) => e.organizationId))];
    const subs = await tx.find(WebhookSubscription, { organizationId: { $in: orgIds }, isEnabled: true });
    const now = new Date();
    for (const e of events) {
      for (const s of subs)
        if (s.organizationId === e.organizationId && subscriptionMatches(s.events, e.type)) newDelivery(tx, e.organizationId, s.id, e.id, e.type);
      e.dispatchedAt = now;
    }
  });
  const rows = await em.fork().find(WebhookDelivery, { startedAt: null }, { orderBy: { createdAt: 'asc' }, limit, fields: ['id', 'organizationId'] });
  return rows.map((r) => ({ organizationId: r.organizationId, deliveryId: r.id }));
}

/**
 * Marks deliveries whose workflow has started, each found by its organization and id. A bare id
 * comes only from a dispatcher step scheduled before deliveries were passed whole: it is marked by id.
 */
export async function markStarted(em: EntityManager, deliveries: Array<DeliveryToStart | string>): Promise<void> {
  const byOrg = new Map<string, string[]>();
  const bare: string[] = [];
  for (const d of deliveries) {
    if (typeof d === 'string') bare.push(d);
    else byOrg.set(d.organizationId, [...(byOrg.get(d.organizationId) ?? []), d.deliveryId]);
  }
  const now = new Date();
  if (byOrg.size) {
    const $or = [...byOrg].map(([organizationId, ids]) => ({ organizationId, id: { $in: ids } }));
    await em.nativeUpdate(WebhookDelivery, { $or, startedAt: null }, { startedAt: now });
  }
  if (bare.length) await em.nativeUpdate(WebhookDelivery, { id: { $in: bare }, startedAt: null }, { startedAt: now });
}

export function deliverySchedule(config: Config): number[] {
  return retryDelaysMs(config.webhooks.retryScale);
}

export interface AttemptResult {
  done: boolean;
  status: WebhookDelivery['status'];
  retryAfterMs: number | null;
}

/**
 * One attempt of a delivery: sign with the subscription's current secret(s), POST, record
 * the attempt. A 2xx is Succeeded; 410 disables the subscription and fails the delivery;
 * anything else is Retrying, or Failed when `nextDelayMs` is null (the last attempt).
 */
export async function attemptDelivery(
  em: EntityManager,
  config: Config,
  input: { organizationId: string; deliveryId: string; nextDelayMs: number | null },
): Promise<AttemptResult> {
  const d = await em.findOne(WebhookDelivery, { id: input.deliveryId, organizationId: input.organizationId });
  if (!d) return { done: true, status: 'Failed', retryAfterMs: null };
  if (d.status === 'Succeeded' || d.status === 'Failed') return { done: true, status: d.status, retryAfterMs: null };
  const newer = await em.findOne(
    WebhookDelivery,
    { organizationId: d.organizationId, webhookId: d.webhookId, eventId: d.eventId, createdAt: { $gt: d.createdAt } },
    { orderBy: { createdAt: 'desc' }, fields: ['id'] },
  );
  if (newer) {
    supersede(d, newer.id);
    await em.flush();
    return { done: true, status: d.status, retryAfterMs: null };
  }
  const sub = await em.findOne(WebhookSubscription, { id: d.webhookId, organizationId: d.organizationId });
  const event = await em.findOne(WebhookEvent, { id: d.eventId, organizationId: d.organizationId });
  const now = new Date();
  if (!sub || !event || (!sub.isEnabled && d.eventType !== 'webhook.test')) {
    d.status = 'Failed';
    d.lastError = !sub ? 'The webhook was deleted.' : !event ? 'The event no longer exists.' : 'The webhook is disabled.';
    d.nextAttemptAt = null;
    await em.flush();
    return { done: true, status: d.status, retryAfterMs: null };
  }
  const body = JSON.stringify({ type: event.type, timestamp: event.occurredAt.toISOString(), data: event.data });
  const ts = Math.floor(now.getTime() / 1000);
  const headers = {
    'webhook-id': event.id,
    'webhook-timestamp': String(ts),
    'webhook-signature': signatureHeader(signingSecrets(sub, config, now), event.id, ts, body),
  };
  const res = await postJson(sub.url, body, headers, { timeoutMs: DELIVERY_TIMEOUT_MS, allowPrivate: config.outboundAllowPrivateNetworks });
  const outcome =
    res.statusCode === null
      ? { kind: 'retry' as const, retryAfterMs: null, error: res.error ?? 'No answer.' }
      : classifyResponse(res.statusCode, res.retryAfter, Date.now());
  d.attempts += 1;
  d.lastStatusCode = res.statusCode;
  d.lastError =
    outcome.kind === 'retry' ? outcome.error.slice(0, 1000) : outcome.kind === 'gone' ? 'HTTP 410: the receiver asked to stop; webhook disabled.' : null;
  d.attemptLog = [...d.attemptLog, { at: now.toISOString(), statusCode: res.statusCode, error: d.lastError ?? null, durationMs: res.durationMs }];
  let retryAfterMs: number | null = null;
  if (outcome.kind === 'succeeded') {
    d.status = 'Succeeded';
    d.nextAttemptAt = null;
  } else if (outcome.kind === 'gone') {
    d.status = 'Failed';
    d.nextAttemptAt = null;
    sub.isEnabled = false;
    sub.disabledReason = `The receiver answered 410 Gone on ${now.toISOString()}.`;
    log.warn('webhook disabled by 410', { organizationId: sub.organizationId, webhookId: sub.id });
  } else if (input.nextDelayMs === null) {
    d.status = 'Failed';
    d.nextAttemptAt = null;
  } else {
    retryAfterMs = outcome.retryAfterMs;
    d.status = 'Retrying';
    d.nextAttemptAt = new Date(Date.now() + Math.max(input.nextDelayMs, retryAfterMs ?? 0));
  }
  await em.flush();
  return { done: d.status === 'Succeeded' || d.status === 'Failed', status: d.status, retryAfterMs };
}
