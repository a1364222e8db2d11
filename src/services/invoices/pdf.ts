/** Renders an invoice as a PDF (pdfkit, uncompressed so the text is searchable in tests and archives). */
import PDFDocument from 'pdfkit';
import { formatMoney } from '../../domain/money.js';
import { balanceOf, lineTotal } from '../../domain/invoices/money.js';
import type { Invoice } from '../../entities/index.js';

export const invoicePdfKey = (orgId: string, invoiceId: string) => `documents/invoices/${orgId}/${invoiceId}.pdf`;

export function renderInvoicePdf(inv: Invoice, organizationName: string): Promise<Buffer> {
  const c = inv.currencyCode;
  const doc = new PDFDocument({ size: 'A4', margin: 50, compress: false, info: { Title: `Invoice ${inv.invoiceNumber}` } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);
  doc.fontSize(20).text(organizationName);
  doc.moveDown().fontSize(16).text(`Invoice ${inv.invoiceNumber}`);
  doc.fontSize(10).text(`Invoice date: ${day(inv.invoiceDate)}`).text(`Due date: ${day(inv.dueDate)}`).text(`Terms: ${inv.terms}`);
  if (inv.poNumber) doc.text(`PO number: ${inv.poNumber}`);
  doc.moveDown().text(`Bill to: ${inv.customer.companyName ?? ''} (${inv.customer.customerNumber})`);
  doc.moveDown();
  for (const l of inv.items) {
    doc.text(`${l.sku}  ${l.productName ?? ''}  ${l.quantity} x ${formatMoney(l.price, c)} = ${formatMoney(lineTotal(l, c), c)}`);
  }
  doc.moveDown();
  doc.text(`Subtotal: ${formatMoney(inv.subtotal, c)}`);
  if (Number(inv.discountAmount) !== 0) doc.text(`Discount: -${formatMoney(inv.discountAmount, c)}`);
  doc.text(`Tax: ${formatMoney(inv.tax, c)}`);
  doc.fontSize(12).text(`Total: ${formatMoney(inv.total, c)}`);
  doc.fontSize(10).text(`Amount paid: ${formatMoney(inv.amountPaid, c)}`).text(`Balance due: ${formatMoney(balanceOf(inv.total, inv.amountPaid, c), c)}`);
  if (inv.notes) doc.moveDown().text(inv.notes);
  doc.end();
  return done;
}
