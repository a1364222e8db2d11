import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { DeliveryStatus } from '../domain/webhooks/rules.js';

/**
 * An outbound webhook subscription. The signing secret is stored encrypted (AES-256-GCM,
 * src/domain/secrets/crypto.ts); after a rotation the previous secret keeps signing until
 * `previousSecretExpiresAt`.
 */
export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    url: p.string().length(2048),
    events: p.json<string[]>(),
    description: p.string().length(500).nullable(),
    isEnabled: p.boolean().default(true),
    /** Why the service disabled it (e.g. the receiver answered 410). */
    disabledReason: p.string().length(500).nullable(),
    secretCiphertext: p.text(),
    previousSecretCiphertext: p.text().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [{ name: 'webhook_subscription_org_index', properties: ['organizationId'] }],
});
export type WebhookSubscription = InferEntity<typeof WebhookSubscription>;

/**
 * The outbox: one row per business event, written in the same transaction as the change it
 * reports (PostgreSQL triggers on orders, invoices and invoice payments; emitEvent elsewhere).
 * The dispatcher fans it out to deliveries and sets `dispatchedAt`.
 */
export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    type: p.string().length(100),
    data: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime().onCreate(() => new Date()),
    dispatchedAt: p.datetime().nullable(),
    /**
     * Set by writers that may run more than once for one change (a retried activity): the second
     * insert with the same key does nothing (`emitEventOnce`). Null for trigger and emitEvent rows.
     */
    dedupeKey: p.string().length(300).nullable(),
  },
  uniques: [{ name: 'webhook_event_dedupe_unique', properties: ['organizationId', 'dedupeKey'] }],
  indexes: [
    { name: 'webhook_event_org_index', properties: ['organizationId', 'occurredAt'] },
    {
      name: 'webhook_event_pending_index',
      expression: 'create index "webhook_event_pending_index" on "webhook_event" ("occurred_at") where "dispatched_at" is null',
    },
  ],
});
export type WebhookEvent = InferEntity<typeof WebhookEvent>;

export interface WebhookAttempt {
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** One event to one subscription; its workflow `webhook-delivery-<id>` makes the attempts. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    webhookId: p.uuid(),
    eventId: p.uuid(),
    eventType: p.string().length(100),
    status: p.string().$type<DeliveryStatus>().length(20).default('Pending'),
    attempts: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    lastError: p.string().length(1000).nullable(),
    nextAttemptAt: p.datetime().nullable(),
    attemptLog: p.json<WebhookAttempt[]>(),
    /** Set once the dispatcher started its workflow; rows without it are picked up by the dispatcher. */
    startedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    { name: 'webhook_delivery_org_hook_index', properties: ['organizationId', 'webhookId', 'createdAt'] },
    {
      name: 'webhook_delivery_unstarted_index',
      expression: 'create index "webhook_delivery_unstarted_index" on "webhook_delivery" ("created_at") where "started_at" is null',
    },
  ],
  checks: [{ name: 'webhook_delivery_status_check', expression: "status in ('Pending','Retrying','Succeeded','Failed')" }],
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
