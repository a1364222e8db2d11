/**
 * Quote activities (workflow negotiateQuote): one-line delegates to src/services/quotes/steps.ts,
 * where each step's idempotency is described; the order's invoice is the checkout's (externalId
 * `order-<orderId>`).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { acceptQuoteOrder, applyQuoteStep, invoiceQuoteOrder, quoteAcceptAmount, quoteReminderMail } from '../services/quotes/steps.js';
import type { QuoteAcceptInput, QuoteStepInput } from '../workflows/negotiate-quote-defs.js';
import { mapped } from './failures.js';

export function createQuoteActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    applyQuoteStep: (input: QuoteStepInput) => mapped(() => applyQuoteStep(deps.orm.em.fork(), input)),
    acceptQuoteOrder: (input: QuoteAcceptInput) => mapped(() => acceptQuoteOrder(deps.orm.em.fork(), input)),
    /** What a card accept charges: the current offer's total, refused (409) when the quote cannot be accepted now. */
    quoteAcceptAmount: (input: Parameters<typeof quoteAcceptAmount>[1]) => mapped(() => quoteAcceptAmount(deps.orm.em.fork(), input)),
    /** The accepted quote's invoice (Issued; paid by the accept's card charge, or on the customer's terms on account). */
    invoiceQuoteOrder: (input: Parameters<typeof invoiceQuoteOrder>[1]) => mapped(() => invoiceQuoteOrder(deps.orm.em.fork(), input)),
    quoteReminderMail: (input: Parameters<typeof quoteReminderMail>[1]) => mapped(() => quoteReminderMail(deps.orm.em.fork(), input)),
  };
}
