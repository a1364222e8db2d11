/**
 * The invoice issuance workflow's steps (issueInvoice; called by src/activities/invoices.ts): the
 * PDF stored privately under documents/invoices/<org>/<id>.pdf, and the facts its e-mails are made
 * of. Idempotent: the object's key is the invoice's, the e-mails are keyed by the workflow.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { balanceOf } from '../../domain/invoices/money.js';
import { formatMoney } from '../../domain/money.js';
import { invoiceRecipients } from '../../domain/email/recipients.js';
import { Invoice } from '../../entities/index.js';
import type { Storage } from '../../adapters/storage.js';
import { boundRows } from '../../db/orm-sql.js';
import { invoicePdfKey, renderInvoicePdf } from './pdf.js';

export interface InvoiceRef {
  organizationId: string;
  invoiceId: string;
}

export interface InvoiceMailFacts {
  /** The customer record's stored company e-mail and billing contacts, comma-separated; null when none. */
  to: string | null;
  invoiceNumber: string;
  /** The invoice's customer (absent from results recorded before it was added). */
  customerNumber?: string;
  organizationName: string;
  companyName: string;
  dueDate: string;
  totalFormatted: string;
  balanceFormatted: string;
  pdfUrl: string;
  /** Issued or PartiallyPaid with a balance left. */
  open: boolean;
}

/** The invoice row (mapped to the entity) with its organization's name and the active customer record with the invoice's number: its e-mail and contacts. */
const INVOICE_FACTS_SQL = `select i.*, o.name as "mailOrgName", c.id is not null as "mailHasCustomer", c.company_email as "mailCompanyEmail",
       (select coalesce(json_agg(json_build_object('email', cc.email, 'contactType', cc.contact_type) order by cc.position, cc.id), '[]'::json)
          from customer_contact cc where cc.organization_id = o.id and cc.customer_id = c.id) as "mailContacts"
  from invoice i
  join organization o on o.id = i.organization_id
  left join lateral (select id, company_email from customer
                      where organization_id = i.organization_id and customer_number = i.customer_number and active limit 1) c on true
 where i.id = $1 and i.organization_id = $2`;

interface MailRow {
  mailOrgName: string;
  mailHasCustomer: boolean;
  mailCompanyEmail: string | null;
  mailContacts: { email: string | null; contactType: string | null }[];
}

/** The invoice with its organization's name and the e-mail facts. */
async function facts(em: EntityManager, config: Pick<Config, 'publicBaseUrl'>, ref: InvoiceRef): Promise<{ inv: Invoice; orgName: string; facts: InvoiceMailFacts }> {
  // The invoice, its organization's name and the customer record's addresses in one statement. Never
  // the invoice's own customer.companyEmail: only what the customer record stores.
  const [found] = await boundRows<Record<string, unknown> & MailRow>(em, INVOICE_FACTS_SQL, [ref.invoiceId, ref.organizationId]);
  if (!found) throw ApplicationFailure.nonRetryable('The invoice no longer exists.', 'missing_invoice');
  const { mailOrgName: orgName, mailHasCustomer, mailCompanyEmail, mailContacts, ...invoiceRow } = found;
  const inv = em.map(Invoice, invoiceRow);
  const balance = balanceOf(inv.total, inv.amountPaid, inv.currencyCode);
  const recipients = invoiceRecipients(mailHasCustomer ? { companyEmail: mailCompanyEmail, contacts: mailContacts } : null);
  return {
    inv,
    orgName,
    facts: {
      to: recipients.length ? recipients.join(', ') : null,
      invoiceNumber: inv.invoiceNumber,
      customerNumber: inv.customerNumber,
      organizationName: orgName,
      companyName: inv.customer.companyName ?? inv.customer.customerNumber,
      dueDate: new Date(inv.dueDate).toISOString(),
      totalFormatted: formatMoney(inv.total, inv.currencyCode),
      balanceFormatted: formatMoney(balance, inv.currencyCode),
      pdfUrl: `${config.publicBaseUrl}/api/invoices/${inv.id}/pdf`,
      open: inv.active && (inv.status === 'Issued' || inv.status === 'PartiallyPaid') && balance.gt(0),
    },
  };
}

/** Renders the PDF, stores it privately under documents/invoices/<org>/<id>.pdf, and returns the e-mail facts. */
export async function storeInvoicePdf(em: EntityManager, deps: { config: Config; storage: Storage }, ref: InvoiceRef): Promise<InvoiceMailFacts> {
  const { inv, orgName, facts: f } = await facts(em, deps.config, ref);
  const key = invoicePdfKey(ref.organizationId, ref.invoiceId);
  const pdf = await renderInvoicePdf(inv, orgName);
  await deps.storage.put(key, pdf, 'application/pdf');
  await em.fork().nativeUpdate(Invoice, { organization: ref.organizationId, id: inv.id }, { pdfKey: key });
  return f;
}
