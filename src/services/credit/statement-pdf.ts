/** Renders a statement of account as a PDF (pdfkit, uncompressed so the text is searchable in tests and archives, like the invoice PDF). */
import PDFDocument from 'pdfkit';
import type { StatementOut } from '../../domain/credit/resources.js';
import { formatMoney } from '../../domain/money.js';

const BUCKET_LABEL: Record<string, string> = { current: 'Current', '1-30': '1-30 days', '31-60': '31-60 days', '61-90': '61-90 days', '90+': 'Over 90 days' };

export function renderCustomerStatementPdf(v: StatementOut, organizationName: string): Promise<Buffer> {
  const c = v.currencyCode;
  const m = (n: number, cur = c) => formatMoney(n, cur);
  const doc = new PDFDocument({ size: 'A4', margin: 50, compress: false, info: { Title: `Statement of account ${v.customerNumber} as of ${v.asOf}` } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (b: Buffer) => chunks.push(b));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.fontSize(20).text(organizationName);
  doc.moveDown().fontSize(16).text('Statement of account');
  doc.fontSize(10).text(`Customer: ${v.companyName ?? ''} (${v.customerNumber})`).text(`As of: ${v.asOf}`).text(`Currency: ${c}`);
  if (v.paymentTerms) doc.text(`Terms: ${v.paymentTerms.name} (${v.paymentTerms.description})`);
  doc.moveDown();
  doc.text(`Credit limit: ${v.creditLimit === null ? 'none (no on-account buying)' : m(v.creditLimit)}`);
  doc.text(`Open balance: ${m(v.openBalance)}`).text(`Available credit: ${m(v.availableCredit)}`);
  doc.text(v.creditHold ? `CREDIT HOLD: overdue invoices ${v.holdInvoiceNumbers.join(', ')}` : 'Credit hold: no');
  doc.moveDown().fontSize(12).text('Open invoices');
  doc.fontSize(10);
  if (!v.invoices.length) doc.text('None.');
  for (const i of v.invoices) {
    doc.text(
      `${i.invoiceNumber}  issued ${i.invoiceDate.slice(0, 10)}  due ${i.dueDate.slice(0, 10)}  total ${m(i.total, i.currencyCode)}  paid ${m(i.paid, i.currencyCode)}  balance ${m(i.balance, i.currencyCode)}  ${i.daysOverdue} days overdue (${BUCKET_LABEL[i.bucket]})${i.creditHold ? '  HOLD' : ''}`,
    );
  }
  doc.moveDown().fontSize(12).text('Aging');
  doc.fontSize(10);
  for (const a of v.aging) doc.text(`${BUCKET_LABEL[a.bucket]}: ${a.amountFormatted} (${a.count} invoice${a.count === 1 ? '' : 's'})`);
  if (v.credits.length) {
    doc.moveDown().fontSize(12).text('Unapplied credit');
    doc.fontSize(10);
    for (const n of v.credits) doc.text(`${n.creditNoteNumber}  issued ${n.issuedAt.slice(0, 10)}  for ${n.invoiceNumber}  available ${n.availableFormatted}`);
    doc.text(`Unapplied credit: -${v.unappliedCreditFormatted}`);
  }
  doc.fontSize(12).text(`Total due: ${v.totalDueFormatted}`);
  if (v.otherCurrencyInvoiceNumbers.length) doc.fontSize(10).text(`Not in ${c} (not in the totals): ${v.otherCurrencyInvoiceNumbers.join(', ')}`);
  doc.end();
  return done;
}
