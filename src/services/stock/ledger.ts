/**
 * The stock ledger (docs/fulfillment.md "Stock" and "Reservations"): every change of a level is a
 * movement, and the level row (on hand, reserved) is written by the same statement as its
 * movements, so the two never disagree: on hand = receipts + adjustments - shipments; reserved =
 * reservations - releases - reservations consumed by shipments. For a tracked product the
 * product's `quantity_on_hand` is kept equal to the sum of its levels by the same statement.
 *
 * Every function takes the caller's transaction as an `Sql` handle (src/db/sql.ts: `inTransaction`'s,
 * or `boundSql(tem)` inside an ORM transaction) and writes nothing outside it.
 */
import { AppError } from '../../errors.js';
import type { Sql } from '../../db/sql.js';
import { requestAllocation } from './allocation-request.js';
import { allocateLines, byServingOrder, shortageErrors, type LevelFact, type LineAllocation, type MovementKind, type OrderLine } from '../../domain/stock/allocate.js';

export type { MovementKind, LineAllocation };

/** One movement to write. `quantity` is signed only for adjustments; `reservedQuantity`: the reservation a shipment consumes. */
export interface Movement {
  productId: string;
  locationId: string;
  kind: MovementKind;
  quantity: number;
  reservedQuantity?: number;
  reason?: string | null;
  orderId?: string | null;
  reference?: string | null;
  createdBy?: string | null;
}

const deltas = (m: Movement): { oh: number; rv: number } => {
  switch (m.kind) {
    case 'receipt':
    case 'adjustment':
      return { oh: m.quantity, rv: 0 };
    case 'reservation':
      return { oh: 0, rv: m.quantity };
    case 'release':
      return { oh: 0, rv: -m.quantity };
    case 'shipment':
      return { oh: -m.quantity, rv: -(m.reservedQuantity ?? 0) };
  }
};

/** A level after its movements. */
export interface LevelRow {
  product_id: string;
  location_id: string;
  on_hand: number;
  reserved: number;
}

/**
 * Writes movements and their levels in ONE statement: the levels are moved by the summed deltas
 * (a level that does not exist is created at 0 first, by one more statement, when a receipt,
 * adjustment or shipment may name one), the movements inserted, and the products'
 * `quantity_on_hand` moved by the on-hand deltas. A level that would fall below 0 on hand, or
 * below what it has reserved, refuses the whole statement (409).
 */
