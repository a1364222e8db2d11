/**
 * The invoice of an order placed through checkout or an accepted quote: created Issued from the
 * order (lines, customer snapshot, poNumber, totals) and paid by the card charge that paid for it
 * (on account: unpaid, due by the customer's terms). Idempotent: the invoice is keyed by externalId
 * `order-<orderId>` and the payment by the caller's key (`checkout-<cartId>`, `quote-<quoteId>`),
 * so a retried activity finds and returns what the first attempt wrote.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Invoice, Order } from '../../entities/index.js';
import { isUniqueViolation } from '../../errors.js';
import { PREPAID_TERMS } from '../../domain/credit/terms.js';
import { onAccountTerms } from '../credit/accounts.js';
import { allocateNumber, INVOICE_NUMBERS } from '../numbering.js';
import { boundSql } from '../../db/orm-sql.js';
import { applyPayment, recordInvoicePayment, type RecordPaymentInput } from './record-payment.js';

/** The card charge as the invoice's payment (null: nothing charged or nothing to pay). */
function paymentOf(inv: Invoice, input: OrderInvoiceInput): RecordPaymentInput | null {
  if (!new Decimal(inv.total).gt(0) || !input.chargeId) return null;
  return {
    organizationId: input.organizationId,
    invoiceId: inv.id,
    amount: new Decimal(inv.total).toFixed(),
    currencyCode: inv.currencyCode,
    method: 'Card',
    paymentDate: new Date(),
    reference: input.chargeId,
    paymentProfileId: input.paymentProfileId ?? null,
    providerChargeId: input.chargeId,
    idempotencyKey: input.paymentKey,
  };
}

export interface OrderInvoiceInput {
  organizationId: string;
  orderId: string;
  chargeId: string | null;
  /** The payment's idempotency key: the checkout's (`checkout-<cartId>`) or the quote accept's (`quote-<quoteId>`). */
  paymentKey: string;
  paymentProfileId?: string | null;
}

/**
 * The order's invoice, written (with its card payment) or found; idempotent per order and payment
 * key. Null for an on-account order invoiced per shipment: its shipments are invoiced instead
 * (./per-shipment.ts, docs/fulfillment.md "Invoicing").
 */
export async function invoiceOrder(em: EntityManager, input: OrderInvoiceInput): Promise<{ invoiceId: string; invoiceNumber: string; customerNumber: string } | null> {
  const externalId = `order-${input.orderId}`;
  let inv = await em.fork().findOne(Invoice, { organization: input.organizationId, externalId });
  // A new invoice is written with its card payment in one transaction (one round trip fewer per
  // statement than recordInvoicePayment's own transaction, same rows and checks: applyPayment).
  let paid = false;
  if (!inv) {
    const order = await em.fork().findOneOrFail(Order, { id: input.orderId, organization: input.organizationId }, { populate: ['items'] });
    if (order.invoicePerShipment) return null;
    try {
      inv = await em.fork().transactional((tx) => writeOrderInvoice(tx, order, input));
      paid = true;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      inv = await em.fork().findOneOrFail(Invoice, { organization: input.organizationId, externalId });
    }
  }
  // An invoice written by an earlier attempt (or before payments were written with it): idempotent per key.
  const payment = paid ? null : paymentOf(inv, input);
  if (payment) await recordInvoicePayment(em.fork(), payment);
  return { invoiceId: inv.id, invoiceNumber: inv.invoiceNumber, customerNumber: inv.customerNumber };
}

/** The order's invoice as the workflows take it (checkoutCart, negotiateQuote). */
export interface OrderInvoice {
  invoiceId: string;
  invoiceNumber: string;
  customerNumber: string;
}

/** The customer as an invoice of `order` records it (a copy of the order's customer at issue time). */
export function invoiceCustomer(order: Pick<Order, 'customer'>) {
  const c = order.customer;
  return {
    customerNumber: c.customerNumber,
    companyName: c.companyName ?? null,
    companyEmail: c.companyEmail ?? null,
    companyPhone: c.companyPhone ?? null,
    billingAddress: c.billingAddress ?? null,
    shippingAddress: c.shippingAddress ?? null,
  };
}

/**
 * Writes the invoice of `order` (stored already: its id is known), Issued, with its card payment
 * when there is one, in the caller's transaction (flushed by the caller). Used by invoiceOrder and
 * by checkout's order step, which writes the order and its invoice in one transaction
 * (src/services/carts/checkout-steps.ts, createOrderFromCart).
 */
export async function writeOrderInvoice(tx: EntityManager, order: Order, input: OrderInvoiceInput): Promise<Invoice> {
  const now = new Date();
  // On account: due by the customer's payment terms; a card-paid order's invoice is paid at once, so its
  // terms are Prepaid whatever the customer's default terms (the order keeps those).
  const onAccount = order.paymentMethod === 'OnAccount';
  const due = onAccount ? await onAccountTerms(tx, input.organizationId, order.customerId ?? null, now) : { terms: PREPAID_TERMS, dueDate: now };
  const created = tx.create(Invoice, {
    organization: input.organizationId,
    orderId: order.id,
    orderNumber: order.orderNumber,
    invoiceNumber: await allocateNumber(boundSql(tx), INVOICE_NUMBERS, input.organizationId),
    externalId: `order-${order.id}`,
    status: 'Issued',
    invoiceDate: now,
    dueDate: due.dueDate,
    terms: due.terms,
    currencyCode: order.currencyCode,
    poNumber: order.poNumber ?? null,
    notes: onAccount ? `On account (order ${order.orderNumber}).` : `Paid at checkout (order ${order.orderNumber}).`,
    customerNumber: order.customerNumber,
    customerId: order.customerId ?? null,
    customer: invoiceCustomer(order),
    primarySalesRep: { ...(order.primarySalesRep ?? {}) },
    // Each line keeps the price list that priced the order's line (absent: the tier, or a price given as is).
    items: order.items
      .getItems()
      .map((l) => ({ sku: l.sku, productName: l.productName, quantity: l.quantity, price: new Decimal(l.price).toFixed(), ...(l.priceListId ? { priceListId: l.priceListId } : {}) })),
    taxInput: new Decimal(order.tax ?? 0).toFixed(),
    subtotal: new Decimal(order.subtotal).toFixed(),
    discountAmount: new Decimal(order.discountAmount ?? 0).toFixed(),
    tax: new Decimal(order.tax ?? 0).toFixed(),
    total: new Decimal(order.total).toFixed(),
    importedPaid: '0',
    amountPaid: '0',
    active: true,
    createdAt: now,
    updatedAt: now,
  });
  const payment = paymentOf(created, input);
  if (payment) applyPayment(tx, created, payment);
  return created;
}
