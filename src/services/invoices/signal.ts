/** Tells an invoice's dunning workflow that what the invoice owes changed, or starts it again. */
import { log } from '../../logger.js';
import type { Config } from '../../config.js';
import { isWorkflowNotFound, signalWithStart, type Client } from '../../adapters/temporal.js';
import { collectInvoiceAbout, dunningWorkflowId, invoiceChangedSignal, type CollectInvoiceInput } from '../../workflows/collect-invoice-defs.js';

export const invoiceWorkflowId = (invoiceId: string) => `invoice-${invoiceId}`;

/**
 * Tells the invoice's dunning workflow (collectInvoice) that what the invoice owes changed
 * (payment, void, cancel, refund): it re-reads the invoice at once and stops when it is closed.
 * Best effort: the workflow also re-reads the invoice on its own timers.
 */
export async function signalDunning(client: Client, invoiceId: string): Promise<void> {
  try {
    await client.workflow.getHandle(dunningWorkflowId(invoiceId)).signal(invoiceChangedSignal);
  } catch (e) {
    if (isWorkflowNotFound(e)) return;
    log.warn('could not signal the dunning workflow', { invoiceId, error: String(e) });
  }
}

/** After a refund reopened an invoice: its dunning workflow is signalled, or started again when it had ended (signal-with-start). */
export async function resumeDunning(client: Client, config: Config, input: CollectInvoiceInput & { invoiceNumber: string; customerNumber: string; balance: string | null }): Promise<void> {
  try {
    await signalWithStart(client, config, {
      workflowType: 'collectInvoice',
      workflowId: dunningWorkflowId(input.invoiceId),
      args: [{ organizationId: input.organizationId, invoiceId: input.invoiceId }],
      signal: invoiceChangedSignal,
      signalArgs: [],
      keys: { organizationId: input.organizationId, customerNumber: input.customerNumber, invoiceNumber: input.invoiceNumber },
      about: collectInvoiceAbout(input.invoiceNumber, input.balance),
    });
  } catch (e) {
    log.warn('could not resume the dunning workflow', { invoiceId: input.invoiceId, error: String(e) });
  }
}
