import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const RETURN_STATUSES = ['Requested', 'Approved', 'Rejected', 'Received', 'Refunded', 'Credited', 'Closed', 'Expired'] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];
export type ReturnRefundMethod = 'card' | 'credit';

/** One returned line: units of an order line, the buyer's reason and, once received, what became of them. */
export interface ReturnLine {
  orderItemId: string;
  sku: string;
  productName: string | null;
  quantity: number;
  /** Decimal strings: the order line's price and quantity × price. */
  price: string;
  amount: string;
  reason: string;
  /** Set on receipt: restock (to `locationId`, a ledger receipt) or scrap. */
  disposition: 'restock' | 'scrap' | null;
  locationId: string | null;
}

/** One step of the return's life (who and when), shown by the API and written with each state change. */
export interface ReturnStep {
  status: ReturnStatus | 'ReminderSent';
  at: string;
  by: string | null;
  note?: string | null;
}

/**
 * A return (RMA; docs/returns.md "Returns"): numbered `RMA-000001` per organization, units of one
 * order's shipped lines coming back. The row is the source of truth of its state; the returnOrder
 * workflow (id `return-<id>`) holds its timers and the money step. Primary key (organization_id, id);
 * the table is written by Migration20261129183000_returns.
 */
export const OrderReturn = defineEntity({
  name: 'OrderReturn',
  tableName: 'order_return',
  properties: {
    organizationId: p.uuid().primary(),
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    rmaNumber: p.string().length(50),
    orderId: p.uuid(),
    orderNumber: p.string().length(50),
    customerId: p.uuid().nullable(),
    customerNumber: p.string(),
    currencyCode: p.string().length(3),
    status: p.string().length(20).$type<ReturnStatus>(),
    lines: p.json<ReturnLine[]>(),
    amount: p.decimal().precision(19).scale(4),
    refundMethod: p.string().length(10).$type<ReturnRefundMethod>().nullable(),
    refundKey: p.string().length(200).nullable(),
    chargeId: p.string().length(100).nullable(),
    creditNoteId: p.uuid().nullable(),
    message: p.text().nullable(),
    steps: p.json<ReturnStep[]>(),
    requestedBy: p.string().length(100).nullable(),
    reminderSentAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type OrderReturn = InferEntity<typeof OrderReturn>;

/** Last RMA number per organization (src/services/numbering.ts). */
export const ReturnCounter = defineEntity({
  name: 'ReturnCounter',
  properties: {
    organizationId: p.uuid().primary(),
    lastValue: p.bigint().default(0),
  },
});
export type ReturnCounter = InferEntity<typeof ReturnCounter>;
