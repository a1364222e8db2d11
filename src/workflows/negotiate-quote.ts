/**
 * negotiateQuote (id `quote-<quoteId>`, search attributes OrganizationId, CustomerNumber,
 * QuoteNumber): the negotiation of one quote. Offer, counter, accept and reject are updates:
 * the validator refuses a wrong state (ApplicationFailure `WrongState`, a 409 at the API) and the
 * handler writes the step through an activity and answers the new state; steps run one at a
 * time. While an offer is open (Quoted) the workflow reminds the buyer `reminderBeforeMs`
 * before its expiresAt and expires it at expiresAt. Accept creates the order at the quoted
 * prices (the one createOrder), then its invoice (Issued, unpaid, issueInvoice child) and the
 * order confirmation e-mail; Accepted, Rejected and Expired end the workflow.
 */
import { ApplicationFailure, ParentClosePolicy, allHandlersFinished, condition, proxyActivities, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createQuoteActivities } from '../activities/quotes.js';
import { FINAL_QUOTE_STATUSES, quoteMove, reminderAt, type QuoteAction, type QuoteSide } from '../domain/quotes/states.js';
import {
  acceptQuoteUpdate,
  counterQuoteUpdate,
  offerQuoteUpdate,
  QUOTE_WRONG_STATE,
  quoteStateQuery,
  rejectQuoteUpdate,
  type AcceptArgs,
  type NegotiateQuoteInput,
  type QuoteOrder,
  type QuoteState,
  type RejectArgs,
  type VersionArgs,
} from './negotiate-quote-defs.js';
import { mustSucceed } from './retry-policies.js';
import { surface } from './payment-failed.js';
import type { SendEmailInput } from './send-email-defs.js';
import { amountText, childTags, emailSummary, type BusinessKeys } from './tags-defs.js';


const acts = proxyActivities<ReturnType<typeof createQuoteActivities>>(mustSucceed);

async function startOnce(type: string, workflowId: string, args: unknown[], extra: Record<string, unknown> = {}): Promise<void> {
  try {
    await startChild(type, { workflowId, args, parentClosePolicy: ParentClosePolicy.ABANDON, taskQueue: workflowInfo().taskQueue, ...extra });
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
}

export async function negotiateQuote(input: NegotiateQuoteInput): Promise<QuoteState> {
  const ref = { organizationId: input.organizationId, quoteId: input.quoteId };
  const keys: BusinessKeys = { organizationId: input.organizationId, customerNumber: input.customerNumber, quoteNumber: input.quoteNumber };
  let state: QuoteState = { status: 'Requested', expiresAt: null, orderId: null, orderNumber: null };
  let versions = 1;
  let busy = false;
  let order: QuoteOrder | null = null;
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
  setHandler(
    acceptQuoteUpdate,
    (a) =>
      run('accept', 'buyer', async () => {
        try {
          order = await acts.acceptQuoteOrder({ ...ref, key: `accept-${a.requestId}`, by: a.by, poNumber: a.poNumber, at: now() });
        } catch (e) {
          // A refusal (402 beyond the credit limit, 409 on credit hold) is the update's own failure; the quote stays Quoted.
          surface(e);
        }
        return { status: 'Accepted', expiresAt: state.expiresAt, orderId: order.orderId, orderNumber: order.orderNumber };
      }),
    { validator: (_a: AcceptArgs) => guard('accept', 'buyer') },
  );
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
        if (mail) await startOnce('sendEmail', `email-${mail.emailId}`, [mail], childTags(keys, emailSummary(mail.template, keys)));
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
    const invoice = await acts.invoiceQuoteOrder({ ...ref, orderId: accepted.orderId });
    const invoiceKeys: BusinessKeys = { ...keys, customerNumber: invoice.customerNumber, invoiceNumber: invoice.invoiceNumber, orderNumber: accepted.orderNumber };
    await startOnce(
      'issueInvoice',
      `invoice-${invoice.invoiceId}`,
      [{ organizationId: input.organizationId, invoiceId: invoice.invoiceId, reminderDelaySeconds: invoice.reminderDelaySeconds }],
      childTags(invoiceKeys, `Issue invoice ${invoice.invoiceNumber} of order ${accepted.orderNumber} (quote ${input.quoteNumber}) to customer ${invoice.customerNumber}: ${amountText(accepted.total, accepted.currency)}`),
    );
    if (accepted.customerEmail) {
      const email: SendEmailInput = {
        emailId: `order-confirmation-${accepted.orderId}`,
        organizationId: input.organizationId,
        template: 'order-confirmation',
        to: accepted.customerEmail,
        data: { orderNumber: accepted.orderNumber, total: accepted.total, currencyCode: accepted.currency, customerNumber: input.customerNumber },
      };
      const orderKeys: BusinessKeys = { ...keys, orderNumber: accepted.orderNumber };
      await startOnce('sendEmail', `email-${email.emailId}`, [email], childTags(orderKeys, `${emailSummary(email.template, orderKeys)}: ${amountText(accepted.total, accepted.currency)}`));
    }
  }
  await condition(allHandlersFinished);
  return state;
}
