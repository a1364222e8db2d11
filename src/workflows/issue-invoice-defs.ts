/** Input, result and signal of the issueInvoice workflow, shared by the workflow and its callers (no activity proxies here). */
import { defineSignal } from '@temporalio/workflow';

export interface IssueInvoiceInput {
  organizationId: string;
  invoiceId: string;
  /** Seconds to wait before the reminder instead of the due date (INVOICE_REMINDER_DELAY_OVERRIDE_SECONDS). */
  reminderDelaySeconds?: number | null;
}

export interface IssueInvoiceResult {
  reminded: boolean;
}

/** Sent on Paid, Voided, Cancelled: the workflow stops waiting and sends no reminder. */
export const invoiceClosedSignal = defineSignal('invoiceClosed');
