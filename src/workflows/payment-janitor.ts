/**
 * paymentJanitor (issue 21): one reconciliation pass of the provider's charges against the recorded
 * payments (src/services/payments/janitor.ts). Started every hour by the deployment's Temporal
 * Schedule `payment-janitor` (created at worker start), or for one organization by an Admin
 * (POST /api/payments/reconciliation/run). The pass is idempotent, so a retried activity or an
 * overlapping run changes nothing twice.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { createJanitorActivities } from '../activities/janitor.js';
import type { PaymentJanitorInput, PaymentJanitorResult } from './payment-janitor-defs.js';
import { bounded } from './retry-policies.js';

const { reconcileProviderCharges } = proxyActivities<ReturnType<typeof createJanitorActivities>>({ startToCloseTimeout: '10 minutes', retry: bounded(5) });

export async function paymentJanitor(input: PaymentJanitorInput): Promise<PaymentJanitorResult> {
  return reconcileProviderCharges(input);
}
