/**
 * The invoice of an order placed through checkout: created Issued from the order (lines,
 * customer snapshot, poNumber, totals) and paid by the checkout's card charge. Idempotent:
 * the invoice is keyed by externalId `order-<orderId>` and the payment by the checkout key,
 * so a retried activity finds and returns what the first attempt wrote.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Invoice, Order } from '../../entities/index.js';
import { isUniqueViolation } from '../../errors.js';
import { allocateNumber, emSql, INVOICE_NUMBERS } from '../numbering.js';
import { recordInvoicePayment } from './record-payment.js';

export interface CheckoutInvoiceInput {
  organizationId: string;
  orderId: string;
  chargeId: string | null;
  /** The checkout's idempotency key (`checkout-<cartId>`), reused for the invoice payment. */
  paymentKey: string;
  paymentProfileId?: string | null;
}

export async function invoiceCheckoutOrder(em: EntityManager, input: CheckoutInvoiceInput): Promise<{ invoiceId: string; invoiceNumber: string; customerNumber: string }> {
  const externalId = `order-${input.orderId}`;
  let inv = await em.fork().findOne(Invoice, { organization: input.organizationId, externalId });
  if (!inv) {
    const order = await em.fork().findOneOrFail(Order, { id: input.orderId, organization: input.organizationId }, { populate: ['items'] });
    try {
      inv = await em.fork().transactional(async (tx) => {
        const now = new Date();
        const c = order.customer;
        return tx.create(Invoice, {
          organization: input.organizationId,
          orderId: order.id,
          orderNumber: order.orderNumber,
          invoiceNumber: await allocateNumber(emSql(tx), INVOICE_NUMBERS, input.organizationId),
          externalId,
          status: 'Issued',
          invoiceDate: now,
          dueDate: now,
          terms: order.terms ?? 'Prepaid',
          currencyCode: order.currencyCode,
          poNumber: order.poNumber ?? null,
          notes: `Paid at checkout (order ${order.orderNumber}).`,
          customerNumber: order.customerNumber,
          customerId: order.customerId ?? null,
          customer: {
            customerNumber: c.customerNumber,
            companyName: c.companyName ?? null,
            companyEmail: c.companyEmail ?? null,
            companyPhone: c.companyPhone ?? null,
            billingAddress: c.billingAddress ?? null,
            shippingAddress: c.shippingAddress ?? null,
          },
          primarySalesRep: { ...(order.primarySalesRep ?? {}) },
          items: order.items.getItems().map((l) => ({ sku: l.sku, productName: l.productName, quantity: l.quantity, price: new Decimal(l.price).toFixed() })),
          taxInput: new Decimal(order.tax).toFixed(),
          subtotal: new Decimal(order.subtotal).toFixed(),
          discountAmount: new Decimal(order.discountAmount).toFixed(),
          tax: new Decimal(order.tax).toFixed(),
          total: new Decimal(order.total).toFixed(),
          importedPaid: '0',
          amountPaid: '0',
          active: true,
          createdAt: now,
          updatedAt: now,
        });
      });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      inv = await em.fork().findOneOrFail(Invoice, { organization: input.organizationId, externalId });
    }
  }
  if (new Decimal(inv.total).gt(0) && input.chargeId) {
    await recordInvoicePayment(em.fork(), {
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
    });
  }
  return { invoiceId: inv.id, invoiceNumber: inv.invoiceNumber, customerNumber: inv.customerNumber };
}
