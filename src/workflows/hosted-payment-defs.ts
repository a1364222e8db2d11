/**
 * Input, update, signal and query of the hostedPayment workflow, shared by the workflow, its
 * activities and the API's callback endpoint (no activity proxies here). The hosted-payment
 * service (src/services/payments/hosted.ts) takes these types from here.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** The input of the hostedPayment workflow (no card data, ever). */
export interface HostedPaymentInput {
  organizationId: string;
  transactionSetupId: string;
  /** ISO time the setup expires (the workflow's timer). */
  expiresAt: string;
}

/** What a setup came to, as the browser's redirect and the callback update answer it. */
export interface HostedOutcome {
  transactionSetupId: string;
  status: 'pending' | 'approved' | 'declined' | 'expired';
  result: string;
  amount: string;
  lastFour: string | null;
  paymentMethodId: string | null;
  invoicePaymentId: string | null;
}

/** The callback fields the workflow carries (no card number exists in them: last four only). */
export interface HostedCallback {
  TransactionSetupID: string;
  Result: string;
  Amount: string;
  CardType: string;
  LastFour: string;
  ExpirationMonth: string;
  ExpirationYear: string;
  PaymentProfileId: string;
  TransactionId: string;
  ApprovalCode: string;
}

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
