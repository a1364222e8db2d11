/**
 * Workflow-side reporting of a declined card charge as the `payment.failed` webhook event
 * (used by payInvoiceByCard and checkoutCart). Not a workflow itself. Behind
 * `patched('payment-failed-event')`: histories recorded before the event existed replay unchanged.
 */
import { ActivityFailure, ApplicationFailure, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createPaymentActivities, PaymentFailedInput } from '../activities/payments.js';
import { mustSucceed } from './retry-policies.js';

const events = proxyActivities<ReturnType<typeof createPaymentActivities>>(mustSucceed);

/** Whether a failed charge is the provider declining the card (AppError payment_required). */
function declined(e: unknown): e is ActivityFailure & { cause: ApplicationFailure } {
  return e instanceof ActivityFailure && e.cause instanceof ApplicationFailure && e.cause.type === 'payment_required';
}

/** When `e` is a decline, writes the payment.failed event (once per workflow run) before the caller surfaces `e`. */
export async function reportDecline(e: unknown, what: Omit<PaymentFailedInput, 'eventKey' | 'message' | 'details'>): Promise<void> {
  if (!declined(e) || !patched('payment-failed-event')) return;
  const info = workflowInfo();
  await events.recordPaymentFailed({
    ...what,
    eventKey: `${info.workflowId}:${info.runId}`,
    message: e.cause.message,
    details: e.cause.details ? [...e.cause.details] : [],
  });
}
