/**
 * The fulfillOrder workflow's one step (src/activities/fulfillment.ts delegates here): read the
 * order's shipments and, when the order is Shipped and every shipment's delivery is confirmed (or
 * the auto-complete timer fired), complete it with its `order.completed` event in one transaction.
 * Idempotent: the completion is a conditional update (Shipped -> Complete) and the event is keyed
 * per order, so a retried or repeated step completes and announces the order once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { completesNow } from '../../domain/fulfillment/rules.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { emitEventOnce } from '../webhooks/events.js';

export interface SyncFulfillmentInput {
  organizationId: string;
  orderId: string;
  /** The auto-complete timer fired: a Shipped order completes whatever its deliveries. */
  timerFired: boolean;
  /** The backorder escalation timer fired: when units still wait, the admins get the escalation e-mail. */
  escalationDue?: boolean;
}

export interface SyncFulfillmentResult {
  orderStatus: string;
  /** Every shipment of the order, oldest first. */
  shipments: { id: string; shipmentNumber: string }[];
  /**
   * The shipment e-mail of each shipment (to the order's customer e-mail), keyed `shipment-<shipmentId>`;
   * the e-mail of each backorder allocation (`backorder-allocated-<allocationId>`); when the escalation
   * is due and units still wait, one to each admin (`backorder-escalation-<orderId>-<userId>`).
   */
  mails: SendEmailInput[];
  /** Units of the order's lines waiting for stock. */
  backordered?: number;
  /** When a waiting order is escalated (epoch ms: the order date plus the organization's backorderEscalationDays). */
  escalateAt?: number;
  /** The deployment's auto-complete wait (FULFILLMENT_AUTO_COMPLETE_DAYS), for workflows started without one. */
  autoCompleteMs?: number;
}

interface Row {
  orderStatus: string;
  orderNumber: string;
  customerNumber: string;
  companyEmail: string | null;
  shipments: { id: string; shipmentNumber: string; delivered: boolean; carrier: string | null; trackingNumber: string | null; trackingUrl: string | null; units: number }[] | null;
  orderDate: string;
  backordered: number;
  escalationDays: number;
  allocations: { id: string; sku: string; quantity: number; remaining: number }[] | null;
}

const READ_SQL = `select o.order_status as "orderStatus", o.order_number as "orderNumber", o.customer_number as "customerNumber",
    o.customer->>'companyEmail' as "companyEmail",
    (select json_agg(json_build_object('id', s.id, 'shipmentNumber', s.shipment_number, 'delivered', s.delivered_at is not null,
                                       'carrier', s.carrier, 'trackingNumber', s.tracking_number, 'trackingUrl', s.tracking_url,
                                       'units', (select coalesce(sum(l.quantity), 0) from shipment_line l where l.organization_id = s.organization_id and l.shipment_id = s.id))
                     order by s.shipped_at, s.shipment_number)
       from shipment s where s.organization_id = o.organization_id and s.order_id = o.id) as shipments,
    o.order_date as "orderDate",
    (select coalesce(sum(i.backordered_quantity), 0)::int from order_item i where i.organization_id = o.organization_id and i.order_id = o.id) as backordered,
    (select g.backorder_escalation_days from organization g where g.id = o.organization_id) as "escalationDays",
    (select json_agg(json_build_object('id', a.id, 'sku', a.sku, 'quantity', a.quantity, 'remaining', a.remaining) order by a.allocated_at, a.id)
       from backorder_allocation a where a.organization_id = o.organization_id and a.order_id = o.id) as allocations
  from sales_order o where o.organization_id = $1 and o.id = $2`;

export async function syncFulfillment(em: EntityManager, config: Config, input: SyncFulfillmentInput): Promise<SyncFulfillmentResult> {
  const { organizationId: orgId, orderId } = input;
  const read = async (q: EntityManager) => (await boundRows<Row>(q, READ_SQL, [orgId, orderId]))[0];
  let row = await read(em);
  if (!row) return { orderStatus: 'Missing', shipments: [], mails: [] };
  const shipments = row.shipments ?? [];
  const orderNumber = row.orderNumber;
  if (completesNow(row.orderStatus, shipments, input.timerFired)) {
    row = await em.transactional(async (tx) => {
      const done = await boundRows<{ id: string }>(
        tx,
        `update sales_order set order_status = 'Complete', updated_at = now() where organization_id = $1 and id = $2 and order_status = 'Shipped' returning id`,
        [orgId, orderId],
      );
      if (done.length)
        await emitEventOnce(
          tx,
          orgId,
          'order.completed',
          { orderId, orderNumber, orderStatus: 'Complete', completedBy: input.timerFired ? 'autoComplete' : 'delivery' },
          `order-${orderId}-completed`,
        );
      return (await read(tx)) ?? row;
    });
  }
  const to = row.companyEmail;
  const mails: SendEmailInput[] = to
    ? shipments.map((s) => ({
        emailId: `shipment-${s.id}`,
        organizationId: orgId,
        template: 'shipment-notification',
        to,
        data: {
          orderNumber: row.orderNumber,
          shipmentNumber: s.shipmentNumber,
          customerNumber: row.customerNumber,
          units: s.units,
          carrier: s.carrier,
          trackingNumber: s.trackingNumber,
          trackingUrl: s.trackingUrl,
        },
      }))
    : [];
  if (to)
    for (const a of row.allocations ?? [])
      mails.push({
        emailId: `backorder-allocated-${a.id}`,
        organizationId: orgId,
        template: 'backorder-allocated',
        to,
        data: { orderNumber: row.orderNumber, customerNumber: row.customerNumber, sku: a.sku, quantity: a.quantity, remaining: a.remaining },
      });
  const open = !['Complete', 'Cancelled'].includes(row.orderStatus);
  if (input.escalationDue && open && row.backordered > 0) {
    const admins = await boundRows<{ user_id: string; email: string }>(
      em,
      `select u.id as user_id, u.email from organization_member m join app_user u on u.id = m.user_id where m.organization_id = $1 and m.is_admin order by u.id`,
      [orgId],
    );
    for (const a of admins)
      mails.push({
        emailId: `backorder-escalation-${orderId}-${a.user_id}`,
        organizationId: orgId,
        template: 'backorder-escalation',
        to: a.email,
        data: { orderNumber: row.orderNumber, customerNumber: row.customerNumber, backordered: row.backordered, days: row.escalationDays },
      });
  }
  return {
    orderStatus: row.orderStatus,
    shipments: shipments.map((s) => ({ id: s.id, shipmentNumber: s.shipmentNumber })),
    mails,
    backordered: open ? row.backordered : 0,
    escalateAt: new Date(row.orderDate).getTime() + row.escalationDays * config.fulfillment.escalationDayMs,
    autoCompleteMs: config.fulfillment.autoCompleteMs,
  };
}
