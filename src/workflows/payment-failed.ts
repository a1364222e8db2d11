/**
 * Workflow-side card charging shared by payInvoiceByCard and checkoutCart (not a workflow
 * itself): charge a saved profile; when the provider declines, write the `payment.failed`
 * webhook event, then surface the refusal as the workflow's failure.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ChargeInput, createPaymentActivities, PaymentFailedInput } from '../activities/payments.js';
import { surface } from './lib/surface.js';
import { mustSucceed, providerCall } from './retry-policies.js';

type Acts = ReturnType<typeof createPaymentActivities>;
const events = proxyActivities<Acts>(mustSucceed);
const provider = proxyActivities<Acts>(providerCall);

/** Whether a failed charge is the provider declining the card (AppError payment_required). */
function declined(e: unknown): e is ActivityFailure & { cause: ApplicationFailure } {
  return e instanceof ActivityFailure && e.cause instanceof ApplicationFailure && e.cause.type === 'payment_required';
}

/** What the payment.failed event says about a declined charge besides the charge itself and the provider's answer. */
export type DeclineContext = Pick<PaymentFailedInput, 'source' | 'invoiceId' | 'invoiceNumber' | 'cartId' | 'orderNumber' | 'customerNumber'>;

/** When `e` is a decline, writes the payment.failed event (once per workflow run) before the caller surfaces `e`. */
async function reportDecline(e: unknown, charge: ChargeInput, about: DeclineContext): Promise<void> {
  if (!declined(e)) return;
  const info = workflowInfo();
  await events.recordPaymentFailed({
    organizationId: charge.organizationId,
    ...about,
    amount: charge.amount,
    currencyCode: charge.currency,
    eventKey: `${info.workflowId}:${info.runId}`,
    message: e.cause.message,
    details: e.cause.details ? [...e.cause.details] : [],
  });
}

/** Charges the saved profile and answers the provider's charge id; a decline is reported (payment.failed) and surfaced. */
export async function chargeOrReportDecline(charge: ChargeInput, about: DeclineContext): Promise<string> {
  try {
    return (await provider.chargeProfile(charge)).chargeId;
  } catch (e) {
    await reportDecline(e, charge, about);
    surface(e);
  }
}
