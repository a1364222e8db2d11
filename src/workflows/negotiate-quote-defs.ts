/**
 * Contract of the negotiateQuote workflow (id `quote-<quoteId>`), shared by the workflow, its
 * activities and the API (no activity proxies here). Every step is an update: its validator refuses
 * a wrong state (ApplicationFailure `WrongState`, a 409 at the API), its handler answers the new state.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { QuoteStatus } from '../domain/quotes/states.js';
import type { QuoteVersion } from '../entities/Quote.js';

export interface NegotiateQuoteInput {
  organizationId: string;
  quoteId: string;
  quoteNumber: string;
  customerNumber: string;
  /** How long before an offer's expiresAt the buyer is reminded (QUOTE_REMINDER_BEFORE). */
  reminderBeforeMs: number;
}

export interface QuoteState {
  status: QuoteStatus;
  /** ISO time the current offer ends (Quoted), else null. */
  expiresAt: string | null;
  orderId: string | null;
  orderNumber: string | null;
}

export interface QuoteActor {
  userId: string | null;
  role: string;
  repNumber: string | null;
}

/** A seller's offer or a buyer's counter, already priced and checked by the API. */
export interface VersionArgs {
  requestId: string;
  version: Omit<QuoteVersion, 'version' | 'key'>;
}
export interface AcceptArgs {
  requestId: string;
  by: QuoteActor;
  poNumber: string | null;
  /** A card to charge (a saved or just tokenized profile, never card data); absent or null: on account (inputs before card accepts have none). */
  paymentProfileId?: string | null;
}

/** The accept of an approval (docs/approvals.md): the held accept, continued once the request is Approved. */
export interface ApprovedAcceptArgs extends AcceptArgs {
  approvalId: string;
}
export interface RejectArgs {
  requestId: string;
  by: QuoteActor;
  side: 'buyer' | 'seller' | null;
  reason: string;
}

/** ApplicationFailure type of a refused step (the API answers 409). */
export const QUOTE_WRONG_STATE = 'WrongState';

export const offerQuoteUpdate = defineUpdate<QuoteState, [VersionArgs]>('offer');
export const counterQuoteUpdate = defineUpdate<QuoteState, [VersionArgs]>('counter');
export const acceptQuoteUpdate = defineUpdate<QuoteState, [AcceptArgs]>('accept');
export const rejectQuoteUpdate = defineUpdate<QuoteState, [RejectArgs]>('reject');
export const quoteStateQuery = defineQuery<QuoteState>('state');
/** Sent by approvePurchase when a held accept is approved: the quote is accepted once (or stays open when it no longer can be), and the outcome is recorded on the request. */
export const acceptApprovedSignal = defineSignal<[ApprovedAcceptArgs]>('acceptApproved');

/** Input of the quote activities that change the row. */
export interface QuoteStepInput {
  organizationId: string;
  quoteId: string;
  /** Idempotency key of the step (a retried activity writes once). */
  key: string;
  action: 'offer' | 'counter' | 'reject' | 'expire';
  version?: Omit<QuoteVersion, 'version' | 'key'>;
  reason?: string;
  side?: 'buyer' | 'seller' | null;
  at: string;
}

export interface QuoteAcceptInput {
  organizationId: string;
  quoteId: string;
  key: string;
  by: QuoteActor;
  poNumber: string | null;
  at: string;
  /** A card accept: the charge (already made) the order is paid by; absent: on account. */
  chargeId?: string | null;
  /** A card accept: the amount charged, which the order must come to. */
  amount?: string;
}

export interface QuoteOrder {
  orderId: string;
  orderNumber: string;
  customerEmail: string | null;
  total: string;
  currency: string;
  customerNumber: string;
}
