/**
 * approvePurchase (id `approval-<approvalId>`, search attributes OrganizationId, CustomerNumber): an
 * order held above the buyer's spending limit (a checkout, a quote accept or a posted order; the
 * one admission of orders, src/services/orders/admission.ts). Asks the chain level by level (the customer's
 * Approvers by their own limit, then the organization's admins; e-mails through sendEmail),
 * escalating to the next level after `escalationMs` without an answer, and expires after
 * `expiryMs` (the cart stays open). Approve, reject and withdraw (by the requester) are updates: the validator refuses a decided
 * request or a second decision in flight (`WrongState`, a 409). An approve re-checks the cart's
 * total at current catalog prices: a changed total ends this request as Superseded (the approve is
 * refused with `Superseded`, a 409 naming both totals) and starts approval-<new id> for the new
 * total when it still needs one. Otherwise it continues the held checkout as workflow
 * checkout-<cartId> (so it charges once), answering its order number; a held quote accept is
 * signalled to quote-<quoteId> (accepted there once, or the quote stays open); a held order was
 * released by the decision itself.
 */
import { ApplicationFailure, ChildWorkflowFailure, allHandlersFinished, condition, getExternalWorkflowHandle, isCancellation, patched, proxyActivities, setHandler, uuid4, workflowInfo } from '@temporalio/workflow';
import type { createApprovalActivities } from '../activities/approvals.js';
import { APPROVAL_SUPERSEDED, APPROVAL_WRONG_STATE, APPROVERS_CHANGED_PATCH, approvalStateQuery, approversChangedSignal, approveUpdate, rejectUpdate, withdrawUpdate, type ApprovalState, type ApprovePurchaseInput, type DecisionArgs, type QuoteAcceptHold, type Supersession } from './approve-purchase-defs.js';
import type { CheckoutInput, CheckoutResult } from './checkout-cart-defs.js';
import { startChildOnce } from './lib/start-child-once.js';
import { childTags, emailAbout, type BusinessKeys } from './tags-defs.js';
// A refusal of an activity (a WrongState 409, e.g. the cart closed) answers as the update's own failure, so the API maps it.
import { surfaced } from './lib/surface.js';
import { acceptApprovedSignal } from './negotiate-quote-defs.js';
import { mustSucceed } from './retry-policies.js';
import type { SendEmailInput } from './send-email-defs.js';


const acts = proxyActivities<ReturnType<typeof createApprovalActivities>>(mustSucceed);

async function sendAll(mails: readonly (SendEmailInput | null)[], keys: BusinessKeys): Promise<void> {
  for (const mail of mails) {
    if (!mail) continue;
    await startChildOnce('sendEmail', { workflowId: `email-${mail.emailId}`, args: [mail], taskQueue: workflowInfo().taskQueue, ...childTags(keys, emailAbout(mail.template, keys)) });
  }
}