export async function applyMovements(sql: Sql, orgId: string, moves: readonly Movement[]): Promise<LevelRow[]> {
  const rows = moves.filter((m) => m.quantity !== 0 || (m.reservedQuantity ?? 0) !== 0);
  if (!rows.length) return [];
  const payload = rows.map((m, n) => ({
    n,
    product_id: m.productId,
    location_id: m.locationId,
    kind: m.kind,
    quantity: m.quantity,
    reserved_quantity: m.reservedQuantity ?? 0,
    oh: deltas(m).oh,
    rv: deltas(m).rv,
    reason: m.reason ?? null,
    order_id: m.orderId ?? null,
    reference: m.reference ?? null,
    created_by: m.createdBy ?? null,
  }));
  try {
    // A level that does not exist yet starts at 0 (receipts, adjustments, shipments may name one; a reservation or release
    // names levels it read). Its own statement: an INSERT ... ON CONFLICT checks the proposed row's constraints before it
    // finds the conflict, so the deltas cannot ride on it.
    if (rows.some((m) => m.kind !== 'reservation' && m.kind !== 'release'))
      await sql(
        `insert into stock_level (organization_id, product_id, location_id, on_hand, reserved, updated_at)
         select $1, k.p, k.l, 0, 0, now() from unnest($2::uuid[], $3::uuid[]) as k(p, l) order by k.p, k.l
         on conflict (organization_id, product_id, location_id) do nothing`,
        [orgId, rows.map((m) => m.productId), rows.map((m) => m.locationId)],
      );
    const levels = await sql<LevelRow>(
      `with m as (select * from jsonb_to_recordset($2::jsonb) as r(n int, product_id uuid, location_id uuid, kind text, quantity int, reserved_quantity int,
                    oh int, rv int, reason text, order_id uuid, reference text, created_by text)),
            d as (select product_id, location_id, sum(oh)::int as oh, sum(rv)::int as rv from m group by product_id, location_id),
            lv as (update stock_level s set on_hand = s.on_hand + d.oh, reserved = s.reserved + d.rv, updated_at = now()
                     from d where s.organization_id = $1 and s.product_id = d.product_id and s.location_id = d.location_id
                   returning s.product_id, s.location_id, s.on_hand, s.reserved),
            mv as (insert into stock_movement (organization_id, id, product_id, location_id, kind, quantity, reserved_quantity, reason, order_id, reference, created_by, created_at)
                   select $1, gen_random_uuid(), product_id, location_id, kind, quantity, reserved_quantity, reason, order_id, reference, created_by, clock_timestamp()
                     from m order by n returning 1),
            pq as (update product p set quantity_on_hand = p.quantity_on_hand + x.oh
                     from (select product_id, sum(oh)::int as oh from d group by product_id having sum(oh) <> 0) x
                    where p.organization_id = $1 and p.id = x.product_id returning 1)
       select product_id, location_id, on_hand, reserved from lv`,
      [orgId, JSON.stringify(payload)],
    );
    // Units became available (a receipt, a positive adjustment, or a release: a cancellation gives
    // back what its order held): waiting backorders of these products are allocated by the
    // allocateBackorders workflow (./backorders.ts). After the levels, so the request row is locked
    // after them, as the allocation locks them.
    const grown = [...new Set(payload.filter((m) => m.oh - m.rv > 0).map((m) => m.product_id))];
    if (grown.length) await requestAllocation(sql, orgId, grown);
    return levels;
  } catch (e) {
    throw stockConflict(e);
  }
}

/** A level's check refused the write: the 409 saying why; any other error as it is. */
export function stockConflict(e: unknown): unknown {
  if (violates(e, 'stock_level_on_hand_check')) return AppError.conflict('Not enough stock on hand at the location: on hand cannot fall below 0.');
  if (violates(e, 'stock_level_reserved_check'))
    return AppError.conflict('On hand at the location cannot fall below what is reserved there for orders; release or ship those first.');
  return e;
}

/** A check constraint violation of `constraint` (the pg error, or the ORM's conversion of it). */
function violates(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string; message?: string; cause?: unknown } | null;
  if (!e) return false;
  if (e.constraint === constraint || (typeof e.message === 'string' && e.message.includes(constraint))) return true;
  return e.cause ? violates(e.cause, constraint) : false;
}

// ---------------------------------------------------------------------------------------------
// Reservations

interface FactRow {
  product_id: string;
  sku: string;
  allow_backorder: boolean;
  lead_time_days: number | null;
  location_id: string | null;
  on_hand: number | null;
  reserved: number | null;
  priority: number | null;
  is_default: boolean | null;
  code: string | null;
}

const toFact = (r: FactRow): LevelFact => ({
  productId: r.product_id,
  sku: r.sku,
  allowBackorder: r.allow_backorder,
  leadTimeDays: r.lead_time_days,
  locationId: r.location_id,
  onHand: r.on_hand ?? 0,
  reserved: r.reserved ?? 0,
  priority: r.priority ?? 0,
  isDefault: !!r.is_default,
  code: r.code ?? '',
});

/**
 * The tracked products among `skus` with their levels at active locations, the levels locked
 * (FOR UPDATE, in sku order so concurrent orders lock in one order): concurrent reservations of
 * the same product wait here and each reads what the one before left.
 */
const LOCKED_FACTS = `select p.id as product_id, p.sku, p.allow_backorder, p.lead_time_days, l.location_id, l.on_hand, l.reserved, l.priority, l.is_default, l.code
  from (select id, organization_id, sku, allow_backorder, lead_time_days from product
         where organization_id = $1 and sku = any($2::text[]) and track_inventory order by sku) p
  left join lateral (
    select s.location_id, s.on_hand, s.reserved, loc.priority, loc.is_default, loc.code
      from stock_level s join stock_location loc on loc.organization_id = s.organization_id and loc.id = s.location_id and loc.active
     where s.organization_id = p.organization_id and s.product_id = p.id
     order by s.location_id
       for update of s) l on true`;

