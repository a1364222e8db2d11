/**
 * Invoice issuance (id `invoice-<invoiceId>`): render and store the PDF, e-mail the customer a
 * link to it, then, for an invoice with a balance, start its dunning process (collectInvoice,
 * `dunning-<invoiceId>`: reminders, overdue notices, credit hold) and end. Executions started
 * before the dunning process existed (patch `dunning-replaces-reminder`) still wait until the due date (or the configured override) unless the invoice is
 * closed first (invoiceClosedSignal, sent by the API on Paid, Voided, Cancelled). On timeout a
 * reminder goes out when the invoice is still open. Time comes from the workflow (deterministic).
 */
import {
  type ActivityOptions,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { createEmailActivities } from '../activities/email.js';
import type { createInvoiceActivities } from '../activities/invoices.js';
import { dunningWorkflowId } from './collect-invoice-defs.js';
import { invoiceClosedSignal, type IssueInvoiceInput, type IssueInvoiceResult } from './issue-invoice-defs.js';
import { startChildOnce } from './lib/start-child-once.js';
import { deliverOnMailQueue, MAIL_QUEUE_PATCH } from './mail-delivery.js';
import { asLocal, emailDelivery, localEmailDelivery, mustSucceed } from './retry-policies.js';

// The PDF and the facts are reads and an idempotent upload: retried until storage and database answer.
const storage: ActivityOptions = { ...mustSucceed, startToCloseTimeout: '1 minute' };
const { storeInvoicePdf, invoiceMailFacts } = proxyActivities<ReturnType<typeof createInvoiceActivities>>(storage);
const { deliverEmail } = proxyActivities<ReturnType<typeof createEmailActivities>>(emailDelivery);
// Since patch `issuance-local-steps`: the same steps as local activities (history markers, no task round trip each).
const localInvoice = proxyLocalActivities<ReturnType<typeof createInvoiceActivities>>(asLocal(storage));
const localEmail = proxyLocalActivities<ReturnType<typeof createEmailActivities>>(localEmailDelivery);
const OrganizationIdKey = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);
const InvoiceNumberKey = defineSearchAttributeKey('InvoiceNumber', SearchAttributeType.KEYWORD);

export async function issueInvoice(input: IssueInvoiceInput): Promise<IssueInvoiceResult> {
  let closed = false;
  setHandler(invoiceClosedSignal, () => {
    closed = true;
  });
  const ref = { organizationId: input.organizationId, invoiceId: input.invoiceId };
  const lean = patched('issuance-local-steps');
  const facts = await (lean ? localInvoice.storeInvoicePdf : storeInvoicePdf)(ref);
  const data = {
    invoiceNumber: facts.invoiceNumber,
    organizationName: facts.organizationName,
    companyName: facts.companyName,
    dueDate: facts.dueDate,
    totalFormatted: facts.totalFormatted,
    pdfUrl: facts.pdfUrl,
  };
  if (facts.to) {
    // Since patch `email-mail-queue` on the mail queue (mail-delivery.ts); before it a local activity, or older still an activity of this queue.
    const deliver = patched(MAIL_QUEUE_PATCH) ? deliverOnMailQueue : lean ? localEmail.deliverEmail : deliverEmail;
    await deliver({
      emailId: `invoice-issued-${input.invoiceId}`,
      organizationId: input.organizationId,
      template: 'invoice-issued',
      to: facts.to,
      data,
    });
  }
  // The reminder folds into the dunning process (collectInvoice, docs/credit.md); executions started before keep their one reminder.
  if (patched('dunning-replaces-reminder')) {
    if (facts.open) {
      await startChildOnce('collectInvoice', {
        workflowId: dunningWorkflowId(input.invoiceId),
        args: [ref],
        typedSearchAttributes: [
          { key: OrganizationIdKey, value: input.organizationId },
          { key: InvoiceNumberKey, value: facts.invoiceNumber },
        ],
      });
    }
    return { reminded: false };
  }
  // Date.now() inside a workflow is the deterministic workflow clock.
  const waitMs =
    input.reminderDelaySeconds !== undefined && input.reminderDelaySeconds !== null
      ? input.reminderDelaySeconds * 1000
      : Math.max(0, Date.parse(facts.dueDate) - Date.now());
  if (await condition(() => closed, waitMs)) return { reminded: false };
  const now = await invoiceMailFacts(ref);
  if (!now.open || !now.to) return { reminded: false };
  await deliverEmail({
    emailId: `invoice-reminder-${input.invoiceId}`,
    organizationId: input.organizationId,
    template: 'invoice-reminder',
    to: now.to,
    data: { ...data, balanceFormatted: now.balanceFormatted },
  });
  return { reminded: true };
}