export async function approvePurchase(input: ApprovePurchaseInput): Promise<ApprovalState> {
  const ref = { organizationId: input.organizationId, approvalId: input.approvalId };
  const keys: BusinessKeys = { organizationId: input.organizationId, customerNumber: input.customerNumber };
  const state: ApprovalState = { status: 'Pending', level: 1, result: null, checkoutError: null };
  let busy = false;
  let restarts = 0;
  const now = () => new Date(Date.now()).toISOString();
  const wrongState = (message: string) => ApplicationFailure.create({ type: APPROVAL_WRONG_STATE, message, nonRetryable: true });
  const guard = () => {
    if (busy) throw wrongState('Another decision on this approval is being recorded.');
    if (state.status !== 'Pending') throw wrongState(`The approval is ${state.status}.`);
  };
  const decideTurn = async (fn: () => Promise<void>): Promise<ApprovalState> => {
    while (busy) await condition(() => !busy);
    guard();
    busy = true;
    try {
      await fn();
    } finally {
      busy = false;
    }
    return state;
  };

  /**
   * Continues the held checkout as checkout-<cartId> (the same id complete-checkout uses) and waits for
   * its result. With the approved total (decisions recorded before it carry none), a cart edited after
   * the approval is refused by the checkout before anything is charged.
   */
  const checkOut = async (held: CheckoutInput, approvedTotal?: string, approvedLines?: CheckoutInput['expectedLines']) => {
    try {
      const child = await startChildOnce('checkoutCart', {
        workflowId: `checkout-${held.cartId}`,
        // The approved lines (decisions recorded before them carry none): a request that superseded another holds the repriced lines, not those of the input.
        args: [approvedTotal === undefined ? held : { ...held, expectedAmount: approvedTotal, ...(approvedLines ? { expectedLines: approvedLines } : {}) }],
        taskQueue: workflowInfo().taskQueue,
        ...childTags(keys, { what: `Checkout of cart ${held.cartId} (approved)`, amount: approvedTotal ?? null }),
      });
      if (child) state.result = (await child.result()) as CheckoutResult;
      else state.checkoutError = 'A checkout of this cart is already running; complete-checkout answers its result.';
    } catch (e) {
      if (e instanceof ChildWorkflowFailure) state.checkoutError = e.cause?.message ?? 'The checkout failed.';
      else throw e;
    }
    await acts.recordApprovalCheckout({ ...ref, orderNumber: state.result?.orderNumber ?? null, error: state.checkoutError, at: now() });
  };

  /** Continues the held quote accept: signal acceptApproved to quote-<quoteId>; a quote whose negotiation ended is recorded as the failure. */
  const acceptQuote = async (held: QuoteAcceptHold) => {
    try {
      await getExternalWorkflowHandle(`quote-${held.quoteId}`).signal(acceptApprovedSignal, { ...held, requestId: input.approvalId, approvalId: input.approvalId });
    } catch (e) {
      if (isCancellation(e)) throw e;
      state.checkoutError = 'The quote is no longer open; its negotiation has ended.';
      await acts.recordApprovalCheckout({ ...ref, orderNumber: null, error: state.checkoutError, at: now() });
    }
  };

  /** The request asked for a changed total (a Superseded approve): its own approvePurchase, outliving this one. */
  const startApproval = async (approvalId: string) => {
    await startChildOnce('approvePurchase', {
      workflowId: `approval-${approvalId}`,
      args: [{ ...input, approvalId }],
      taskQueue: workflowInfo().taskQueue,
      ...childTags(keys, { what: 'Approval of a changed total' }),
    });
  };

  setHandler(approvalStateQuery, () => state);
  setHandler(
    approveUpdate,
    async (a) => {
      let restarted = false;
      const out: { superseded: Supersession | null } = { superseded: null };
      await decideTurn(async () => {
        const r = await surfaced(acts.decideApproval({ ...ref, action: 'approve', by: a.by, byAdmin: a.isAdmin, key: `approve-${a.requestId}`, at: now(), newApprovalId: uuid4() }));
        if (r.restarted) {
          restarted = true;
          restarts++;
          return;
        }
        state.status = r.status;
        if (r.superseded) {
          out.superseded = r.superseded;
          if (r.superseded.newApprovalId) await startApproval(r.superseded.newApprovalId);
          await sendAll([r.mail], keys);
          return;
        }
        // What the request holds goes ahead once: the checkout, the quote accept (the quote's own
        // workflow accepts it and records the outcome here), or the order (released by the decision).
        if (input.checkout) await checkOut(input.checkout, r.approvedTotal, r.approvedLines);
        else if (input.quoteAccept) await acceptQuote(input.quoteAccept);
      });
      if (restarted) throw wrongState('The cart total changed since the approval was requested; the approval has been asked again for the new total.');
      if (out.superseded) throw ApplicationFailure.create({ type: APPROVAL_SUPERSEDED, message: out.superseded.message, nonRetryable: true, details: [out.superseded] });
      return state;
    },
    { validator: (_a: DecisionArgs) => guard() },
  );
  setHandler(
    rejectUpdate,
    (a) =>
      decideTurn(async () => {
        const r = await surfaced(acts.decideApproval({ ...ref, action: 'reject', by: a.by, byAdmin: a.isAdmin, reason: a.reason ?? null, key: `reject-${a.requestId}`, at: now() }));
        state.status = r.status;
        await sendAll([r.mail], keys);
      }),
    { validator: (_a: DecisionArgs) => guard() },
  );

  // The requester (or an admin) withdraws the request: recorded like a reject; the wait below ends (status no longer Pending).
  setHandler(
    withdrawUpdate,
    (a) =>
      decideTurn(async () => {
        const r = await surfaced(acts.decideApproval({ ...ref, action: 'withdraw', by: a.by, byAdmin: a.isAdmin, reason: a.reason ?? null, key: `withdraw-${a.requestId}`, at: now() }));
        state.status = r.status;
        await sendAll([r.mail], keys);
      }),
    { validator: (_a: DecisionArgs) => guard() },
  );

  // Executions recorded before the patch never see the signal (the handler drops it on replay).
  let approversChanged = false;
  setHandler(approversChangedSignal, () => {
    if (patched(APPROVERS_CHANGED_PATCH)) approversChanged = true;
  });

  let levels = await acts.approvalChain(ref);
  const deadline = Date.now() + input.expiryMs;
  let index = 0;
  let asked = -1;
  let seenRestarts = 0;
  let askNote: string | null = null;
  while (state.status === 'Pending') {
    while (busy) await condition(() => !busy);
    if (state.status !== 'Pending') break;
    if (restarts !== seenRestarts) {
      seenRestarts = restarts;
      index = 0;
      asked = -1;
    }
    if (approversChanged) {
      approversChanged = false;
      const revised = await acts.reviseApprovalChain({ ...ref, levels, askedIndex: asked === index ? index : -1 });
      levels = revised.levels;
      if (revised.skip) {
        askNote = `nobody asked at level ${levels[index].level} may decide any more`;
        index++;
      }
      continue;
    }
    if (asked !== index) {
      asked = index;
      state.level = levels[index].level;
      const note = askNote;
      askNote = null;
      const mails = await acts.askApprovalLevel({ ...ref, level: levels[index], escalated: index > 0, key: `ask-${restarts}-${levels[index].level}`, at: now(), ...(note ? { note } : {}) });
      await sendAll(mails, keys);
      continue;
    }
    const last = index === levels.length - 1;
    const until = last ? deadline : Math.min(deadline, Date.now() + input.escalationMs);
    const seen = restarts;
    const moved = until > Date.now() ? await condition(() => busy || state.status !== 'Pending' || restarts !== seen || approversChanged, until - Date.now()) : false;
    if (moved) continue;
    if (Date.now() >= deadline) {
      while (busy) await condition(() => !busy);
      if (state.status !== 'Pending') break;
      busy = true;
      try {
        const r = await acts.expireApproval({ ...ref, at: now() });
        state.status = r.status;
        await sendAll([r.mail], keys);
      } finally {
        busy = false;
      }
      break;
    }
    index++;
  }
  await condition(allHandlersFinished);
  return state;
}
