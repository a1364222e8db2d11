import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';
import type { PostalAddress } from './Order.js';
import type { InvoiceStatus } from '../domain/invoices/state.js';

/** Only a Completed payment moves the balance; Pending and Failed are recorded only. */
export type PaymentStatus = 'Completed' | 'Pending' | 'Failed';

export interface InvoiceCustomer {
  customerNumber: string;
  companyName?: string | null;
  companyEmail?: string | null;
  companyPhone?: string | null;
  billingAddress?: PostalAddress | null;
  shippingAddress?: PostalAddress | null;
}

export interface InvoiceSalesRep {
  repNumber?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  phoneNumber?: string | null;
}

/** Line item; `price` is an exact decimal string. */
export interface InvoiceLine {
  sku: string;
  productName?: string | null;
  quantity: number;
  price: string;
  /** The price list that priced the line (docs/invoices.md "Which list priced a line"); absent: the tier, or a price given as is. */
  priceListId?: string | null;
}

export interface InvoiceDiscount {
  code?: string | null;
  type: 'Percentage' | 'Amount';
  /** Exact decimal string. */
  value: string;
  description?: string | null;
}

export interface InvoiceRefundRecord {
  refundId: string;
  paymentId: string | null;
  amount: string;
  reason: string | null;
  providerRefunded: boolean;
  createdAt: string;
}

/**
 * An invoice of an organization. The linked order is kept as plain columns (orderId,
 * orderNumber). Customer and sales rep are snapshots at invoicing time; customerNumber is
 * copied into a column for filtering and Customer-token scoping. Money columns are numeric
 * and recomputed (src/domain/invoices/money.ts) whenever an input changes; amountPaid moves
 * only under a row lock (payments, refunds).
 */
export const Invoice = defineEntity({
  name: 'Invoice',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    orderId: p.uuid(),
    orderNumber: p.string().nullable(),
    invoiceNumber: p.string(),
    externalId: p.string().nullable(),
    status: p.string().length(20).$type<InvoiceStatus>().default('Draft'),
    invoiceDate: p.datetime(),
    dueDate: p.datetime(),
    terms: p.string(),
    currencyCode: p.string().length(3),
    poNumber: p.string().nullable(),
    notes: p.text().nullable(),
    customerNumber: p.string(),
    /** The customer record this row belongs to (DESIGN "Security decisions"); null once that customer is deleted. FK (organization_id, customer_id) in the migration. */
    customerId: p.uuid().nullable(),
    /** True once the customer record this row belonged to was deleted: it is never linked to a customer that takes the number later. */
    customerDeleted: p.boolean().default(false),
    customer: p.json<InvoiceCustomer>(),
    primarySalesRep: p.json<InvoiceSalesRep>(),
    items: p.json<InvoiceLine[]>(),
    discount: p.json<InvoiceDiscount>().nullable(),
    refunds: p.json<InvoiceRefundRecord[]>().nullable(),
    taxInput: p.decimal().precision(19).scale(4).default('0'),
    importedInvoiceTotal: p.decimal().precision(19).scale(4).nullable(),
    importedBalance: p.decimal().precision(19).scale(4).nullable(),
    subtotal: p.decimal().precision(19).scale(4).default('0'),
    discountAmount: p.decimal().precision(19).scale(4).default('0'),
    tax: p.decimal().precision(19).scale(4).default('0'),
    total: p.decimal().precision(19).scale(4).default('0'),
    /** Paid amount derived from importedBalance at import (part of amountPaid). */
    importedPaid: p.decimal().precision(19).scale(4).default('0'),
    amountPaid: p.decimal().precision(19).scale(4).default('0'),
    active: p.boolean().default(true),
    pdfKey: p.string().nullable(),
    /** Set by the dunning workflow when the invoice passes its due date unpaid (docs/credit.md). */
    overdueAt: p.datetime().nullable(),
    /** Set by the dunning workflow at the hold step: while this invoice stays open its customer is on credit hold. */
    creditHoldAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [
    { name: 'invoice_org_customer_index', properties: ['organization', 'customerNumber'] },
    { name: 'invoice_org_customer_id_index', properties: ['organization', 'customerId'] },
    { name: 'invoice_org_order_index', properties: ['organization', 'orderId'] },
  ],
  uniques: [
    { name: 'invoice_org_number_unique', properties: ['organization', 'invoiceNumber'] },
    {
      name: 'invoice_org_external_id_unique',
      expression: 'create unique index "invoice_org_external_id_unique" on "invoice" ("organization_id", "external_id") where "external_id" is not null',
    },
  ],
  checks: [
    { name: 'invoice_status_check', expression: "status in ('Draft','Issued','PartiallyPaid','Paid','Voided','Cancelled')" },
    { name: 'invoice_amount_paid_check', expression: 'amount_paid >= 0' },
  ],
});
export type Invoice = InferEntity<typeof Invoice>;

/** A payment recorded against an invoice; idempotencyKey makes recording it at-most-once. */
export const InvoicePayment = defineEntity({
  name: 'InvoicePayment',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organizationId: p.uuid().index(),
    invoice: () => p.manyToOne(Invoice).deleteRule('cascade'),
    amount: p.decimal().precision(19).scale(4),
    refundedAmount: p.decimal().precision(19).scale(4).default('0'),
    currencyCode: p.string().length(3),
    method: p.string(),
    status: p.string().$type<PaymentStatus>().default('Completed'),
    paymentDate: p.datetime(),
    reference: p.string().nullable(),
    notes: p.text().nullable(),
    paymentProfileId: p.string().nullable(),
    cardType: p.string().nullable(),
    last4Digits: p.string().length(4).nullable(),
    providerChargeId: p.string().nullable(),
    idempotencyKey: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'invoice_payment_idempotency_key_unique', properties: ['organizationId', 'idempotencyKey'] }],
  checks: [{ name: 'invoice_payment_amount_check', expression: 'amount > 0' }],
});
export type InvoicePayment = InferEntity<typeof InvoicePayment>;

/** Last invoice number issued per organization (src/services/numbering.ts: atomic upsert, no duplicates). */
export const InvoiceCounter = defineEntity({
  name: 'InvoiceCounter',
  properties: {
    organizationId: p.uuid().primary(),
    lastNumber: p.bigint('number').default(0),
  },
});
export type InvoiceCounter = InferEntity<typeof InvoiceCounter>;
