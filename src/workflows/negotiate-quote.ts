/**
 * negotiateQuote (id `quote-<quoteId>`, search attributes OrganizationId, CustomerNumber,
 * QuoteNumber): the negotiation of one quote. Offer, counter, accept and reject are updates:
 * the validator refuses a wrong state (ApplicationFailure `WrongState`, a 409 at the API) and the
 * handler writes the step through an activity and answers the new state; steps run one at a
 * time. While an offer is open (Quoted) the workflow reminds the buyer `reminderBeforeMs`
 * before its expiresAt and expires it at expiresAt. Accept creates the order at the quoted
 * prices (the one createOrder), on account or paid by a card charged first, then its invoice
 * (Issued: unpaid on account, paid by card; issueInvoice child) and the order confirmation
 * e-mail; Accepted, Rejected and Expired end the workflow. An accept held for an approval arrives
 * as signal acceptApproved once approved.
 */
import { ApplicationFailure, CancellationScope, allHandlersFinished, condition, isCancellation, patched, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { createApprovalActivities } from '../activities/approvals.js';
import type { createPaymentActivities } from '../activities/payments.js';
import type { createQuoteActivities } from '../activities/quotes.js';
import { FINAL_QUOTE_STATUSES, quoteMove, reminderAt, type QuoteAction, type QuoteSide } from '../domain/quotes/states.js';
import {
  acceptApprovedSignal,
  acceptQuoteUpdate,
  counterQuoteUpdate,
  offerQuoteUpdate,
  QUOTE_WRONG_STATE,
  quoteStateQuery,
  rejectQuoteUpdate,
  type AcceptArgs,
  type ApprovedAcceptArgs,
  type NegotiateQuoteInput,
  type QuoteOrder,
  type QuoteState,
  type RejectArgs,
  type VersionArgs,
} from './negotiate-quote-defs.js';
import { mustSucceed, providerCall } from './retry-policies.js';
import { startChildOnce } from './lib/start-child-once.js';
import { surface } from './lib/surface.js';
import { chargeOrReportDecline } from './payment-failed.js';
import type { SendEmailInput } from './send-email-defs.js';
import { amountText, childTags, emailAbout, type BusinessKeys } from './tags-defs.js';


const acts = proxyActivities<ReturnType<typeof createQuoteActivities>>(mustSucceed);
const approvals = proxyActivities<ReturnType<typeof createApprovalActivities>>(mustSucceed);
const provider = proxyActivities<ReturnType<typeof createPaymentActivities>>(providerCall);

export async function negotiateQuote(input: NegotiateQuoteInput): Promise<QuoteState> {
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  const keys: BusinessKeys = { organizationId: input.organizationId, customerNumber: input.customerNumber, quoteNumber: input.quoteNumber };
  let state: QuoteState = { status: 'Requested', expiresAt: null, orderId: null, orderNumber: null };
  let versions = 1;
  let busy = false;
  let order: QuoteOrder | null = null;
  /** A card accept: the charge that paid the order (its invoice is written paid by it). */
  let paidBy: { chargeId: string; paymentProfileId: string } | null = null;
  const now = () => new Date(Date.now()).toISOString();
  const wrongState = (message: string) => ApplicationFailure.create({ type: QUOTE_WRONG_STATE, message, nonRetryable: true });
  const check = (action: QuoteAction, side?: QuoteSide | null) => {
    const m = quoteMove(state.status, action, { side: side ?? undefined, expiresAtMs: state.expiresAt ? Date.parse(state.expiresAt) : null, nowMs: Date.now() });
    if (!m.ok) throw wrongState(m.reason);
  };
  // The validator refuses what the state rules out, and a second step while one is being written.
  const guard = (action: QuoteAction, side?: QuoteSide | null) => {
    if (busy) throw wrongState('Another step of this quote is being recorded; read the quote and try again.');
    check(action, side);
  };
  const run = async (action: QuoteAction, side: QuoteSide | null, fn: () => Promise<QuoteState>): Promise<QuoteState> => {
    // Re-checked after every wake-up: another handler may have taken the turn in between.
    while (busy) await condition(() => !busy);
    check(action, side);
    busy = true;
    try {
      state = await fn();
    } finally {
      busy = false;
    }
    return state;
  };

  setHandler(quoteStateQuery, () => state);
  setHandler(
    offerQuoteUpdate,
    (a) =>
      run('offer', null, async () => {
        const s = await acts.applyQuoteStep({ ...ref, key: `v${versions + 1}-${a.requestId}`, action: 'offer', version: a.version, at: now() });
        versions++;
        return s;
      }),
    { validator: (_a: VersionArgs) => guard('offer') },
  );
  setHandler(
    counterQuoteUpdate,
    (a) =>
      run('counter', 'buyer', async () => {
        const s = await acts.applyQuoteStep({ ...ref, key: `v${versions + 1}-${a.requestId}`, action: 'counter', version: a.version, at: now() });
        versions++;
        return s;
      }),
    { validator: (_a: VersionArgs) => guard('counter', 'buyer') },
  );
  /**
   * The accept: on account (the credit admission runs in the order's transaction), or by card (since
   * patch `quote-accept-card`): the offer's total charged once under the provider key
   * `quote-<quoteId>-<requestId>` (the checkout's charge path), then the order paid by that charge;
   * a refused order voids the charge. A refusal (402 beyond the credit limit or a declined card, 409
   * on credit hold) is the accept's own failure; the quote stays Quoted.
   */
  const acceptWith = async (a: AcceptArgs): Promise<QuoteState> => {
    let chargeId: string | null = null;
    let amount: string | undefined;
    if (a.paymentProfileId && patched('quote-accept-card')) {
      const paymentProfileId = a.paymentProfileId;
      let due;
      try {
        due = await acts.quoteAcceptAmount({ ...ref, at: now() });
      } catch (e) {
        surface(e);
      }
      amount = due.amount;
      const chargeKey = `quote-${input.quoteId}-${a.requestId}`;
      chargeId = await chargeOrReportDecline(
        { organizationId: input.organizationId, paymentProfileId, amount: due.amount, currency: due.currency, idempotencyKey: chargeKey, reference: input.quoteNumber },
        { source: 'checkout', invoiceId: null, invoiceNumber: null, cartId: null, orderNumber: null, customerNumber: input.customerNumber },
      );
      const charged = chargeId;
      try {
        order = await acts.acceptQuoteOrder({ ...ref, key: `accept-${a.requestId}`, by: a.by, poNumber: a.poNumber, at: now(), chargeId: charged, amount });
        paidBy = { chargeId: charged, paymentProfileId };
      } catch (e) {
        const voidIt = () => provider.voidCharge({ organizationId: input.organizationId, chargeId: charged, idempotencyKey: `void-${chargeKey}` });
        await (isCancellation(e) ? CancellationScope.nonCancellable(voidIt) : voidIt());
        surface(e);
      }
    } else {
      try {
        order = await acts.acceptQuoteOrder({ ...ref, key: `accept-${a.requestId}`, by: a.by, poNumber: a.poNumber, at: now() });
      } catch (e) {
        surface(e);
      }
    }
    return { status: 'Accepted', expiresAt: state.expiresAt, orderId: order.orderId, orderNumber: order.orderNumber };
  };
  setHandler(acceptQuoteUpdate, (a) => run('accept', 'buyer', () => acceptWith(a)), { validator: (_a: AcceptArgs) => guard('accept', 'buyer') });
  // An accept held above the buyer's limits and approved (approvePurchase): accepted once here, or the
  // quote stays open (it moved on, or the accept was refused); the outcome is recorded on the request.
  setHandler(acceptApprovedSignal, async (a: ApprovedAcceptArgs) => {
    let error: string | null = null;
    try {
      await run('accept', 'buyer', () => acceptWith(a));
    } catch (e) {
      if (isCancellation(e)) throw e;
      error = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : 'The accept failed.';
    }
    const accepted: QuoteOrder | null = order;
    await approvals.recordApprovalCheckout({ organizationId: input.organizationId, approvalId: a.approvalId, orderNumber: error ? null : (accepted?.orderNumber ?? null), error, at: now() });
  });
  setHandler(
    rejectQuoteUpdate,
    (a) => run('reject', a.side, () => acts.applyQuoteStep({ ...ref, key: `reject-${a.requestId}`, action: 'reject', reason: a.reason, side: a.side, at: now() })),
    { validator: (a: RejectArgs) => guard('reject', a.side) },
  );

  // Waits for the next step; while an offer is open, reminds the buyer once per offer and expires it at expiresAt.
  let remindedVersion = 0;
  while (!FINAL_QUOTE_STATUSES.includes(state.status)) {
    // A step being recorded is waited for first (its state decides what to wait for next).
    await condition(() => !busy);
    if (FINAL_QUOTE_STATUSES.includes(state.status)) break;
    const seen = versions;
    const seenStatus = state.status;
    const changed = () => busy || versions !== seen || state.status !== seenStatus;
    if (state.status !== 'Quoted' || !state.expiresAt) {
      await condition(changed);
    } else {
      const expiresAtMs = Date.parse(state.expiresAt);
      const remindAt = remindedVersion === versions ? null : reminderAt(expiresAtMs, input.reminderBeforeMs, Date.now());
      const wakeAt = remindAt ?? expiresAtMs;
      const moved = wakeAt > Date.now() ? await condition(changed, wakeAt - Date.now()) : false;
      if (moved) continue;
      if (remindAt !== null) {
        remindedVersion = versions;
        const mail = await acts.quoteReminderMail({ ...ref, version: versions });
        if (mail) await startChildOnce('sendEmail', { workflowId: `email-${mail.emailId}`, args: [mail], taskQueue: workflowInfo().taskQueue, ...childTags(keys, emailAbout(mail.template, keys)) });
        continue;
      }
      // The offer ran out (an accept that got in first has already moved the state on).
      await condition(() => !busy);
      if (state.status === 'Quoted' && state.expiresAt && Date.parse(state.expiresAt) <= Date.now()) {
        busy = true;
        try {
          state = await acts.applyQuoteStep({ ...ref, key: `expire-v${versions}`, action: 'expire', at: now() });
        } finally {
          busy = false;
        }
      }
    }
  }

  const accepted = order as QuoteOrder | null;
  if (state.status === 'Accepted' && accepted) {
    const invoice = await acts.invoiceQuoteOrder({ ...ref, orderId: accepted.orderId, ...(paidBy ?? {}) });
    // No invoice: an on-account order invoiced per shipment (docs/fulfillment.md "Invoicing").
    if (invoice) {
      const invoiceKeys: BusinessKeys = { ...keys, customerNumber: invoice.customerNumber, invoiceNumber: invoice.invoiceNumber, orderNumber: accepted.orderNumber };
      await startChildOnce('issueInvoice', {
        workflowId: `invoice-${invoice.invoiceId}`,
        args: [{ organizationId: input.organizationId, invoiceId: invoice.invoiceId }],
        taskQueue: workflowInfo().taskQueue,
        ...childTags(invoiceKeys, { what: `Issue invoice ${invoice.invoiceNumber} of order ${accepted.orderNumber} (quote ${input.quoteNumber})`, amount: amountText(accepted.total, accepted.currency) }),
      });
    }
    if (accepted.customerEmail) {
      const email: SendEmailInput = {
        emailId: `order-confirmation-${accepted.orderId}`,
        organizationId: input.organizationId,
        template: 'order-confirmation',
        to: accepted.customerEmail,
        data: { orderNumber: accepted.orderNumber, total: accepted.total, currencyCode: accepted.currency, customerNumber: input.customerNumber },
      };
      const orderKeys: BusinessKeys = { ...keys, orderNumber: accepted.orderNumber };
      await startChildOnce('sendEmail', {
        workflowId: `email-${email.emailId}`,
        args: [email],
        taskQueue: workflowInfo().taskQueue,
        ...childTags(orderKeys, { ...emailAbout(email.template, orderKeys), amount: amountText(accepted.total, accepted.currency) }),
      });
    }
  }
  await condition(allHandlersFinished);
  return state;
}
