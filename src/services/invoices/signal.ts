/** Tells an invoice's issuance workflow that the invoice is closed (Paid, Voided or Cancelled). */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { log } from '../../logger.js';
import { invoiceClosedSignal } from '../../workflows/issue-invoice-defs.js';

export const invoiceWorkflowId = (invoiceId: string) => `invoice-${invoiceId}`;

/** Best effort: no workflow (never issued) or a finished one is fine; the reminder re-checks the status anyway. */
export async function signalInvoiceClosed(client: Client, invoiceId: string): Promise<void> {
  try {
    await client.workflow.getHandle(invoiceWorkflowId(invoiceId)).signal(invoiceClosedSignal);
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) return;
    log.warn('could not signal the invoice workflow', { invoiceId, error: String(e) });
  }
}