/**
 * Reserves the tracked lines of an order in the caller's transaction (the order's): two statements
 * when a line is tracked (the locked read, then the movements with their levels), one when none is.
 * Lines beyond what is available are backordered when the product allows it; otherwise nothing is
 * reserved and the order is refused (409, `items[i]` naming each short line and what is available).
 * Answers each tracked line's allocation (`backordered` > 0: the quantity waiting for stock).
 */
export async function reserveOrderStock(sql: Sql, orgId: string, orderId: string, lines: readonly OrderLine[]): Promise<LineAllocation[]> {
  if (!lines.length) return [];
  const facts = (await sql<FactRow>(LOCKED_FACTS, [orgId, [...new Set(lines.map((l) => l.sku))]])).map(toFact);
  if (!facts.length) return [];
  const { allocations, shortages } = allocateLines(lines, facts);
  if (shortages.length) {
    const what = shortages.map((s) => `${s.sku} (${s.requested} requested, ${s.available} available)`).join('; ');
    throw new AppError('conflict', `Not enough stock for ${shortages.length === 1 ? 'a line' : 'lines'} of the order: ${what}. Nothing was reserved.`, shortageErrors(shortages));
  }
  await applyMovements(
    sql,
    orgId,
    allocations.flatMap((a) => a.takes.map((t) => ({ productId: a.productId, locationId: t.locationId, kind: 'reservation' as const, quantity: t.quantity, orderId }))),
  );
  return allocations;
}

/** What an order still holds reserved, per product and location (reservations - releases - reservations shipped). */
interface Outstanding {
  product_id: string;
  sku: string;
  location_id: string;
  outstanding: number;
}

const OUTSTANDING = `select m.product_id, p.sku, m.location_id,
    sum(case m.kind when 'reservation' then m.quantity when 'release' then -m.quantity when 'shipment' then -m.reserved_quantity else 0 end)::int as outstanding
  from stock_movement m join product p on p.organization_id = m.organization_id and p.id = m.product_id
 where m.organization_id = $1 and m.order_id = $2
 group by m.product_id, p.sku, m.location_id`;

/** Takes the order's row lock, so the releases and shipments of one order are computed one at a time. */
async function lockOrder(sql: Sql, orgId: string, orderId: string): Promise<void> {
  await sql('select 1 from sales_order where organization_id = $1 and id = $2 for no key update', [orgId, orderId]);
}

/**
 * Releases what an order still holds reserved (all of it, or up to `lines`' quantities per SKU),
 * in the caller's transaction, under the order's row lock. Exactly once: the outstanding
 * reservation is computed from the ledger, so a second call releases nothing more. Answers what
 * was released.
 */
export async function releaseOrderStock(
  sql: Sql,
  orgId: string,
  orderId: string,
  lines?: readonly { sku: string; quantity: number }[],
): Promise<{ sku: string; locationId: string; quantity: number }[]> {
  await lockOrder(sql, orgId, orderId);
  const held = (await sql<Outstanding>(OUTSTANDING, [orgId, orderId])).filter((r) => r.outstanding > 0);
  if (!held.length) return [];
  const limit = lines ? new Map<string, number>() : null;
  for (const l of lines ?? []) limit!.set(l.sku, (limit!.get(l.sku) ?? 0) + l.quantity);
  const out: { sku: string; locationId: string; quantity: number; productId: string }[] = [];
  for (const r of held) {
    const left = limit ? (limit.get(r.sku) ?? 0) : r.outstanding;
    const q = Math.min(left, r.outstanding);
    if (q <= 0) continue;
    if (limit) limit.set(r.sku, left - q);
    out.push({ sku: r.sku, locationId: r.location_id, quantity: q, productId: r.product_id });
  }
  await applyMovements(
    sql,
    orgId,
    out.map((o) => ({ productId: o.productId, locationId: o.locationId, kind: 'release' as const, quantity: o.quantity, orderId })),
  );
  return out.map(({ sku, locationId, quantity }) => ({ sku, locationId, quantity }));
}

