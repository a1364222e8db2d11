/**
 * The statement as a PDF in object storage (private, `documents/commissions/<org>/<id>.pdf`),
 * re-rendered by the activities after each step, so it always shows the recorded state.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import PDFDocument from 'pdfkit';
import { formatMoney } from '../../domain/money.js';
import { CommissionStatement, Organization } from '../../entities/index.js';
import type { Storage } from '../../adapters/storage.js';
import { statementView } from './statements.js';

export const statementPdfKey = (orgId: string, statementId: string) => `documents/commissions/${orgId}/${statementId}.pdf`;

type View = Awaited<ReturnType<typeof statementView>>;

export function renderStatementPdf(v: View, organizationName: string): Promise<Buffer> {
  const c = v.currencyCode;
  const m = (n: number) => formatMoney(n, c);
  const doc = new PDFDocument({ size: 'A4', margin: 50, compress: false, info: { Title: `Commission statement ${v.repNumber} ${v.startDate} to ${v.endDate}` } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (b: Buffer) => chunks.push(b));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.fontSize(18).text(organizationName);
  doc.moveDown().fontSize(14).text(`Commission statement, sales rep ${v.repNumber}`);
  doc.fontSize(10).text(`Period: ${v.startDate} to ${v.endDate}`).text(`Status: ${v.status}`).text(`Statement: ${v.statementId}`);
  if (v.approvedAt) doc.text(`Approved: ${v.approvedAt.slice(0, 10)}`);
  if (v.paidAt) doc.text(`Paid: ${v.paidAt.slice(0, 10)}, reference ${v.paymentReference ?? ''}`);
  doc.moveDown();
  for (const e of v.entries) doc.text(`${(e.invoiceDate ?? '').slice(0, 10)}  ${e.invoiceNumber}  ${e.customerNumber}  base ${m(e.base)}  commission ${m(e.commission)}`);
  if (v.adjustments.length) {
    doc.moveDown().text('Adjustments');
    for (const a of v.adjustments) doc.text(`${a.type}  ${a.invoiceNumber}  ${m(a.amount)}  ${a.reason}`);
  }
  doc.moveDown().fontSize(12).text(`Total commission: ${m(v.totalCommission)}`).text(`Payable: ${m(v.payableTotal)}`);
  doc.end();
  return done;
}

/** Renders the statement's current state and stores it (same key each time; idempotent). */
export async function storeStatementPdf(em: EntityManager, storage: Storage, ref: { organizationId: string; statementId: string }): Promise<string> {
  const st = await em.findOneOrFail(CommissionStatement, { id: ref.statementId, organization: ref.organizationId });
  const org = await em.findOneOrFail(Organization, { id: ref.organizationId });
  const key = statementPdfKey(ref.organizationId, ref.statementId);
  await storage.put(key, await renderStatementPdf(await statementView(em, st), org.name), 'application/pdf');
  return key;
}
