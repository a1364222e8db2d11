/**
 * Card money on invoices, as workflows so that no route calls the provider and then the database.
 *
 * payInvoiceByCard (id `invoice-payment-<idempotency key>`): check the invoice -> charge the saved
 * profile (provider key = the payment's idempotency key) -> record the payment (must succeed;
 * retried without limit) -> tell the issuance workflow when the invoice is Paid. A worker killed
 * anywhere, inside the charge included, resumes with the same keys: one charge, one payment.
 * A business refusal when recording (e.g. another payment took the balance meanwhile) voids the
 * charge and surfaces the refusal.
 *
 * refundInvoicePayment (id `invoice-refund-<refund key>`): refund at the provider (key = refund
 * key) -> record the refund on the invoice (must succeed).
 */
import { CancellationScope, getExternalWorkflowHandle, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createInvoicePaymentActivities } from '../activities/invoice-payments.js';
import type { createPaymentActivities } from '../activities/payments.js';
import type { InvoiceCardPaymentInput, RecordPaymentResult, RefundInvoicePaymentInput } from './invoice-payments-defs.js';
import { invoiceClosedSignal } from './issue-invoice-defs.js';
import { surface } from './lib/surface.js';
import { chargeOrReportDecline } from './payment-failed.js';
import { mustSucceed, providerCall } from './retry-policies.js';

const db = proxyActivities<ReturnType<typeof createInvoicePaymentActivities>>(mustSucceed);
const provider = proxyActivities<ReturnType<typeof createPaymentActivities>>(providerCall);

async function signalClosed(invoiceId: string): Promise<void> {
  try {
    await getExternalWorkflowHandle(`invoice-${invoiceId}`).signal(invoiceClosedSignal);
  } catch (e) {
    // No issuance workflow (never issued) or a finished one: its reminder re-checks the status anyway.
    if (isCancellation(e)) throw e;
  }
}

export async function payInvoiceByCard(input: InvoiceCardPaymentInput): Promise<RecordPaymentResult> {
  let prepared;
  try {
    prepared = await db.prepareInvoiceCardPayment(input);
  } catch (e) {
    surface(e);
  }
  if (prepared.recorded) return prepared.recorded;
  const chargeId = await chargeOrReportDecline(
    {
      organizationId: input.organizationId,
      paymentProfileId: input.paymentProfileId,
      amount: prepared.chargeAmount,
      currency: prepared.currency,
      idempotencyKey: input.idempotencyKey,
      reference: prepared.invoiceNumber,
    },
    {
      source: 'invoice',
      invoiceId: input.invoiceId,
      invoiceNumber: prepared.invoiceNumber,
      cartId: null,
      orderNumber: null,
      customerNumber: null,
    },
  );
  let result: RecordPaymentResult;
  try {
    result = await db.recordInvoiceCardPayment({ ...input, providerChargeId: chargeId });
  } catch (e) {
    const voidIt = () => provider.voidCharge({ organizationId: input.organizationId, chargeId, idempotencyKey: `void:${input.idempotencyKey}` });
    await (isCancellation(e) ? CancellationScope.nonCancellable(voidIt) : voidIt());
    surface(e);
  }
  if (result.status === 'Paid') await signalClosed(input.invoiceId);
  return result;
}

export async function refundInvoicePayment(input: RefundInvoicePaymentInput): Promise<{ status: string }> {
  const { chargeId, ...refund } = input;
  try {
    if (chargeId) await provider.refundCharge({ organizationId: input.organizationId, chargeId, amount: input.amount, idempotencyKey: input.refundKey });
    return await db.recordInvoiceRefund({ ...refund, providerRefunded: chargeId !== null });
  } catch (e) {
    surface(e);
  }
}
