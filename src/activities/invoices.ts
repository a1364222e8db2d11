import { ApplicationFailure } from '@temporalio/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { balanceOf } from '../domain/invoices/money.js';
import { formatMoney } from '../domain/money.js';
import { invoiceRecipients } from '../domain/email/recipients.js';
import { Invoice } from '../entities/index.js';
import { invoicePdfKey, renderInvoicePdf } from '../services/invoices/pdf.js';
import type { Storage } from '../adapters/storage.js';

export interface InvoiceRef {
  organizationId: string;
  invoiceId: string;
}

export interface InvoiceMailFacts {
  /** The customer record's stored company e-mail and billing contacts, comma-separated; null when none. */
  to: string | null;
  invoiceNumber: string;
  organizationName: string;
  companyName: string;
  dueDate: string;
  totalFormatted: string;
  balanceFormatted: string;
  pdfUrl: string;
  /** Issued or PartiallyPaid with a balance left. */
  open: boolean;
}

/** Invoice issuance activities; each is idempotent (keyed object, keyed e-mails). */
export function createInvoiceActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  async function facts(ref: InvoiceRef): Promise<{ inv: Invoice; orgName: string; facts: InvoiceMailFacts }> {
    const em = deps.orm.em.fork();
    const inv = await em.findOne(Invoice, { id: ref.invoiceId, organization: ref.organizationId });
    if (!inv) throw ApplicationFailure.nonRetryable('The invoice no longer exists.', 'missing_invoice');
    // The organization's name and the customer record's addresses in one statement. Never the
    // invoice's own customer.companyEmail: only what the customer record stores.
    const [row] = await em.getConnection().execute<{ org_name: string; company_email: string | null; has_customer: boolean; contacts: { email: string | null; contactType: string | null }[] }[]>(
      `select o.name as org_name, c.id is not null as has_customer, c.company_email,
              (select coalesce(json_agg(json_build_object('email', cc.email, 'contactType', cc.contact_type) order by cc.position, cc.id), '[]'::json)
                 from customer_contact cc where cc.organization_id = o.id and cc.customer_id = c.id) as contacts
         from organization o
         left join lateral (select id, company_email from customer
                             where organization_id = o.id and customer_number = ? and active limit 1) c on true
        where o.id = ?`,
      [inv.customerNumber, ref.organizationId],
    );
    if (!row) throw new Error(`Organization ${ref.organizationId} not found.`);
    const balance = balanceOf(inv.total, inv.amountPaid, inv.currencyCode);
    const recipients = invoiceRecipients(row.has_customer ? { companyEmail: row.company_email, contacts: row.contacts } : null);
    return {
      inv,
      orgName: row.org_name,
      facts: {
        to: recipients.length ? recipients.join(', ') : null,
        invoiceNumber: inv.invoiceNumber,
        organizationName: row.org_name,
        companyName: inv.customer.companyName ?? inv.customer.customerNumber,
        dueDate: new Date(inv.dueDate).toISOString(),
        totalFormatted: formatMoney(inv.total, inv.currencyCode),
        balanceFormatted: formatMoney(balance, inv.currencyCode),
        pdfUrl: `${deps.config.publicBaseUrl}/api/invoices/${inv.id}/pdf`,
        open: inv.active && (inv.status === 'Issued' || inv.status === 'PartiallyPaid') && balance.gt(0),
      },
    };
  }
  return {
    /** Renders the PDF, stores it privately under documents/invoices/<org>/<id>.pdf, and returns the e-mail facts. */
    async storeInvoicePdf(ref: InvoiceRef): Promise<InvoiceMailFacts> {
      const { inv, orgName, facts: f } = await facts(ref);
      const key = invoicePdfKey(ref.organizationId, ref.invoiceId);
      const pdf = await renderInvoicePdf(inv, orgName);
      await deps.storage.put(key, pdf, 'application/pdf');
      const em = deps.orm.em.fork();
      await em.nativeUpdate(Invoice, { id: inv.id }, { pdfKey: key });
      return f;
    },
    async invoiceMailFacts(ref: InvoiceRef): Promise<InvoiceMailFacts> {
      return (await facts(ref)).facts;
    },
  };
}
