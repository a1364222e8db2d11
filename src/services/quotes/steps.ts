/**
 * The quote workflow's writes (called by src/activities/quotes.ts). Temporal runs each at least
 * once, so each is idempotent: a step's version carries its key, a final state is not written
 * twice, and the order of an accepted quote is found by its quote (unique per organization).
 * Each write re-checks the state under the quote's row lock (the workflow already serialized the
 * steps; the lock keeps the row the one truth) and writes its webhook event in the same transaction.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { amountDue } from '../../domain/orders/totals.js';
import { ApplicationFailure } from '@temporalio/common';
import { quoteMove } from '../../domain/quotes/rules.js';
import { Customer, Order, Quote } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { QUOTE_WRONG_STATE, type QuoteAcceptInput, type QuoteOrder, type QuoteState, type QuoteStepInput } from '../../workflows/negotiate-quote-defs.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { createOrder, customerSnapshot, repSnapshot, toOrderAddress } from '../orders/create.js';
import { reserveCredit } from '../credit/accounts.js';
import { invoiceOrder, type OrderInvoice } from '../invoices/from-order.js';
import { decideOrderInvoicing } from '../invoices/per-shipment.js';
import { emitEventOnce } from '../webhooks/events.js';
import { quoteEvent } from './quotes.js';

const wrongState = (message: string) => ApplicationFailure.create({ type: QUOTE_WRONG_STATE, message, nonRetryable: true });

export const stateOf = (q: Quote): QuoteState => ({ status: q.status, expiresAt: q.expiresAt ? q.expiresAt.toISOString() : null, orderId: q.orderId ?? null, orderNumber: q.orderNumber ?? null });

async function lockQuote(tx: EntityManager, organizationId: string, quoteId: string): Promise<Quote> {
  const q = await tx.findOne(Quote, { organizationId, id: quoteId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!q) throw AppError.notFound('Quote');
  return q;
}

/** Offer, counter, reject or expire, under the row lock; a step already written (its key, or the final state it leads to) is answered as it stands. */
export async function applyQuoteStep(em: EntityManager, input: QuoteStepInput): Promise<QuoteState> {
  return em.fork().transactional(async (tx) => {
    const q = await lockQuote(tx, input.organizationId, input.quoteId);
    if (q.versions.some((v) => v.key === input.key)) return stateOf(q);
    if (input.action === 'reject' && q.status === 'Rejected') return stateOf(q);
    if (input.action === 'expire' && q.status !== 'Quoted') return stateOf(q);
    const m = quoteMove(q.status, input.action, { side: input.side ?? undefined });
    if (!m.ok) throw wrongState(m.reason);
    q.status = m.to;
    if (input.action === 'offer' || input.action === 'counter') {
      if (!input.version) throw new Error('version required');
      q.versions = [...q.versions, { ...input.version, version: q.versions.length + 1, key: input.key }];
      q.expiresAt = input.action === 'offer' && input.version.expiresAt ? new Date(input.version.expiresAt) : null;
    }
    if (input.action === 'reject') q.rejectionReason = input.reason ?? null;
    q.updatedAt = new Date(input.at);
    await tx.flush();
    await emitEventOnce(tx, input.organizationId, input.action === 'expire' ? 'quote.expired' : 'quote.updated', quoteEvent(q), `quote-${q.id}-${input.key}`);
    return stateOf(q);
  });
}

const orderInfo = (o: Order, customerNumber: string): QuoteOrder => ({
  orderId: o.id,
  orderNumber: o.orderNumber,
  customerEmail: o.customer.companyEmail ?? null,
  total: o.total,
  currency: o.currencyCode,
  customerNumber,
});

/** The offer a Quoted quote can be accepted at now (a WrongState refusal otherwise). */
function acceptableOffer(q: Quote, at: string) {
  const m = quoteMove(q.status, 'accept', { expiresAtMs: q.expiresAt?.getTime() ?? null, nowMs: new Date(at).getTime() });
  if (!m.ok) throw wrongState(m.reason);
  const offer = [...q.versions].reverse().find((v) => v.kind === 'Offer');
  if (!offer) throw wrongState('The quote has no offer to accept.');
  return offer;
}

/** What a card accept charges before the order is written: the current offer's total in the quote's currency. */
export async function quoteAcceptAmount(em: EntityManager, input: { organizationId: string; quoteId: string; at: string }): Promise<{ amount: string; currency: string }> {
  const q = await em.fork().findOneOrFail(Quote, { organizationId: input.organizationId, id: input.quoteId });
  const offer = acceptableOffer(q, input.at);
  return { amount: amountDue(offer.lines.map((l) => ({ price: l.netUnitPrice ?? l.unitPrice ?? '0', quantity: l.quantity })), q.currencyCode), currency: q.currencyCode };
}

/**
 * The order of an accepted quote, at the last offer's net unit prices, through the one createOrder;
 * the quote becomes Accepted (naming its order) in the order's transaction. A retry finds the order.
 * On account (no chargeId) the credit admission runs in that transaction; a card accept names its
 * charge and the amount charged, which the order must come to (else 409; the workflow voids it).
 */
