/**
 * Contract of the approvePurchase workflow (id `approval-<approvalId>`), shared by the workflow,
 * its activities and the API. Approve, reject and withdraw are updates whose validator refuses a decided
 * request (ApplicationFailure `WrongState`, a 409 at the API).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalStatus } from '../domain/approvals/rules.js';
import type { CheckoutInput, CheckoutResult } from './checkout-cart-defs.js';
import type { QuoteActor } from './negotiate-quote-defs.js';

export interface ApprovePurchaseInput {
  organizationId: string;
  approvalId: string;
  customerNumber: string;
  /** A held checkout (subject Cart), continued as workflow checkout-<cartId> once approved. Absent for the other subjects. */
  checkout?: CheckoutInput;
  /** A held quote accept (subject Quote), continued by signal `acceptApproved` to workflow quote-<quoteId> once approved. */
  quoteAccept?: QuoteAcceptHold;
  /** An order posted by the buyer (subject Order), stored PendingApproval: the decision releases or cancels it. */
  orderId?: string;
  escalationMs: number;
  expiryMs: number;
}

/** A quote accept held above the buyer's limits: what the accept continues with once approved (never card data: a tokenized profile at most). */
export interface QuoteAcceptHold {
  quoteId: string;
  by: QuoteActor;
  poNumber: string | null;
  /** A card (saved or tokenized) to charge; null: on account. */
  paymentProfileId: string | null;
}

export interface ApprovalState {
  status: ApprovalStatus;
  level: number;
  /** The checkout's result once approved and checked out. */
  result: CheckoutResult | null;
  /** Why the approved checkout failed (e.g. a declined card), if it did. */
  checkoutError: string | null;
}

export interface DecisionArgs {
  requestId: string;
  by: string;
  /** Whether `by` is an organization admin (may decide at any level). */
  isAdmin: boolean;
  reason?: string;
}

export const APPROVAL_WRONG_STATE = 'WrongState';
/** An approve refused because the cart's total changed at current prices; details[0] is the Supersession (a 409 at the API). */
export const APPROVAL_SUPERSEDED = 'Superseded';

/** An approve that found the cart's total changed at current prices: the request is Superseded. */
export interface Supersession {
  currencyCode: string;
  /** The total the request asked for. */
  requestedTotal: string;
  /** The cart's total at current catalog/tier prices (the cart's lines now carry these prices). */
  currentTotal: string;
  /** The request asked for the new total; null when the new total is within the buyer's limits (the buyer checks out again). */
  newApprovalId: string | null;
  /** What the approver is told (the 409's detail). */
  message: string;
}

export const approveUpdate = defineUpdate<ApprovalState, [DecisionArgs]>('approvePurchase');
export const rejectUpdate = defineUpdate<ApprovalState, [DecisionArgs]>('rejectPurchase');
/**
 * The requester (or an admin) withdraws the Pending request (docs/approvals.md "Withdrawing"): the
 * wait ends, the request is Withdrawn. A new update: executions that never receive it run as
 * before, so it needs no patch (its commands exist only in histories recorded after it).
 */
export const withdrawUpdate = defineUpdate<ApprovalState, [DecisionArgs]>('withdrawPurchase');
export const approvalStateQuery = defineQuery<ApprovalState>('state');
/**
 * The customer's Approvers or the organization's admins changed (a role removed or changed, a user
 * re-associated to another customer or removed from the organization): the workflow revises its
 * chain at once and asks the next level when nobody asked at the current one may still decide.
 * Sent best effort by src/services/approvals/revise.ts; behind patch APPROVERS_CHANGED_PATCH.
 */
export const approversChangedSignal = defineSignal('approversChanged');
export const APPROVERS_CHANGED_PATCH = 'approval-approvers-changed';

export interface LevelInfo {
  level: number;
  kind: 'Approvers' | 'Admins';
  userIds: string[];
}
