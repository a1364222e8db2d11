import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A credited invoice line: `quantity` of the invoice's line `sku` at the line's price (exact decimal strings). */
export interface CreditNoteLine {
  sku: string;
  productName: string | null;
  quantity: number;
  price: string;
  amount: string;
}

/** One application of a credit note to an open invoice: a payment with method `CreditNote` on that invoice. */
export interface CreditNoteApplication {
  invoiceId: string;
  invoiceNumber: string;
  paymentId: string;
  amount: string;
  appliedAt: string;
}

/**
 * A credit note (docs/returns.md "Credit notes"): numbered `CN-000001` per organization, crediting
 * `amount` of one invoice (and its order) to the customer. What is applied to open invoices is
 * `amountApplied` (each application a payment on that invoice); the rest is available credit.
 * `source`/`sourceId` make automatic issuers (an order cancellation) exactly-once. Primary key
 * (organization_id, id); the table is written by Migration20261129160000_credit_notes.
 */
export const CreditNote = defineEntity({
  name: 'CreditNote',
  properties: {
    organizationId: p.uuid().primary(),
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    creditNoteNumber: p.string().length(50),
    invoiceId: p.uuid(),
    invoiceNumber: p.string(),
    orderId: p.uuid().nullable(),
    orderNumber: p.string().nullable(),
    customerId: p.uuid().nullable(),
    customerNumber: p.string(),
    currencyCode: p.string().length(3),
    amount: p.decimal().precision(19).scale(4),
    amountApplied: p.decimal().precision(19).scale(4).default('0'),
    /** Credit paid back to the card (a cancelled card order's note): reserved when issued, refund status Pending until the provider refunded it. */
    amountRefunded: p.decimal().precision(19).scale(4).default('0'),
    refundStatus: p.string().length(20).$type<'Pending' | 'Refunded'>().nullable(),
    reason: p.text(),
    lines: p.json<CreditNoteLine[]>().nullable(),
    /** The merchandise amount of the credited lines (0 for an amount-only credit): what analytics subtract. */
    merchandiseAmount: p.decimal().precision(19).scale(4).default('0'),
    applications: p.json<CreditNoteApplication[]>(),
    source: p.string().length(20).default('Manual'),
    sourceId: p.string().length(200).nullable(),
    pdfKey: p.string().length(500).nullable(),
    issuedBy: p.string().length(100).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type CreditNote = InferEntity<typeof CreditNote>;

/** Last credit note number per organization (src/services/numbering.ts). */
export const CreditNoteCounter = defineEntity({
  name: 'CreditNoteCounter',
  properties: {
    organizationId: p.uuid().primary(),
    lastValue: p.bigint().default(0),
  },
});
export type CreditNoteCounter = InferEntity<typeof CreditNoteCounter>;

/** One line of a cancellation: the order line, its sku and price, and the units cancelled. */
export interface CancellationLine {
  orderItemId: string;
  sku: string;
  productName: string | null;
  quantity: number;
  price: string;
  amount: string;
}

/**
 * An order cancellation (docs/returns.md "Cancellation"): the cancelled lines and amount, the reason,
 * the card refund (key `order-cancel-<id>`, status Pending until the refundOrderCancellation workflow
 * recorded it) and the credit note it issued. Primary key (organization_id, id).
 */
export const OrderCancellation = defineEntity({
  name: 'OrderCancellation',
  properties: {
    organizationId: p.uuid().primary(),
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    orderId: p.uuid(),
    orderNumber: p.string().length(50),
    customerId: p.uuid().nullable(),
    customerNumber: p.string(),
    currencyCode: p.string().length(3),
    lines: p.json<CancellationLine[]>(),
    amount: p.decimal().precision(19).scale(4),
    merchandiseAmount: p.decimal().precision(19).scale(4),
    /** What of `amount` the order's invoice could not absorb as a credit note (refunded or credited already): neither credited nor refunded. */
    uncreditedAmount: p.decimal().precision(19).scale(4).default('0'),
    wholeOrder: p.boolean(),
    reason: p.text(),
    refundKey: p.string().length(200).nullable(),
    refundStatus: p.string().length(20).$type<'Pending' | 'Refunded'>().nullable(),
    chargeId: p.string().length(100).nullable(),
    creditNoteId: p.uuid().nullable(),
    cancelledBy: p.string().length(100).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type OrderCancellation = InferEntity<typeof OrderCancellation>;
