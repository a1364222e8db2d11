/** Outbound webhook rules without I/O: event types, subscription matching, retry schedule, response outcomes. */

export const WEBHOOK_EVENT_TYPES = [
  'order.created',
  'order.status_changed',
  'order.cancelled',
  'invoice.issued',
  'invoice.paid',
  'invoice.voided',
  'invoice.reminder_sent',
  'customer.credit_hold_placed',
  'customer.credit_hold_released',
  'payment.succeeded',
  'payment.failed',
  'payment.reconciled',
  'import.completed',
  'commission_statement.approved',
  'quote.requested',
  'quote.updated',
  'quote.accepted',
  'quote.expired',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.expired',
  'approval.superseded',
  'approval.withdrawn',
  'shipment.created',
  'order.shipped',
  'order.completed',
  'order.backordered',
  'order.allocated',
  'credit_note.issued',
  'credit_note.applied',
  'price_list.activated',
  'price_list.expired',
  'return.requested',
  'return.approved',
  'return.rejected',
  'return.received',
  'return.refunded',
  'return.credited',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * What a subscription may name: every event type but `webhook.test` (sent only by
 * `POST /api/webhooks/{id}/test`, to the subscription tested), or `*` for all of them.
 */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [...WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test'), '*'];

export type DeliveryStatus = 'Pending' | 'Retrying' | 'Succeeded' | 'Failed';

/** Whether a subscription's event list (`["*"]` = all) selects an event type; `webhook.test` goes only where asked. */
export function subscriptionMatches(events: readonly string[], type: string): boolean {
  if (type === 'webhook.test') return false;
  return events.includes('*') || events.includes(type);
}

/** Delays before each attempt (DESIGN): at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const;

/** The schedule in milliseconds scaled by a factor (tests shrink it); each delay is a whole, non-negative number. */
export function retryDelaysMs(scale = 1): number[] {
  return RETRY_SCHEDULE_SECONDS.map((s) => Math.max(0, Math.round(s * 1000 * scale)));
}

export const DELIVERY_TIMEOUT_MS = 15_000;

/** Retry-After as milliseconds (delta seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export type AttemptOutcome =
  | { kind: 'succeeded' }
  /** 410 Gone: the receiver asks us to stop; the subscription is disabled. */
  | { kind: 'gone' }
  | { kind: 'retry'; retryAfterMs: number | null; error: string };

/** What an HTTP answer means for a delivery (Standard Webhooks: 2xx is success, redirects are failures). */
export function classifyResponse(status: number, retryAfter: string | null, nowMs: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'gone' };
  const honour = status === 429 || status === 503;
  const kind = status >= 300 && status < 400 ? 'redirect (not followed)' : 'status';
  return { kind: 'retry', retryAfterMs: honour ? parseRetryAfter(retryAfter, nowMs) : null, error: `HTTP ${status} ${kind === 'status' ? '' : kind}`.trim() };
}

/** The outbox dispatcher's one workflow id per namespace. */
export const WEBHOOK_DISPATCHER_ID = 'webhook-dispatcher';
