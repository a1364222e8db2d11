/**
 * Backorders that wait for stock (docs/fulfillment.md "Backorders"; issue 41 item 3).
 *
 * A receipt (PUT /api/inventory, the `inventory` import, a positive adjustment) or a release (a
 * cancellation): any movement that makes units available, writes, in its own transaction and after its level update, an allocation request
 * per product that has waiting lines (`backorder_allocation_request`, `requestAllocation`). The
 * API's relay (`relayAllocationRequests`, every 2 s) signals the workflow `allocate-<orgId>-<sku>`
 * (allocateBackorders, signalWithStart) of each due request until an allocation deletes it, so a
 * receipt is never forgotten, whatever dies in between. The workflow's activity runs
 * `allocateBackorders`: ONE transaction, set-based (six statements whatever the number of lines),
 * that gives the available stock of the product to the waiting lines of all orders, oldest order
 * first. It is computed from the state (what is available, what waits), so running it again, after
 * a crash or for a second receipt, allocates only what is still available to what still waits:
 * nothing twice, nothing lost.
 *
 * Locks, in the order every writer takes them (so no two of them wait on each other): the orders
 * (the waiting ones, `for no key update`, as a shipment or a cancellation does), then the product's
 * levels (`for update`, as a reservation does), then the request row (as a receipt does after its
 * levels).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { signalWithStart, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { boundRows, boundSql } from '../../db/orm-sql.js';
import { claimDueSql, type Sql } from '../../db/sql.js';
import { log } from '../../logger.js';
export { requestAllocation } from './allocation-request.js';
import { allocateBackordersWorkflowId, stockArrivedSignal, type AllocateBackordersInput } from '../../workflows/allocate-backorders-defs.js';

/** What one allocation gave one order. */
export interface OrderAllocation {
  allocationId: string;
  orderId: string;
  quantity: number;
  /** Units of the SKU the order still waits for. */
  remaining: number;
}

export interface AllocationOutcome {
  sku: string | null;
  /** Units allocated by this run. */
  allocated: number;
  orders: OrderAllocation[];
}

// Every step reads the one before it (no join of two large steps: their sizes are unknown to the planner),
// so the statement stays linear in the number of waiting lines.
const ALLOCATE_SQL = `with loc as (
    select l.location_id, l.avail, sum(l.avail) over (order by l.n) as hi
      from unnest($5::uuid[], $6::int[]) with ordinality as l(location_id, avail, n) where l.avail > 0),
  total as (select coalesce(sum(avail), 0)::int as t from loc),
  waiting as (
    select i.id, i.order_id, i.position, i.backordered_quantity as q, o.order_date, o.order_number, o.order_status, i.order_id = any($7::uuid[]) as others
      from order_item i join sales_order o on o.organization_id = i.organization_id and o.id = i.order_id
     where i.organization_id = $1 and i.sku = $2 and i.backordered_quantity > 0 and i.order_id = any($4::uuid[])),
  ranked as (select w.*, sum(w.q) over (order by w.order_date, w.order_number, w.order_id, w.position, w.id) as hi from waiting w),
  calc as (select r.*, (r.hi - r.q)::int as lo, greatest(0, least(r.hi, t.t) - (r.hi - r.q))::int as taken from ranked r cross join total t),
  take as (select c.id, c.order_id, c.lo, c.lo + c.taken as hi from calc c where c.taken > 0),
  split as (
    select k.order_id, l.location_id, sum(least(k.hi, l.hi) - greatest(k.lo, l.hi - l.avail))::int as qty
      from take k join loc l on k.lo < l.hi and k.hi > l.hi - l.avail
     group by k.order_id, l.location_id),
  items as (
    update order_item i set backordered_quantity = i.backordered_quantity - (k.hi - k.lo)
      from take k where i.organization_id = $1 and i.id = k.id returning i.id),
  mv as (
    insert into stock_movement (organization_id, id, product_id, location_id, kind, quantity, reserved_quantity, reason, order_id, reference, created_by, created_at)
    select $1, gen_random_uuid(), $3, s.location_id, 'reservation', s.qty, 0, 'backorder allocated', s.order_id, null, 'backorders', clock_timestamp()
      from split s order by s.order_id, s.location_id returning 1),
  lv as (
    update stock_level s set reserved = s.reserved + x.q, updated_at = now()
      from (select location_id, sum(qty)::int as q from split group by location_id) x
     where s.organization_id = $1 and s.product_id = $3 and s.location_id = x.location_id returning 1),
  per_order as materialized (
    select gen_random_uuid() as allocation_id, c.order_id, min(c.order_number) as order_number, min(c.order_status) as order_status,
           sum(c.q)::int as waited, sum(c.taken)::int as quantity, bool_or(c.others) as others
      from calc c group by c.order_id having sum(c.taken) > 0),
  al as (
    insert into backorder_allocation (organization_id, id, order_id, sku, quantity, remaining, allocated_at)
    select $1, p.allocation_id, p.order_id, $2, p.quantity, p.waited - p.quantity, now() from per_order p order by p.order_id returning 1),
  st as (
    update sales_order o set order_status = 'Processing', updated_at = now()
     where o.organization_id = $1 and o.id in (select p.order_id from per_order p where p.waited = p.quantity and not p.others) and o.order_status = 'Pending' returning o.id),
  ev as (
    insert into webhook_event (id, organization_id, type, data, occurred_at, dispatched_at, dedupe_key)
    select gen_random_uuid(), $1, 'order.allocated',
           jsonb_build_object('orderId', p.order_id, 'orderNumber', p.order_number, 'sku', $2::text, 'allocatedQuantity', p.quantity,
                              'backorderedQuantity', p.waited - p.quantity, 'fullyAllocated', p.waited = p.quantity and not p.others,
                              'orderStatus', case when p.waited = p.quantity and not p.others and p.order_status = 'Pending' then 'Processing' else p.order_status end),
           now(), null, 'allocation-' || p.allocation_id
      from per_order p
    on conflict (organization_id, dedupe_key) do nothing returning 1)
  select p.allocation_id as "allocationId", p.order_id as "orderId", p.quantity, p.waited - p.quantity as remaining from per_order p order by p.order_id`;

