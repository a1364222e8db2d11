/**
 * Update, signal and query of the hostedPayment workflow, shared by the workflow and the API's
 * callback endpoint (no activity proxies here). The payloads are the hosted-payment service's types.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { HostedCallback, HostedOutcome, HostedPaymentInput } from '../services/payments/hosted.js';

export type { HostedCallback, HostedOutcome, HostedPaymentInput };

/** The provider's verified callback (the API verifies the Signature first); answers the outcome for the browser. */
export const hostedCallbackUpdate = defineUpdate<HostedOutcome, [HostedCallback]>('hostedCallbackUpdate');
/** @deprecated The update above answers the outcome; the signal is kept for callers of the previous version. */
export const hostedCallbackSignal = defineSignal<[HostedCallback]>('hostedCallback');

export interface HostedStatus {
  status: 'pending' | 'approved' | 'declined' | 'expired';
  result: string | null;
}
export const hostedStatusQuery = defineQuery<HostedStatus>('hostedStatus');

/** Input of settleLateHostedCallback (a callback for a setup whose workflow has closed). */
export interface LateHostedCallbackInput {
  organizationId: string;
  transactionSetupId: string;
  callback: HostedCallback;
}
