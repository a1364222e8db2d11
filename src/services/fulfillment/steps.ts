/**
 * The fulfillOrder workflow's one step (src/activities/fulfillment.ts delegates here): read the
 * order's shipments and, when the order is Shipped and every shipment's delivery is confirmed (or
 * the auto-complete timer fired), complete it with its `order.completed` event in one transaction.
 * Idempotent: the completion is a conditional update (Shipped -> Complete) and the event is keyed
 * per order, so a retried or repeated step completes and announces the order once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundRows } from '../../db/orm-sql.js';
import { completesNow } from '../../domain/fulfillment/rules.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { emitEventOnce } from '../webhooks/events.js';

export interface SyncFulfillmentInput {
  organizationId: string;
  orderId: string;
  /** The auto-complete timer fired: a Shipped order completes whatever its deliveries. */
  timerFired: boolean;
}

export interface SyncFulfillmentResult {
  orderStatus: string;
  /** Every shipment of the order, oldest first. */
  shipments: { id: string; shipmentNumber: string }[];
  /** The shipment e-mail of each shipment (to the order's customer e-mail), keyed `shipment-<shipmentId>`. */
  mails: SendEmailInput[];
}

interface Row {
  orderStatus: string;
  orderNumber: string;
  customerNumber: string;
  companyEmail: string | null;
  shipments: { id: string; shipmentNumber: string; delivered: boolean; carrier: string | null; trackingNumber: string | null; trackingUrl: string | null; units: number }[] | null;
}

const READ_SQL = `select o.order_status as "orderStatus", o.order_number as "orderNumber", o.customer_number as "customerNumber",
    o.customer->>'companyEmail' as "companyEmail",
    (select json_agg(json_build_object('id', s.id, 'shipmentNumber', s.shipment_number, 'delivered', s.delivered_at is not null,
                                       'carrier', s.carrier, 'trackingNumber', s.tracking_number, 'trackingUrl', s.tracking_url,
                                       'units', (select coalesce(sum(l.quantity), 0) from shipment_line l where l.organization_id = s.organization_id and l.shipment_id = s.id))
                     order by s.shipped_at, s.shipment_number)
       from shipment s where s.organization_id = o.organization_id and s.order_id = o.id) as shipments
  from sales_order o where o.organization_id = $1 and o.id = $2`;

export async function syncFulfillment(em: EntityManager, input: SyncFulfillmentInput): Promise<SyncFulfillmentResult> {
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
  return { orderStatus: row.orderStatus, shipments: shipments.map((s) => ({ id: s.id, shipmentNumber: s.shipmentNumber })), mails };
}
