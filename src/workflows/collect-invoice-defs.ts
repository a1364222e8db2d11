/** Input, result and signal of the collectInvoice (dunning) workflow, shared by the workflow, its activities and the API (no activity proxies here). */
import { defineSignal } from '@temporalio/workflow';

export const dunningWorkflowId = (invoiceId: string) => `dunning-${invoiceId}`;

export interface CollectInvoiceInput {
  organizationId: string;
  invoiceId: string;
}

export interface CollectInvoiceResult {
  /** Step keys done, in order (`due-7`, `due`, `due+7`, `due+14`, `hold`). */
  steps: string[];
  /** How the process ended: the invoice closed (paid, voided, cancelled) or was gone. */
  outcome: 'closed' | 'missing';
}

/** Sent by every path that changes what an invoice owes (payments, voids, cancels, refunds): the workflow re-reads the invoice at once. */
export const invoiceChangedSignal = defineSignal('invoiceChanged');
