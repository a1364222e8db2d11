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
import { findInvoice, markIssued, must, recompute, reload, toDiscount, viewOf, type DiscountInput } from './invoices.js';
import { invoiceWorkflowId } from './signal.js';

/** GET /api/invoices/{id}: the invoice with items and payments, if the principal may see it (404 otherwise). */
export async function readInvoice(em: EntityManager, orgId: string, auth: Principal, invoiceId: string) {
  return viewOf(em, await findInvoice(em, orgId, invoiceId, auth));
}

/** POST /api/invoices/{id}/issue: answers the Issued invoice's view; the issuance workflow starts once. */
export async function issueDraftInvoice(em: EntityManager, deps: Deps, orgId: string, auth: Principal, invoiceId: string) {
  const inv = await markIssued(em, orgId, auth, invoiceId);
  await startOnce(deps.temporal, deps.config, {
    workflowType: 'issueInvoice',
    workflowId: invoiceWorkflowId(inv.id),
    args: [{ organizationId: orgId, invoiceId: inv.id, reminderDelaySeconds: deps.config.invoiceReminderDelayOverrideSeconds }],
    keys: { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber },
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
