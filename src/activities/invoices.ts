import { ApplicationFailure } from '@temporalio/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { balanceOf } from '../domain/invoices/money.js';
import { formatMoney } from '../domain/money.js';
import { invoiceRecipients } from '../domain/email/recipients.js';
import { Customer, Invoice, Organization } from '../entities/index.js';
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
  async function facts(ref: InvoiceRef): Promise<{ inv: Invoice; org: Organization; facts: InvoiceMailFacts }> {
    const em = deps.orm.em.fork();
    const inv = await em.findOne(Invoice, { id: ref.invoiceId, organization: ref.organizationId });
    if (!inv) throw ApplicationFailure.nonRetryable('The invoice no longer exists.', 'missing_invoice');
    const org = await em.findOneOrFail(Organization, { id: ref.organizationId });
    const balance = balanceOf(inv.total, inv.amountPaid, inv.currencyCode);
    // Never the invoice's own customer.companyEmail: only what the customer record stores.
    const customer = await em.findOne(Customer, { organization: ref.organizationId, customerNumber: inv.customerNumber, active: true }, { populate: ['contacts'] });
    const recipients = invoiceRecipients(customer ? { companyEmail: customer.companyEmail, contacts: customer.contacts.getItems() } : null);
    return {
      inv,
      org,
      facts: {
        to: recipients.length ? recipients.join(', ') : null,
        invoiceNumber: inv.invoiceNumber,
        organizationName: org.name,
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
      const { inv, org, facts: f } = await facts(ref);
      const key = invoicePdfKey(ref.organizationId, ref.invoiceId);
      const pdf = await renderInvoicePdf(inv, org.name);
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
