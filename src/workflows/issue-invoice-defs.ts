/** Input, result and signal of the issueInvoice workflow, shared by the workflow and its callers (no activity proxies here). */
import { defineSignal } from '@temporalio/workflow';

export interface IssueInvoiceInput {
  organizationId: string;
  invoiceId: string;
}

/** `reminded` is always false: reminders belong to the dunning process (collectInvoice). */
export interface IssueInvoiceResult {
  reminded: boolean;
}

/**
 * Once told an issuance waiting for its reminder that the invoice closed. Nothing waits for it any
 * more; payInvoiceByCard still sends it (a command of its recorded histories), and it is ignored.
 */
export const invoiceClosedSignal = defineSignal('invoiceClosed');
