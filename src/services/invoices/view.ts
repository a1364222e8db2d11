/** The JSON shape of an invoice (SPEC "Invoice" plus DESIGN's amount fields). */
import { formatMoney, moneyNumber } from '../../domain/money.js';
import { balanceOf, lineTotal, moneyFields } from '../../domain/invoices/money.js';
import type { Invoice, InvoicePayment } from '../../entities/index.js';
import type { Out } from '../../domain/contract.js';
import type { invoice } from '../../domain/resources.js';

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** A payment as the view needs it (the entity, or a row of the one-statement read). */
export type PaymentRow = Pick<
  InvoicePayment,
  'id' | 'amount' | 'refundedAmount' | 'currencyCode' | 'method' | 'status' | 'paymentDate' | 'reference' | 'notes' | 'cardType' | 'last4Digits' | 'createdAt'
>;

/** An invoice as the view needs it: the entity's stored fields with its organization id. */
export type InvoiceRow = Pick<
  Invoice,
  | 'id' | 'orderId' | 'orderNumber' | 'invoiceNumber' | 'externalId' | 'status' | 'invoiceDate' | 'dueDate' | 'terms' | 'currencyCode'
  | 'poNumber' | 'notes' | 'customer' | 'primarySalesRep' | 'items' | 'refunds' | 'discount' | 'importedInvoiceTotal' | 'importedBalance'
  | 'subtotal' | 'discountAmount' | 'tax' | 'total' | 'amountPaid' | 'createdAt' | 'updatedAt'
> & { organizationId: string };

export function paymentView(p: PaymentRow, currency: string) {
  return {
    paymentId: p.id,
    ...moneyFields('amount', p.amount, currency),
    ...moneyFields('refundedAmount', p.refundedAmount, currency),
    currencyCode: p.currencyCode,
    method: p.method,
    status: p.status,
    paymentDate: iso(p.paymentDate),
    reference: p.reference ?? null,
    notes: p.notes ?? null,
    cardType: p.cardType ?? null,
    last4Digits: p.last4Digits ?? null,
  };
}

export function invoiceView(inv: Invoice, payments: readonly PaymentRow[]): Out<typeof invoice> {
  return invoiceRowView({ ...inv, organizationId: inv.organization.id }, payments);
}

export function invoiceRowView(inv: InvoiceRow, payments: readonly PaymentRow[]): Out<typeof invoice> {
  const c = inv.currencyCode;
  const rep = inv.primarySalesRep ?? {};
  const fullName = [rep.firstName, rep.lastName].filter(Boolean).join(' ') || null;
  const cust = inv.customer;
  return {
    id: inv.id,
    organizationId: inv.organizationId,
    orderId: inv.orderId,
    orderNumber: inv.orderNumber ?? null,
    invoiceNumber: inv.invoiceNumber,
    externalId: inv.externalId ?? null,
    status: inv.status,
    invoiceDate: iso(inv.invoiceDate),
    dueDate: iso(inv.dueDate),
    terms: inv.terms,
    currencyCode: c,
    poNumber: inv.poNumber ?? null,
    notes: inv.notes ?? null,
    customer: {
      customerNumber: cust.customerNumber,
      companyName: cust.companyName ?? null,
      companyEmail: cust.companyEmail ?? null,
      companyPhone: cust.companyPhone ?? null,
      billingAddress: cust.billingAddress ?? null,
      shippingAddress: cust.shippingAddress ?? null,
    },
    primarySalesRep: {
      repNumber: rep.repNumber ?? null,
      firstName: rep.firstName ?? null,
      lastName: rep.lastName ?? null,
      fullName,
      email: rep.email ?? null,
      phoneNumber: rep.phoneNumber ?? null,
    },
    items: inv.items.map((l) => {
      const lt = lineTotal(l, c);
      return {
        sku: l.sku,
        productName: l.productName ?? null,
        quantity: l.quantity,
        price: moneyNumber(l.price, c),
        lineTotal: moneyNumber(lt, c),
        priceFormatted: formatMoney(l.price, c),
        lineTotalFormatted: formatMoney(lt, c),
        ...(l.priceListId ? { priceListId: l.priceListId } : {}),
      };
    }),
    payments: [...payments]
      .sort((a, b) => new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime())
      .map((p) => paymentView(p, c)),
    refunds: (inv.refunds ?? []).map((r) => ({ refundId: r.refundId, paymentId: r.paymentId, ...moneyFields('amount', r.amount, c), reason: r.reason, createdAt: r.createdAt })),
    discount: inv.discount ? { code: inv.discount.code ?? null, type: inv.discount.type, value: Number(inv.discount.value), description: inv.discount.description ?? null } : null,
    importedInvoiceTotal: inv.importedInvoiceTotal === null || inv.importedInvoiceTotal === undefined ? null : moneyNumber(inv.importedInvoiceTotal, c),
    importedBalance: inv.importedBalance === null || inv.importedBalance === undefined ? null : moneyNumber(inv.importedBalance, c),
    ...moneyFields('subtotal', inv.subtotal, c),
    ...moneyFields('discountAmount', inv.discountAmount, c),
    ...moneyFields('tax', inv.tax, c),
    ...moneyFields('total', inv.total, c),
    ...moneyFields('amountPaid', inv.amountPaid, c),
    ...moneyFields('balance', balanceOf(inv.total, inv.amountPaid, c), c),
    createdAt: iso(inv.createdAt),
    updatedAt: iso(inv.updatedAt),
  };
}
