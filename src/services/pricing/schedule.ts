/**
 * The schedule of a price list (docs/pricing.md "Scheduled prices"): `price_list.activated` when an
 * Active list starts to price (max(validFrom, activeSince)), `price_list.expired` when it stops (its
 * validTo, or the change that ended it), each once per period in force. One function decides and
 * writes both (`syncSchedule`): under the list's row lock it compares the list with the activation
 * it announced (`activated_at`) and writes the due event through the webhook outbox in the same
 * transaction, so a retried activity, a restarted worker or a request racing the timer never
 * announces a period twice. Requests that change the list call it in their own transaction (an
 * activation or expiry they cause is announced at once); the priceListSchedule workflow calls it at
 * each boundary in time (src/workflows/price-list-schedule.ts), one run per schedule version.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { startOnce, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { scheduleStep, type ExpiryReason } from '../../domain/pricing/price-lists.js';
import { log } from '../../logger.js';
import { priceListScheduleWorkflowId, priceListSupersededSignal, type PriceListScheduleInput, type PriceListScheduleStep } from '../../workflows/price-list-schedule-defs.js';
import { emitEventOnce } from '../webhooks/events.js';

interface Row {
  id: string;
  name: string;
  currency_code: string;
  priority: number;
  status: string;
  valid_from: Date | null;
  valid_to: Date | null;
  active_since: Date | null;
  activated_at: Date | null;
  version: number;
}

const at = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The payload both events share: the list as it stands. */
function listData(r: Row) {
  return {
    priceListId: r.id,
    name: r.name,
    currencyCode: r.currency_code,
    priority: r.priority,
    status: r.status,
    validFrom: iso(at(r.valid_from)),
    validTo: iso(at(r.valid_to)),
  };
}

async function lockList(tx: EntityManager, orgId: string, priceListId: string): Promise<Row | null> {
  const rows = await boundRows<Row>(
    tx,
    `select id, name, currency_code, priority, status, valid_from, valid_to, active_since, activated_at, version
       from price_list where organization_id = $1 and id = $2 for update`,
    [orgId, priceListId],
  );
  return rows[0] ?? null;
}

async function announceExpiry(tx: EntityManager, orgId: string, r: Row, activatedAt: Date, expiredAt: Date, reason: ExpiryReason | 'Deleted'): Promise<void> {
  await emitEventOnce(
    tx,
    orgId,
    'price_list.expired',
    { ...listData(r), activatedAt: activatedAt.toISOString(), expiredAt: expiredAt.toISOString(), reason },
    `price-list-${r.id}-v${r.version}-expired-${activatedAt.toISOString()}`,
  );
}

/**
 * Announces what is due for the list at `now` and answers the next boundary (null: none left, the
 * list is gone, or `version` is given and the list has moved on to a newer one). Runs in `em`'s
 * transaction when it has one, else in its own.
 */
export async function syncSchedule(em: EntityManager, orgId: string, priceListId: string, opts: { version?: number; now?: Date } = {}): Promise<{ next: Date | null; version: number } | null> {
  return em.transactional(async (tx) => {
    const r = await lockList(tx, orgId, priceListId);
    if (!r || (opts.version !== undefined && r.version !== opts.version)) return null;
    const now = opts.now ?? new Date();
    const facts = { status: r.status, validFrom: at(r.valid_from), validTo: at(r.valid_to), activeSince: at(r.active_since), activatedAt: at(r.activated_at) };
    const { event, next } = scheduleStep(facts, now);
    if (event?.type === 'activated') {
      await emitEventOnce(tx, orgId, 'price_list.activated', { ...listData(r), activatedAt: event.activatedAt.toISOString() }, `price-list-${r.id}-v${r.version}-activated`);
      await boundRows(tx, 'update price_list set activated_at = $3 where organization_id = $1 and id = $2', [orgId, r.id, event.activatedAt]);
    } else if (event?.type === 'expired') {
      await announceExpiry(tx, orgId, r, event.activatedAt, event.expiredAt, event.reason);
      await boundRows(tx, 'update price_list set activated_at = null where organization_id = $1 and id = $2', [orgId, r.id]);
    }
    return { next, version: r.version };
  });
}

/** The activity: one sync of the run's version; the next boundary as an ISO string. */
export async function syncPriceListSchedule(em: EntityManager, input: PriceListScheduleInput): Promise<PriceListScheduleStep> {
  const s = await syncSchedule(em, input.organizationId, input.priceListId, { version: input.version });
  return { next: s?.next ? s.next.toISOString() : null };
}

/** A list being deleted while it prices: its period ends with `price_list.expired` (reason Deleted), in the delete's transaction. */
export async function expireOnDelete(tx: EntityManager, orgId: string, priceListId: string): Promise<void> {
  const r = await lockList(tx, orgId, priceListId);
  if (r?.activated_at) await announceExpiry(tx, orgId, r, at(r.activated_at)!, new Date(), 'Deleted');
}

/**
 * After a change of the list's schedule (committed): starts the timer of its new version when a
 * boundary is ahead (once; kept in the start outbox while Temporal is away) and tells the run of
 * the previous version to stand down. A signal that does not arrive loses nothing: that run stands
 * down when it wakes and finds a newer version.
 */
export async function rescheduleTimer(deps: { temporal: Client; config: Config }, orgId: string, priceListId: string, version: number, next: Date | null): Promise<void> {
  if (next) {
    await startOnce(deps.temporal, deps.config, {
      workflowType: 'priceListSchedule',
      workflowId: priceListScheduleWorkflowId(priceListId, version),
      args: [{ organizationId: orgId, priceListId, version } satisfies PriceListScheduleInput],
      keys: { organizationId: orgId, businessKeys: [priceListId] },
      about: { what: `Schedule of price list ${priceListId} (version ${version}, next boundary ${next.toISOString()})` },
    });
  }
  if (version > 1) await standDownTimer(deps, priceListId, version - 1);
}

/** Tells the run of `version` (if one runs) to end; a signal that does not arrive is harmless (see rescheduleTimer). */
export async function standDownTimer(deps: { temporal: Client }, priceListId: string, version: number): Promise<void> {
  try {
    await deps.temporal.workflow.getHandle(priceListScheduleWorkflowId(priceListId, version)).signal(priceListSupersededSignal);
  } catch (e) {
    // None ran for that version (no boundary was ahead), it ended, or Temporal is away.
    log.debug('price list schedule: no run to stand down', { priceListId, version, error: String(e).slice(0, 200) });
  }
}
