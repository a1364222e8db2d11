/**
 * Shipments of an order (issue 41 item 4, docs/fulfillment.md): POST /api/orders/{orderId}/shipments
 * writes the shipment, its lines, the lines' shippedQuantity, the order's status (Processing, then
 * Shipped once every unit left), the stock it takes (./stock-link.ts) and its webhook events in one
 * transaction under the order's row lock (and, for an order invoiced per shipment, the shipment's
 * invoice: ../invoices/per-shipment.ts), then hands the order to its fulfillOrder workflow
 * (`fulfillment-<orderId>`: e-mail, auto-complete timer, completion). Delivery confirmations go
 * through the workflow too, which completes the order after the last one.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isWorkflowNotFound, startOnce, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { boundRows, boundSql } from '../../db/orm-sql.js';
import type { Out } from '../../domain/contract.js';
import { cannotShip, planShipment, statusAfterShipment, type RequestedLine } from '../../domain/fulfillment/rules.js';
import type { shipment } from '../../domain/fulfillment/responses.js';
import { UUID_RE } from '../../domain/ids.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { deliveryConfirmedUpdate, fulfillmentWorkflowId, shipmentsChangedSignal, type FulfillOrderInput } from '../../workflows/fulfill-order-defs.js';
import { allocateNumber, SHIPMENT_NUMBERS } from '../numbering.js';
import { findOrder } from '../orders/orders.js';
import { emitEventOnce } from '../webhooks/events.js';
import { invoiceShipment } from '../invoices/per-shipment.js';
import { recordShipmentStock } from './stock-link.js';

export interface ShipmentRequest {
  lines: RequestedLine[];
  locationId?: string | null;
  carrier?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
}

export interface FulfillmentDeps {
  em: EntityManager;
  temporal: Client;
  config: Config;
}

type ShipmentView = Out<typeof shipment>;

interface ShipmentRow {
  id: string;
  orderId: string;
  orderNumber: string;
  orderStatus: string;
  shipmentNumber: string;
  status: 'Shipped' | 'Delivered';
  locationId: string | null;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  shippedAt: Date | string;
  deliveredAt: Date | string | null;
  lines: { sku: string; quantity: number }[] | null;
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function view(r: ShipmentRow): ShipmentView {
  return {
    id: r.id,
    orderId: r.orderId,
    orderNumber: r.orderNumber,
    shipmentNumber: r.shipmentNumber,
    status: r.status,
    locationId: r.locationId,
    carrier: r.carrier,
    trackingNumber: r.trackingNumber,
    trackingUrl: r.trackingUrl,
    shippedAt: iso(r.shippedAt)!,
    deliveredAt: iso(r.deliveredAt),
    lines: r.lines ?? [],
    orderStatus: r.orderStatus,
  };
}

/** The shipments of one order (organization_id leads every predicate), lines in their order. */
const SHIPMENTS_SQL = `select s.id, s.order_id as "orderId", o.order_number as "orderNumber", o.order_status as "orderStatus",
    s.shipment_number as "shipmentNumber", s.status, s.location_id as "locationId", s.carrier, s.tracking_number as "trackingNumber",
    s.tracking_url as "trackingUrl", s.shipped_at as "shippedAt", s.delivered_at as "deliveredAt",
    (select json_agg(json_build_object('sku', l.sku, 'quantity', l.quantity) order by l.position)
       from shipment_line l where l.organization_id = s.organization_id and l.shipment_id = s.id) as lines
  from shipment s join sales_order o on o.organization_id = s.organization_id and o.id = s.order_id
 where s.organization_id = $1 and s.order_id = $2`;

/** The webhook payload of a shipment. */
const shipmentEvent = (s: ShipmentView) => ({
  shipmentId: s.id,
  shipmentNumber: s.shipmentNumber,
  orderId: s.orderId,
  orderNumber: s.orderNumber,
  carrier: s.carrier,
  trackingNumber: s.trackingNumber,
  trackingUrl: s.trackingUrl,
  lines: s.lines,
  shippedAt: s.shippedAt,
});

interface LockedOrder {
  orderStatus: string;
  orderNumber: string;
  customerNumber: string;
  invoicePerShipment: boolean;
}

interface LockedLine {
  id: string;
  sku: string;
  quantity: number;
  shippedQuantity: number;
}

/**
 * Ships lines of an order (Admin, or the sales rep of the order's customer): 201 with the shipment.
 * 400 names each bad line (unknown SKU, more than remains); 409 when the order cannot ship
 * (Cancelled, PendingApproval, everything shipped).
 */
