import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createPaymentActivities } from '../activities/payments.js';
import type { HostedCallback, HostedOutcome, HostedPaymentInput } from '../services/payments/hosted.js';

type Acts = ReturnType<typeof createPaymentActivities>;

const { reconcileHostedPayment, expireHostedPayment } = proxyActivities<Acts>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30 },
});

/** The provider's verified callback (the API verifies the Signature before signalling). */
export const hostedCallbackSignal = defineSignal<[HostedCallback]>('hostedCallback');
export interface HostedStatus {
  status: 'pending' | 'approved' | 'declined' | 'expired';
  result: string | null;
}
export const hostedStatusQuery = defineQuery<HostedStatus>('hostedStatus');

/**
 * One hosted payment: waits for the provider's callback until the setup expires. The first
 * callback is reconciled (payment recorded, card saved); later ones are ignored. Without a
 * callback in time, the setup is marked expired. Returns the outcome.
 */
export async function hostedPayment(input: HostedPaymentInput): Promise<HostedOutcome> {
  let callback: HostedCallback | undefined;
  let state: HostedStatus = { status: 'pending', result: null };
  setHandler(hostedCallbackSignal, (cb) => {
    if (callback === undefined && state.status === 'pending') callback = cb;
  });
  setHandler(hostedStatusQuery, () => state);
  const remainingMs = Math.max(1, Date.parse(input.expiresAt) - Date.now());
  const arrived = await condition(() => callback !== undefined, remainingMs);
  const ref = { organizationId: input.organizationId, transactionSetupId: input.transactionSetupId };
  const outcome = arrived && callback ? await reconcileHostedPayment({ ...ref, callback }) : await expireHostedPayment(ref);
  state = { status: outcome.status, result: outcome.result };
  return outcome;
}
