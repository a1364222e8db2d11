/**
 * Writing events to the outbox. Orders, invoices and invoice payments write theirs through
 * PostgreSQL triggers (migration Migration*_webhooks); other features call emitEvent inside
 * the transaction of the change, so the event commits (or rolls back) with it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookEventType } from '../../domain/webhooks/rules.js';
import { WebhookEvent } from '../../entities/Webhook.js';

/**
 * Adds an outbox row to `em`'s unit of work; it is written by the caller's next flush or
 * transaction commit. Returns the event id (the `webhook-id` receivers see).
 */
export function emitEvent(em: EntityManager, organizationId: string, type: WebhookEventType, data: Record<string, unknown>): string {
  const event = em.create(WebhookEvent, { organizationId, type, data, occurredAt: new Date(), dispatchedAt: null });
  return event.id;
}
