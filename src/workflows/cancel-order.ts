/**
 * refundOrderCancellation (id `order-cancel-<cancellationId>`; docs/returns.md "Cancellation"):
 * refunds the cancelled amount of a card order at the provider with the idempotency key
 * `order-cancel-<cancellationId>` (retried without limit while the provider is unreachable), then
 * records it (must succeed). A worker killed anywhere resumes with the same key: the provider's
 * ledger holds one refund.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { createCancellationActivities } from '../activities/cancellations.js';
import type { createPaymentActivities } from '../activities/payments.js';
import type { CancellationRefundInput } from './cancel-order-defs.js';
import { surface } from './lib/surface.js';
import { mustSucceed, providerCall } from './retry-policies.js';

const db = proxyActivities<ReturnType<typeof createCancellationActivities>>(mustSucceed);
const provider = proxyActivities<ReturnType<typeof createPaymentActivities>>(providerCall);

export async function refundOrderCancellation(input: CancellationRefundInput): Promise<{ status: string }> {
  try {
    await provider.refundCharge({ organizationId: input.organizationId, chargeId: input.chargeId, amount: input.amount, idempotencyKey: input.refundKey });
    return await db.recordCancellationRefund(input);
  } catch (e) {
    surface(e);
  }
}
