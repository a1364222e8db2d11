/** Renders a credit note as a PDF (pdfkit, uncompressed like the invoice PDFs) and stores it privately in object storage. */
import PDFDocument from 'pdfkit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Storage } from '../../adapters/storage.js';
import { formatMoney } from '../../domain/money.js';
import { CreditNote, Organization } from '../../entities/index.js';

export const creditNotePdfKey = (orgId: string, id: string) => `documents/credit-notes/${orgId}/${id}.pdf`;

export function renderCreditNotePdf(cn: CreditNote, organizationName: string): Promise<Buffer> {
  const c = cn.currencyCode;
  const doc = new PDFDocument({ size: 'A4', margin: 50, compress: false, info: { Title: `Credit note ${cn.creditNoteNumber}` } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (b: Buffer) => chunks.push(b));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.fontSize(20).text(organizationName);
  doc.moveDown().fontSize(16).text(`Credit note ${cn.creditNoteNumber}`);
  doc.fontSize(10).text(`Date: ${new Date(cn.createdAt).toISOString().slice(0, 10)}`);
  doc.text(`Credits invoice ${cn.invoiceNumber}${cn.orderNumber ? ` (order ${cn.orderNumber})` : ''}`);
  doc.text(`Customer: ${cn.customerNumber}`);
  doc.text(`Reason: ${cn.reason}`);
  doc.moveDown();
  for (const l of cn.lines ?? []) doc.text(`${l.sku}  ${l.productName ?? ''}  ${l.quantity} x ${formatMoney(l.price, c)} = ${formatMoney(l.amount, c)}`);
  doc.moveDown().fontSize(12).text(`Credit total: ${formatMoney(cn.amount, c)}`);
  doc.end();
  return done;
}

/** Renders and stores the credit note's PDF (the same key each time) and records the key; answers the bytes. */
export async function storeCreditNotePdf(em: EntityManager, storage: Storage, cn: CreditNote): Promise<Buffer> {
  const org = await em.findOneOrFail(Organization, { id: cn.organizationId }, { fields: ['name'] });
  const data = await renderCreditNotePdf(cn, org.name);
  const key = creditNotePdfKey(cn.organizationId, cn.id);
  await storage.put(key, data, 'application/pdf');
  await em.fork().nativeUpdate(CreditNote, { organizationId: cn.organizationId, id: cn.id }, { pdfKey: key });
  return data;
}
