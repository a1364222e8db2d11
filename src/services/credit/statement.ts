/**
 * Statement of account (issue 23 item 4; docs/credit.md "Statement of account"): a customer's
 * open invoices aged to a day, the aging buckets, and its credit position (limit, open balance,
 * available credit, hold). Visible to Admin, the customer's reps and its own users (404 to
 * anyone else, src/services/customers/visibility.ts).
 *
 * Credit notes: applied credit is a payment on the invoice (it lowers the balances aged here);
 * credit not applied yet (today's, like payments) is listed under `credits` and subtracted once
 * from `totalDue` (`unappliedCredit`), never spread over the aging buckets.
 *
 * As of a day: invoices dated after the day are left out, and each invoice is aged by whole UTC
 * days from its due day to that day (src/domain/credit/aging.ts). Balances, the credit position
 * and the hold are today's: payments and refunds are not rolled back to the day (decision in
 * docs/decisions.md). The PDF variant is rendered from the same view and stored in object
 * storage under `documents/statements/<org>/<customer id>/<asOf>.pdf` (replaced on each request,
 * so it always shows the figures it was downloaded with).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Storage } from '../../adapters/storage.js';
import { agingBucket, agingSummary, BUCKET_RANGES, daysPastDue } from '../../domain/credit/aging.js';
import type { StatementOut } from '../../domain/credit/resources.js';
import { formatMoney, moneyNumber } from '../../domain/money.js';
import { balanceOf } from '../../domain/invoices/money.js';
import { CreditNote, Invoice, Organization } from '../../entities/index.js';
import { Decimal } from 'decimal.js';
import type { Principal } from '../../http/auth.js';
import { findVisibleCustomer } from '../customers/visibility.js';
import { accountView, holdingInvoices } from './accounts.js';
import { renderCustomerStatementPdf } from './statement-pdf.js';

/** Today as a UTC day (the default as-of day). */
export const todayUtc = () => new Date().toISOString().slice(0, 10);

export const statementPdfKey = (orgId: string, customerId: string, asOf: string) => `documents/statements/${orgId}/${customerId}/${asOf}.pdf`;

