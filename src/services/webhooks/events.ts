/**
 * Writing events to the outbox. Orders, invoices and invoice payments write theirs through
 * PostgreSQL triggers (migration Migration*_webhooks); other features call emitEvent inside
 * the transaction of the change, so the event commits (or rolls back) with it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundRows } from '../../db/orm-sql.js';
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

const ONCE_SQL = `insert into webhook_event (id, organization_id, type, data, occurred_at, dispatched_at, dedupe_key)
   values (gen_random_uuid(), $1, $2, $3::jsonb, now(), null, $4)
   on conflict (organization_id, dedupe_key) do nothing returning id`;

/**
 * Writes an outbox row at once, in `em`'s current transaction when it has one, unless a row of
 * the organization with the same `key` exists (a retried activity writes its event once).
 * Returns the new event id, or null when the key was already written.
 */
export async function emitEventOnce(em: EntityManager, organizationId: string, type: WebhookEventType, data: Record<string, unknown>, key: string): Promise<string | null> {
  const rows = await boundRows<{ id: string }>(em, ONCE_SQL, [organizationId, type, JSON.stringify(data), key]);
  return rows[0]?.id ?? null;
}

/** emitEventOnce for code on a plain pg connection (`$n` parameters), e.g. the import workers' transactions. */
export async function emitEventOnceSql(
  sql: (text: string, params: unknown[]) => Promise<{ id: string }[]>,
  organizationId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
  key: string,
): Promise<string | null> {
  const rows = await sql(ONCE_SQL, [organizationId, type, JSON.stringify(data), key]);
  return rows[0]?.id ?? null;
}