/**
 * Allocates the product's available stock to its waiting lines, oldest order first, in the caller's
 * transaction (six statements: the request's version, the waiting orders locked, the levels
 * locked, the orders also waiting for other SKUs, the allocation, the request's removal). The allocation statement moves each served
 * line's backorderedQuantity down, writes one reservation movement per order and location with
 * the levels' reserved, records one `backorder_allocation` per order, moves a Pending order whose
 * last waiting unit was served to Processing and writes its `order.allocated` event. Locations
 * serve in the reservation's order (priority, default, code). Idempotent by construction.
 */
export async function allocateBackorders(sql: Sql, orgId: string, productId: string): Promise<AllocationOutcome> {
  const [p] = await sql<{ sku: string; version: string | null }>(
    `select p.sku, r.version::text as version from product p
       left join backorder_allocation_request r on r.organization_id = p.organization_id and r.product_id = p.id
      where p.organization_id = $1 and p.id = $2`,
    [orgId, productId],
  );
  if (!p) return { sku: null, allocated: 0, orders: [] };
  const orders = await sql<{ id: string }>(
    `select o.id from sales_order o
      where o.organization_id = $1 and o.order_status in ('Pending', 'Processing')
        and o.id in (select i.order_id from order_item i where i.organization_id = $1 and i.sku = $2 and i.backordered_quantity > 0)
      order by o.id for no key update of o`,
    [orgId, p.sku],
  );
  let out: OrderAllocation[] = [];
  if (orders.length) {
    const levels = await sql<{ location_id: string; available: number; priority: number; is_default: boolean; code: string }>(
      `select s.location_id, s.on_hand - s.reserved as available, loc.priority, loc.is_default, loc.code
         from stock_level s join stock_location loc on loc.organization_id = s.organization_id and loc.id = s.location_id and loc.active
        where s.organization_id = $1 and s.product_id = $2 order by s.location_id for update of s`,
      [orgId, productId],
    );
    const serving = levels
      .filter((l) => l.available > 0)
      .sort((a, b) => a.priority - b.priority || Number(b.is_default) - Number(a.is_default) || a.code.localeCompare(b.code));
    if (serving.length) {
      const ids = orders.map((o) => o.id);
      // Orders that also wait for other SKUs (they stay Pending when this one is served): one pass over the organization's waiting lines.
      const others = await sql<{ order_id: string }>(
        `select distinct x.order_id from order_item x where x.organization_id = $1 and x.backordered_quantity > 0 and x.sku <> $2 and x.order_id = any($3::uuid[])`,
        [orgId, p.sku, ids],
      );
      out = await sql<OrderAllocation>(ALLOCATE_SQL, [orgId, p.sku, productId, ids, serving.map((l) => l.location_id), serving.map((l) => l.available), others.map((o) => o.order_id)]);
    }
  }
  if (p.version !== null)
    await sql('delete from backorder_allocation_request where organization_id = $1 and product_id = $2 and version = $3::bigint', [orgId, productId, p.version]);
  return { sku: p.sku, allocated: out.reduce((n, o) => n + o.quantity, 0), orders: out };
}

/** The activity's transaction: allocateBackorders on the ORM's connection. */
export async function runAllocation(orm: MikroORM, input: AllocateBackordersInput): Promise<AllocationOutcome> {
  return orm.em.fork().transactional((tx) => allocateBackorders(boundSql(tx), input.organizationId, input.productId));
}

const BATCH = 50;

/**
 * One relay pass (the API, every 2 s; src/services/workflow-outbox.ts): claims due allocation
 * requests (skip locked), signals each product's allocateBackorders workflow (starting it when it
 * does not run) and pushes the request's next attempt back; the allocation itself deletes the
 * request, so a signal that was lost, or a worker that died, is followed by another.
 */
export async function relayAllocationRequests(orm: MikroORM, client: Client, config: Config): Promise<number> {
  const em = orm.em.fork();
  const rows = await boundRows<{ organization_id: string; product_id: string; sku: string }>(
    em,
    claimDueSql({ table: 'backorder_allocation_request', id: 'product_id', backoffSeconds: 5, limit: BATCH, returning: ['sku'] }),
  );
  let sent = 0;
  for (const r of rows) {
    try {
      await signalAllocation(client, config, { organizationId: r.organization_id, productId: r.product_id, sku: r.sku });
      sent++;
    } catch (e) {
      await boundRows(em, 'update backorder_allocation_request set last_error = $1 where organization_id = $2 and product_id = $3', [
        String(e).slice(0, 500),
        r.organization_id,
        r.product_id,
      ]);
      break;
    }
  }
  if (sent) log.info('backorder allocations requested', { sent });
  return sent;
}

/** Signals (or starts) the allocateBackorders workflow of one product. */
export async function signalAllocation(client: Client, config: Config, input: AllocateBackordersInput): Promise<void> {
  await signalWithStart(client, config, {
    workflowType: 'allocateBackorders',
    workflowId: allocateBackordersWorkflowId(input.organizationId, input.sku),
    args: [input],
    keys: { organizationId: input.organizationId, businessKeys: [input.sku] },
    about: { what: `Backorder allocation of ${input.sku}` },
    signal: stockArrivedSignal,
    signalArgs: [],
  });
}