export async function acceptQuoteOrder(em: EntityManager, input: QuoteAcceptInput): Promise<QuoteOrder> {
  const { organizationId: orgId, quoteId } = input;
  const existing = await em.fork().findOne(Order, { organization: orgId, quoteId });
  if (existing) return orderInfo(existing, existing.customerNumber);
  const q = await em.fork().findOneOrFail(Quote, { organizationId: orgId, id: quoteId });
  const offer = acceptableOffer(q, input.at);
  const f = em.fork();
  const customer = q.customerId ? await f.findOne(Customer, { organization: orgId, id: q.customerId }, { populate: ['addresses'] }) : null;
  if (!customer) throw wrongState('The customer of this quote no longer exists.');
  const shipping = customer.addresses.getItems().find((a) => a.addressType === 'Shipping' && a.isPrimary) ?? customer.addresses.getItems().find((a) => a.addressType === 'Shipping');
  try {
    const order = await createOrder(
      f,
      orgId,
      {
        orderType: 'Standard',
        poNumber: input.poNumber,
        priceTier: q.priceTier,
        currencyCode: q.currencyCode,
        terms: customer.terms ?? null,
        channel: 'Quote',
        externalId: null,
        notes: `From quote ${q.quoteNumber} (version ${offer.version}).`,
        originationCartId: null,
        customer: customerSnapshot(customer, toOrderAddress(shipping)),
        customerId: customer.id,
        primarySalesRep: await repSnapshot(f, orgId, customer.repNumber),
        takenBySalesRep: offer.by.repNumber ? await repSnapshot(f, orgId, offer.by.repNumber) : null,
        repNumber: customer.repNumber ?? null,
        shippingDetails: null,
        tax: 0,
        items: offer.lines.map((l) => ({ sku: l.sku, productName: l.productName, quantity: l.quantity, price: l.netUnitPrice ?? l.unitPrice ?? '0' })),
        paymentChargeId: input.chargeId ?? null,
        createdByUserId: input.by.userId,
        createdByUserType: input.by.role,
      },
      {
        withinTransaction: async (tem, order) => {
          order.quoteId = q.id;
          if (input.chargeId) {
            // Paid by the card charged for exactly this total.
            if (input.amount !== undefined && !new Decimal(order.total).eq(input.amount))
              throw AppError.conflict(`The quote now comes to ${order.total} ${order.currencyCode}, not the ${input.amount} charged; the charge is voided.`);
          } else {
            // On account within the customer's credit limit: the one credit admission (402 beyond it, 409 on credit hold,
            // 400 in another currency; it locks the customer row), so its invoice is due by the customer's terms (docs/credit.md).
            await reserveCredit(tem, orgId, order);
            // Invoiced now or per shipment, as the organization says (docs/fulfillment.md "Invoicing").
            await decideOrderInvoicing(tem, orgId, order);
          }
          const locked = await lockQuote(tem, orgId, quoteId);
          const again = quoteMove(locked.status, 'accept');
          if (!again.ok) throw wrongState(again.reason);
          locked.status = 'Accepted';
          locked.orderId = order.id;
          locked.orderNumber = order.orderNumber;
          locked.updatedAt = new Date(input.at);
          await tem.flush();
          await emitEventOnce(tem, orgId, 'quote.accepted', quoteEvent(locked), `quote-${q.id}-accepted`);
        },
      },
    );
    return orderInfo(order, q.customerNumber);
  } catch (e) {
    if (!isUniqueViolation(e, 'order_org_quote_unique')) throw e;
    const o = await em.fork().findOneOrFail(Order, { organization: orgId, quoteId });
    return orderInfo(o, o.customerNumber);
  }
}

/** The reminder to the buyer (the customer's stored company e-mail) while offer `version` is still open; null otherwise. */
export async function quoteReminderMail(em: EntityManager, input: { organizationId: string; quoteId: string; version: number }): Promise<SendEmailInput | null> {
  const f = em.fork();
  const q = await f.findOne(Quote, { organizationId: input.organizationId, id: input.quoteId });
  if (!q || q.status !== 'Quoted' || q.versions.length !== input.version) return null;
  const customer = q.customerId ? await f.findOne(Customer, { organization: input.organizationId, id: q.customerId }) : null;
  if (!customer?.companyEmail) return null;
  const offer = q.versions[q.versions.length - 1];
  return {
    emailId: `quote-reminder-${q.id}-v${input.version}`,
    organizationId: input.organizationId,
    template: 'quote-reminder',
    to: customer.companyEmail,
    data: { quoteNumber: q.quoteNumber, companyName: q.companyName, total: offer.total, currencyCode: q.currencyCode, expiresAt: q.expiresAt?.toISOString() ?? null },
  };
}

/**
 * The accepted quote's invoice: Issued, on the customer's terms and unpaid on account, or paid by the
 * accept's card charge (payment key `quote-<quoteId>`); the checkout's invoice path. Null for an
 * on-account order invoiced per shipment (docs/fulfillment.md "Invoicing").
 */
export async function invoiceQuoteOrder(
  em: EntityManager,
  input: { organizationId: string; orderId: string; quoteId: string; chargeId?: string | null; paymentProfileId?: string | null },
): Promise<OrderInvoice | null> {
  return invoiceOrder(em, {
    organizationId: input.organizationId,
    orderId: input.orderId,
    chargeId: input.chargeId ?? null,
    paymentKey: `quote-${input.quoteId}`,
    paymentProfileId: input.paymentProfileId ?? null,
  });
}
