/**
 * Invoice issuance (id `invoice-<invoiceId>`): render and store the PDF (a local activity), e-mail
 * the customer a link to it on the mail queue, then, for an invoice with a balance, start its
 * dunning process (collectInvoice, `dunning-<invoiceId>`: reminders, overdue notices, credit hold)
 * and end.
 */
import { type ActivityOptions, proxyLocalActivities } from '@temporalio/workflow';
import type { createInvoiceActivities } from '../activities/invoices.js';
import { collectInvoiceAbout, dunningWorkflowId } from './collect-invoice-defs.js';
import type { IssueInvoiceInput, IssueInvoiceResult } from './issue-invoice-defs.js';
import { startChildOnce } from './lib/start-child-once.js';
import { deliverOnMailQueue } from './mail-delivery.js';
import { asLocal, mustSucceed } from './retry-policies.js';
import { workflowTags } from './tags-defs.js';

// The PDF and the facts are reads and an idempotent upload: retried until storage and database answer.
const storage: ActivityOptions = { ...mustSucceed, startToCloseTimeout: '1 minute' };
const { storeInvoicePdf } = proxyLocalActivities<ReturnType<typeof createInvoiceActivities>>(asLocal(storage));

export async function issueInvoice(input: IssueInvoiceInput): Promise<IssueInvoiceResult> {
  const ref = { organizationId: input.organizationId, invoiceId: input.invoiceId };
  const facts = await storeInvoicePdf(ref);
  if (facts.to) {
    await deliverOnMailQueue({
      emailId: `invoice-issued-${input.invoiceId}`,
      organizationId: input.organizationId,
      template: 'invoice-issued',
      to: facts.to,
      data: {
        invoiceNumber: facts.invoiceNumber,
        organizationName: facts.organizationName,
        companyName: facts.companyName,
        dueDate: facts.dueDate,
        totalFormatted: facts.totalFormatted,
        pdfUrl: facts.pdfUrl,
      },
    });
  }
  // An invoice with a balance goes on to its dunning process (collectInvoice, docs/credit.md).
  if (facts.open) {
    await startChildOnce('collectInvoice', {
      workflowId: dunningWorkflowId(input.invoiceId),
      args: [ref],
      ...workflowTags({ organizationId: input.organizationId, customerNumber: facts.customerNumber, invoiceNumber: facts.invoiceNumber }, collectInvoiceAbout(facts.invoiceNumber, facts.balanceFormatted)),
    });
  }
  return { reminded: false };
}