/** GET /api/customers/{customerNumber}/statement: the statement as of `asOf` (a YYYY-MM-DD day; today when absent). */
export async function readStatement(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, asOf: string = todayUtc()): Promise<StatementOut> {
  const c = await findVisibleCustomer(em, orgId, auth, customerNumber);
  const account = await accountView(em, orgId, c);
  const currency = account.currencyCode;
  const endOfDay = new Date(Date.parse(`${asOf}T00:00:00Z`) + 86_400_000 - 1);
  const rows = await em.find(
    Invoice,
    { organization: orgId, customerId: c.id, active: true, status: { $in: ['Issued', 'PartiallyPaid'] }, invoiceDate: { $lte: endOfDay } },
    { fields: ['id', 'invoiceNumber', 'status', 'invoiceDate', 'dueDate', 'currencyCode', 'total', 'amountPaid'], orderBy: [{ dueDate: 'asc' }, { invoiceNumber: 'asc' }] },
  );
  const holds = new Set(await holdingInvoices(em, orgId, c.id));
  const invoices = rows
    .map((inv) => {
      const balance = balanceOf(inv.total, inv.amountPaid, inv.currencyCode);
      const days = daysPastDue(inv.dueDate, asOf);
      return { inv, balance, days, bucket: agingBucket(days) };
    })
    .filter((r) => r.balance.gt(0));
  const same = invoices.filter((r) => r.inv.currencyCode === currency);
  const { lines, total } = agingSummary(
    same.map((r) => ({ bucket: r.bucket, balance: r.balance })),
    currency,
  );
  // Credit notes with credit not applied yet (docs/returns.md "Credit notes"): listed, and subtracted from what is due.
  // Today's, like balances and payments (not rolled back to asOf): credit applied after asOf lowers the balances too.
  const notes = await em.find(
    CreditNote,
    { organizationId: orgId, customerId: c.id },
    { orderBy: [{ createdAt: 'asc' }, { creditNoteNumber: 'asc' }] },
  );
  const credits = notes
    .map((n) => ({ n, available: new Decimal(n.amount).minus(n.amountApplied).minus(n.amountRefunded) }))
    .filter((x) => x.available.gt(0));
  const unapplied = credits.filter((x) => x.n.currencyCode === currency).reduce((s, x) => s.plus(x.available), new Decimal(0));
  const due = total.minus(unapplied);
  return {
    ...account,
    companyName: c.companyName ?? null,
    asOf,
    invoices: invoices.map(({ inv, balance, days, bucket }) => ({
      invoiceId: inv.id,
      invoiceNumber: inv.invoiceNumber,
      status: inv.status as 'Issued' | 'PartiallyPaid',
      invoiceDate: inv.invoiceDate.toISOString(),
      dueDate: inv.dueDate.toISOString(),
      currencyCode: inv.currencyCode,
      total: moneyNumber(inv.total, inv.currencyCode),
      paid: moneyNumber(inv.amountPaid, inv.currencyCode),
      balance: moneyNumber(balance, inv.currencyCode),
      balanceFormatted: formatMoney(balance, inv.currencyCode),
      daysOverdue: days,
      bucket,
      creditHold: holds.has(inv.invoiceNumber),
    })),
    aging: lines.map((l) => ({
      bucket: l.bucket,
      ...BUCKET_RANGES[l.bucket],
      count: l.count,
      amount: moneyNumber(l.amount, currency),
      amountFormatted: formatMoney(l.amount, currency),
    })),
    credits: credits.map(({ n, available }) => ({
      creditNoteId: n.id,
      creditNoteNumber: n.creditNoteNumber,
      issuedAt: n.createdAt.toISOString(),
      invoiceNumber: n.invoiceNumber,
      currencyCode: n.currencyCode,
      amount: moneyNumber(n.amount, n.currencyCode),
      available: moneyNumber(available, n.currencyCode),
      availableFormatted: formatMoney(available, n.currencyCode),
    })),
    unappliedCredit: moneyNumber(unapplied, currency),
    unappliedCreditFormatted: formatMoney(unapplied, currency),
    totalDue: moneyNumber(due, currency),
    totalDueFormatted: formatMoney(due, currency),
    otherCurrencyInvoiceNumbers: invoices.filter((r) => r.inv.currencyCode !== currency).map((r) => r.inv.invoiceNumber),
    pdf: `/api/customers/${encodeURIComponent(c.customerNumber)}/statement/pdf?asOf=${asOf}`,
  };
}

/**
 * GET /api/customers/{customerNumber}/statement/pdf: renders the statement, stores it in object
 * storage (private, replaced on each request) and answers the stored document with its name.
 */
export async function statementPdf(em: EntityManager, storage: Storage, orgId: string, auth: Principal, customerNumber: string, asOf: string = todayUtc()): Promise<{ data: Buffer; fileName: string; key: string }> {
  const view = await readStatement(em, orgId, auth, customerNumber, asOf);
  const c = await findVisibleCustomer(em, orgId, auth, customerNumber);
  const org = await em.findOneOrFail(Organization, { id: orgId }, { fields: ['name'] });
  const data = await renderCustomerStatementPdf(view, org.name);
  const key = statementPdfKey(orgId, c.id, asOf);
  await storage.put(key, data, 'application/pdf');
  // Served from storage, like the invoice and commission statement PDFs.
  const stored = await storage.get(key);
  if (!stored) throw new Error(`statement PDF ${key} was not found right after it was stored`);
  return { data: stored, key, fileName: `statement-${c.customerNumber.replace(/[^A-Za-z0-9._-]/g, '_')}-${asOf}.pdf` };
}