export async function createShipment(deps: FulfillmentDeps, orgId: string, auth: Principal, orderId: string, body: ShipmentRequest): Promise<ShipmentView> {
  const order = await findOrder(deps.em, orgId, auth, orderId);
  const id = randomUUID();
  const created = await deps.em.fork().transactional(async (tx) => {
    const [o] = await boundRows<LockedOrder>(
      tx,
      `select order_status as "orderStatus", order_number as "orderNumber", customer_number as "customerNumber",
              invoice_per_shipment as "invoicePerShipment"
         from sales_order where organization_id = $1 and id = $2 for update`,
      [orgId, order.id],
    );
    if (!o) throw AppError.notFound('Order');
    const refused = cannotShip(o.orderStatus);
    if (refused) throw AppError.conflict(refused);
    // Cancelled units never ship (docs/returns.md "Cancellation"): a line's quantity here is what was ordered less what was cancelled.
    const lines = await boundRows<LockedLine>(
      tx,
      `select id, sku, quantity - cancelled_quantity as quantity, shipped_quantity as "shippedQuantity" from order_item where organization_id = $1 and order_id = $2 order by position, id`,
      [orgId, order.id],
    );
    const plan = planShipment(lines, body.lines);
    if (!plan.ok) throw AppError.validation(plan.errors);
    const after = lines.map((l, i) => ({ ...l, shippedQuantity: plan.shipped[i] }));
    const status = statusAfterShipment(after);
    const number = await allocateNumber(boundSql(tx), SHIPMENT_NUMBERS, orgId);
    await boundRows(
      tx,
      `insert into shipment (organization_id, id, order_id, shipment_number, status, location_id, carrier, tracking_number, tracking_url, shipped_at, created_by_user_id, created_at)
       values ($1, $2, $3, $4, 'Shipped', $5, $6, $7, $8, now(), $9, now())`,
      [orgId, id, order.id, number, body.locationId ?? null, body.carrier ?? null, body.trackingNumber ?? null, body.trackingUrl ?? null, auth.userId ?? auth.subject],
    );
    await boundRows(
      tx,
      `insert into shipment_line (organization_id, shipment_id, position, sku, quantity)
       select $1, $2, x.ord::int, x.sku, x.quantity from unnest($3::text[], $4::int[]) with ordinality as x(sku, quantity, ord)`,
      [orgId, id, body.lines.map((l) => l.sku), body.lines.map((l) => l.quantity)],
    );
    const changed = after.filter((l, i) => l.shippedQuantity !== lines[i].shippedQuantity);
    await boundRows(
      tx,
      `update order_item i set shipped_quantity = x.q from unnest($2::uuid[], $3::int[]) as x(id, q) where i.organization_id = $1 and i.id = x.id`,
      [orgId, changed.map((l) => l.id), changed.map((l) => l.shippedQuantity)],
    );
    await boundRows(tx, `update sales_order set order_status = $3, fulfillment_managed = true, updated_at = now() where organization_id = $1 and id = $2`, [orgId, order.id, status]);
    await recordShipmentStock(
      tx,
      orgId,
      order.id,
      body.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, locationId: body.locationId ?? null })),
    );
    // An on-account order invoiced per shipment: this shipment's invoice, issued through the outbox (docs/fulfillment.md "Invoicing").
    if (o.invoicePerShipment)
      await invoiceShipment(
        tx,
        orgId,
        order.id,
        { id, shipmentNumber: number },
        lines.map((l, i) => ({ orderItemId: l.id, shippedBefore: l.shippedQuantity, shippedNow: after[i].shippedQuantity - l.shippedQuantity })),
      );
    const [row] = await boundRows<ShipmentRow>(tx, `${SHIPMENTS_SQL} and s.id = $3`, [orgId, order.id, id]);
    const v = view(row);
    await emitEventOnce(tx, orgId, 'shipment.created', shipmentEvent(v), `shipment-${id}-created`);
    if (status === 'Shipped') await emitEventOnce(tx, orgId, 'order.shipped', { orderId: order.id, orderNumber: o.orderNumber, orderStatus: status }, `order-${order.id}-shipped`);
    return { view: v, locked: o };
  });
  await wakeFulfillment(deps, orgId, order.id, created.locked, created.view.shipmentNumber);
  return created.view;
}

/**
 * Starts the order's fulfillOrder workflow (once per order; kept in the start outbox while Temporal
 * is away), or tells the running one that a shipment was written. A signal that cannot be delivered
 * loses nothing the database holds: the workflow reads every shipment again on its next wake-up.
 */
