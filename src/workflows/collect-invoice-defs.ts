/** Input, result and signal of the collectInvoice (dunning) workflow, shared by the workflow, its activities and the API (no activity proxies here). */
import { defineSignal } from '@temporalio/workflow';
import type { WorkflowAbout } from './tags-defs.js';

export const dunningWorkflowId = (invoiceId: string) => `dunning-${invoiceId}`;

/** What a collectInvoice workflow does (its summary: `Dunning of invoice INV-1 for customer C-1 of organization …: 25.00 USD open`). */
export const collectInvoiceAbout = (invoiceNumber: string, balance: string | null | undefined): WorkflowAbout => ({
  what: `Dunning of invoice ${invoiceNumber}`,
  amount: balance ? `${balance} open` : null,
});

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
