/**
 * hostedPayment (id `hosted-payment-<transactionSetupId>`): waits for the provider's callback
 * until the setup's timer fires. The callback endpoint hands the callback over with the
 * `hostedCallbackUpdate` update and answers the browser with the update's result:
 * - in time: the first callback is reconciled (payment recorded, card saved) and every callback,
 *   duplicates included, gets that outcome;
 * - after the timer fired: the setup is expired, and an approved charge is voided at the provider
 *   and recorded as `Voided` (a late zero-amount card save stays `Expired`).
 * A callback that arrives once this workflow has closed goes to settleLateHostedCallback.
 * The `hostedCallback` signal stays for callers of the previous API version.
 */
import { allHandlersFinished, condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createPaymentActivities } from '../activities/payments.js';
import {
  hostedCallbackSignal,
  hostedCallbackUpdate,
  hostedStatusQuery,
  type HostedCallback,
  type HostedOutcome,
  type HostedPaymentInput,
  type HostedStatus,
  type LateHostedCallbackInput,
} from './hosted-payment-defs.js';
import { mustSucceed, providerCall } from './retry-policies.js';

type Acts = ReturnType<typeof createPaymentActivities>;

const { reconcileHostedPayment, expireHostedPayment } = proxyActivities<Acts>({ ...mustSucceed, startToCloseTimeout: '1 minute' });
const { voidLateHostedPayment } = proxyActivities<Acts>(providerCall);

export async function hostedPayment(input: HostedPaymentInput): Promise<HostedOutcome> {
  let callback: HostedCallback | undefined;
  let waiting = true;
  let outcome: HostedOutcome | undefined = undefined;
  let state: HostedStatus = { status: 'pending', result: null };
  const ref = { organizationId: input.organizationId, transactionSetupId: input.transactionSetupId };
  setHandler(hostedCallbackSignal, (cb) => {
    if (callback === undefined && waiting) callback = cb;
  });
  setHandler(hostedCallbackUpdate, async (cb) => {
    if (callback === undefined && waiting) callback = cb;
    await condition(() => outcome !== undefined);
    const settled = outcome as HostedOutcome;
    // The timer fired before this callback: whatever the provider approved is given back.
    if (settled.status === 'expired') return voidLateHostedPayment({ ...ref, callback: cb });
    return settled;
  });
  setHandler(hostedStatusQuery, () => state);
  const remainingMs = Math.max(1, Date.parse(input.expiresAt) - Date.now());
  const arrived = await condition(() => callback !== undefined, remainingMs);
  waiting = false;
  outcome = arrived && callback ? await reconcileHostedPayment({ ...ref, callback }) : await expireHostedPayment(ref);
  state = { status: outcome.status, result: outcome.result };
  // Late callbacks already accepted finish their void before the workflow closes.
  await condition(allHandlersFinished);
  return outcome;
}

/** A callback for a setup whose workflow has closed (id `hosted-late-<transactionSetupId>`): voids a late approval, once. */
export async function settleLateHostedCallback(input: LateHostedCallbackInput): Promise<HostedOutcome> {
  return voidLateHostedPayment(input);
}