/** A shipped line: the location its units left from (null: the SKU is not tracked, nothing was written). */
export interface ShippedLine {
  sku: string;
  quantity: number;
  locationId: string | null;
}

/**
 * Writes the shipment movements of an order's shipped lines in the caller's transaction, under the
 * order's row lock: on hand decreases at the line's location and the order's reservation there is
 * consumed (reserved decreases by at most the line's quantity). The location is the line's
 * `locationId` when given (404 unless it is one of the organization's), else the one holding most
 * of the order's reservation of that SKU, else the first in serving order with enough available.
 * Untracked SKUs are ignored. 409 when the location has not enough on hand (or unreserved stock
 * for the part the order had not reserved there). Answers each line with the location used.
 */
export async function shipStock(sql: Sql, orgId: string, orderId: string, lines: readonly { sku: string; quantity: number; locationId?: string }[]): Promise<ShippedLine[]> {
  if (!lines.length) return [];
  await lockOrder(sql, orgId, orderId);
  const skus = [...new Set(lines.map((l) => l.sku))];
  const facts = (
    await sql<FactRow>(
      `select p.id as product_id, p.sku, p.allow_backorder, p.lead_time_days, s.location_id, s.on_hand, s.reserved, loc.priority, loc.is_default, loc.code
         from product p
         left join stock_level s on s.organization_id = p.organization_id and s.product_id = p.id
         left join stock_location loc on loc.organization_id = s.organization_id and loc.id = s.location_id
        where p.organization_id = $1 and p.sku = any($2::text[]) and p.track_inventory`,
      [orgId, skus],
    )
  ).map(toFact);
  const tracked = new Map<string, LevelFact[]>();
  for (const f of facts) tracked.set(f.sku, [...(tracked.get(f.sku) ?? []), f]);
  const named = [...new Set(lines.filter((l) => l.locationId && tracked.has(l.sku)).map((l) => l.locationId!))];
  if (named.length) {
    const known = await sql<{ id: string }>('select id from stock_location where organization_id = $1 and id = any($2::uuid[])', [orgId, named]);
    if (known.length !== named.length) throw AppError.notFound('Stock location');
  }
  const held = new Map<string, number>();
  for (const r of await sql<Outstanding>(OUTSTANDING, [orgId, orderId])) if (r.outstanding > 0) held.set(`${r.sku}/${r.location_id}`, r.outstanding);
  const moves: Movement[] = [];
  const shipped: ShippedLine[] = lines.map((line) => {
    const levels = tracked.get(line.sku);
    if (!levels) return { sku: line.sku, quantity: line.quantity, locationId: null };
    const located = levels.filter((f) => f.locationId);
    const mostHeld = located.map((f) => ({ f, h: held.get(`${line.sku}/${f.locationId}`) ?? 0 })).sort((a, b) => b.h - a.h)[0];
    const locationId =
      line.locationId ??
      (mostHeld && mostHeld.h > 0 ? mostHeld.f.locationId : null) ??
      located.sort(byServingOrder).find((f) => f.onHand - f.reserved >= line.quantity)?.locationId ??
      located.sort(byServingOrder)[0]?.locationId;
    if (!locationId) throw AppError.conflict(`${line.sku} has no stock at any location; nothing was shipped.`);
    const k = `${line.sku}/${locationId}`;
    const consumed = Math.min(held.get(k) ?? 0, line.quantity);
    held.set(k, (held.get(k) ?? 0) - consumed);
    moves.push({ productId: levels[0].productId, locationId, kind: 'shipment', quantity: line.quantity, reservedQuantity: consumed, orderId });
    return { sku: line.sku, quantity: line.quantity, locationId };
  });
  await applyMovements(sql, orgId, moves);
  return shipped;
}
