/**
 * Invoice use cases beyond create, list and update: reading one, issuing a Draft (Draft -> Issued, then the
 * issueInvoice workflow renders the PDF, e-mails the customer and reminds on the due date),
 * the discount of a Draft, and the rendered PDF.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { startOnce } from '../../adapters/temporal.js';
import { amountText } from '../../workflows/tags-defs.js';
import { findInvoice, markIssued, must, recompute, reload, toDiscount, type DiscountInput } from './invoices.js';
import { invoiceWorkflowId } from './signal.js';
import { invoiceRowView, type InvoiceRow, type PaymentRow } from './view.js';
import { readVisibleRow, visibleCustomerSql } from '../customers/visibility.js';

/**
 * GET /api/invoices/{id} in one statement with bound parameters (issue 18): the active invoice, its
 * payments and the visibility rule of findInvoice (Admin every invoice; a rep the invoices of
 * customers of its rep number; a customer its own), without hydrating entities.
 */
const INVOICE_VIEW_SQL = `select i.id, i.organization_id as "organizationId", i.order_id as "orderId", i.order_number as "orderNumber",
    i.invoice_number as "invoiceNumber", i.external_id as "externalId", i.status, i.invoice_date as "invoiceDate", i.due_date as "dueDate",
    i.terms, i.currency_code as "currencyCode", i.po_number as "poNumber", i.notes, i.customer, i.primary_sales_rep as "primarySalesRep",
    i.items, i.refunds, i.discount, i.imported_invoice_total::text as "importedInvoiceTotal", i.imported_balance::text as "importedBalance",
    i.subtotal::text as subtotal, i.discount_amount::text as "discountAmount", i.tax::text as tax, i.total::text as total,
    i.amount_paid::text as "amountPaid", i.created_at as "createdAt", i.updated_at as "updatedAt",
    coalesce((select json_agg(json_build_object('id', p.id, 'amount', p.amount::text, 'refundedAmount', p.refunded_amount::text,
                                                'currencyCode', p.currency_code, 'method', p.method, 'status', p.status, 'paymentDate', p.payment_date,
                                                'reference', p.reference, 'notes', p.notes, 'cardType', p.card_type, 'last4Digits', p.last4digits,
                                                'createdAt', p.created_at) order by p.created_at, p.id)
                from invoice_payment p where p.organization_id = i.organization_id and p.invoice_id = i.id), '[]') as payments
  from invoice i
 where i.organization_id = $1 and i.id = $2 and i.active
   and ${visibleCustomerSql('i.customer_id', '$1', '$3', '$4')}`;

/** GET /api/invoices/{id}: the invoice with items and payments, if the principal may see it (404 otherwise). */
export async function readInvoice(em: EntityManager, orgId: string, auth: Principal, invoiceId: string) {
  const row = await readVisibleRow<InvoiceRow & { payments: PaymentRow[] }>(em, INVOICE_VIEW_SQL, orgId, auth, invoiceId, 'Invoice');
  return invoiceRowView(row, row.payments);
}

/** POST /api/invoices/{id}/issue: answers the Issued invoice's view; the issuance workflow starts once. */
export async function issueDraftInvoice(em: EntityManager, deps: Deps, orgId: string, auth: Principal, invoiceId: string) {
  const inv = await markIssued(em, orgId, auth, invoiceId);
  await startOnce(deps.temporal, deps.config, {
    workflowType: 'issueInvoice',
    workflowId: invoiceWorkflowId(inv.id),
    args: [{ organizationId: orgId, invoiceId: inv.id }],
    keys: { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber },
    about: { what: `Issue invoice ${inv.invoiceNumber}`, amount: amountText(inv.total, inv.currencyCode) },
  });
  return reload(em, orgId, inv.id);
}

/** POST /api/invoices/{id}/discount: replaces the discount of a Draft invoice and recomputes its totals. */
export async function applyDiscount(em: EntityManager, orgId: string, auth: Principal, invoiceId: string, body: DiscountInput) {
  await em.fork().transactional(async (tx) => {
    const inv = await findInvoice(tx, orgId, invoiceId, auth, true);
    must(inv.status, { type: 'discount' });
    inv.discount = toDiscount(body);
    recompute(inv);
    await tx.flush();
  });
  return reload(em, orgId, invoiceId);
}

/** The invoice PDF and its download name; 404 until the issuance workflow stored it. */
export async function invoicePdf(em: EntityManager, deps: Deps, orgId: string, auth: Principal, invoiceId: string): Promise<{ data: Buffer; fileName: string }> {
  const inv = await findInvoice(em, orgId, invoiceId, auth);
  const data = inv.pdfKey ? await deps.storage.get(inv.pdfKey) : null;
  if (!data) throw new AppError('not_found', 'The invoice PDF is not available yet; it is rendered when the invoice is issued.');
  return { data, fileName: `invoice-${inv.invoiceNumber.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf` };
}