async function wakeFulfillment(deps: FulfillmentDeps, orgId: string, orderId: string, o: LockedOrder, shipmentNumber: string): Promise<void> {
  const input: FulfillOrderInput = { organizationId: orgId, orderId, orderNumber: o.orderNumber, customerNumber: o.customerNumber, autoCompleteMs: deps.config.fulfillment.autoCompleteMs };
  const started = await startOnce(deps.temporal, deps.config, {
    workflowType: 'fulfillOrder',
    workflowId: fulfillmentWorkflowId(orderId),
    args: [input],
    keys: { organizationId: orgId, customerNumber: o.customerNumber, orderNumber: o.orderNumber, businessKeys: [shipmentNumber] },
    about: { what: `Fulfill order ${o.orderNumber}` },
  });
  if (started) return;
  try {
    await deps.temporal.workflow.getHandle(fulfillmentWorkflowId(orderId)).signal(shipmentsChangedSignal);
  } catch {
    // Closed already (the order completed) or Temporal away: the shipment is stored and answered;
    // the workflow reads every shipment again on its next wake-up (a delivery, its timer).
  }
}

export const shipmentListSpec: ListSpec = {
  filters: {},
  sorts: { ShippedAt: 'shippedAt', ShipmentNumber: 'shipmentNumber' },
  defaultSort: 'ShippedAt',
};

/** GET /api/orders/{orderId}/shipments: the order's own read rules (Admin, its customer's rep, the customer), oldest first. */
export async function listShipments(em: EntityManager, orgId: string, auth: Principal, orderId: string, query: Record<string, unknown>) {
  const order = await findOrder(em, orgId, auth, orderId);
  const q = parseList(query, shipmentListSpec);
  const [[key, dir]] = Object.entries(q.orderBy) as [[string, string]];
  const column = key === 'shipmentNumber' ? 'x."shipmentNumber"' : 'x."shippedAt"';
  const rows = await boundRows<ShipmentRow & { total: string }>(
    em,
    `select x.*, count(*) over () as total from (${SHIPMENTS_SQL}) x order by ${column} ${dir === 'desc' ? 'desc' : 'asc'}, x.id limit $3 offset $4`,
    [orgId, order.id, q.pageSize, q.offset],
  );
  return genericEnvelope(rows.map(view), rows.length ? Number(rows[0].total) : 0, q);
}

const currentStatus = async (em: EntityManager, orgId: string, orderId: string) =>
  (await boundRows<{ s: string }>(em, `select order_status as s from sales_order where organization_id = $1 and id = $2`, [orgId, orderId]))[0]?.s;

/** One shipment of a visible order (404 otherwise). */
export async function readShipment(em: EntityManager, orgId: string, auth: Principal, orderId: string, shipmentId: string): Promise<ShipmentView> {
  const order = await findOrder(em, orgId, auth, orderId);
  if (!UUID_RE.test(shipmentId)) throw AppError.notFound('Shipment');
  const [row] = await boundRows<ShipmentRow>(em, `${SHIPMENTS_SQL} and s.id = $3`, [orgId, order.id, shipmentId]);
  if (!row) throw AppError.notFound('Shipment');
  return view(row);
}

/**
 * POST /api/orders/{orderId}/shipments/{shipmentId}/delivered: records the delivery (repeating it
 * changes nothing) and tells the fulfillOrder workflow, which completes a Shipped order once every
 * shipment's delivery is confirmed; answers the shipment with the order's status after that.
 */
export async function confirmDelivery(deps: FulfillmentDeps, orgId: string, auth: Principal, orderId: string, shipmentId: string): Promise<ShipmentView> {
  const order = await findOrder(deps.em, orgId, auth, orderId);
  if (!UUID_RE.test(shipmentId)) throw AppError.notFound('Shipment');
  const updated = await boundRows<{ id: string }>(
    deps.em,
    `update shipment set status = 'Delivered', delivered_at = coalesce(delivered_at, now()) where organization_id = $1 and order_id = $2 and id = $3 returning id`,
    [orgId, order.id, shipmentId],
  );
  if (!updated.length) throw AppError.notFound('Shipment');
  try {
    await deps.temporal.workflow.getHandle(fulfillmentWorkflowId(order.id)).executeUpdate(deliveryConfirmedUpdate, { args: [{ shipmentId }] });
  } catch (e) {
    // The workflow has finished (the order is Complete): the delivery is recorded, nothing else to do.
    if (!isWorkflowNotFound(e) && (await currentStatus(deps.em, orgId, order.id)) !== 'Complete') throw e;
  }
  return readShipment(deps.em, orgId, auth, order.id, shipmentId);
}
