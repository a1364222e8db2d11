/**
 * Quote activities (workflow negotiateQuote). Each is idempotent by its key (see
 * src/services/quotes/steps.ts); the order's invoice is the checkout's (externalId `order-<orderId>`).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { invoiceCheckoutOrder } from '../services/invoices/from-order.js';
import { acceptQuoteOrder, applyQuoteStep, quoteReminderMail } from '../services/quotes/steps.js';
import type { QuoteAcceptInput, QuoteOrder, QuoteState, QuoteStepInput } from '../workflows/negotiate-quote-defs.js';
import type { SendEmailInput } from '../workflows/send-email-defs.js';
import { mapped } from './failures.js';

export function createQuoteActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    async applyQuoteStep(input: QuoteStepInput): Promise<QuoteState> {
      return mapped(() => applyQuoteStep(deps.orm.em.fork(), input));
    },
    async acceptQuoteOrder(input: QuoteAcceptInput): Promise<QuoteOrder> {
      return mapped(() => acceptQuoteOrder(deps.orm.em.fork(), input));
    },
    /** The accepted quote's invoice: Issued, unpaid, on the customer's terms (the normal invoice path). */
    async invoiceQuoteOrder(input: { organizationId: string; orderId: string; quoteId: string }): Promise<{ invoiceId: string; invoiceNumber: string; customerNumber: string; reminderDelaySeconds: number | null }> {
      return mapped(async () => {
        const res = await invoiceCheckoutOrder(deps.orm.em.fork(), { organizationId: input.organizationId, orderId: input.orderId, chargeId: null, paymentKey: `quote-${input.quoteId}` });
        return { ...res, reminderDelaySeconds: deps.config.invoiceReminderDelayOverrideSeconds };
      });
    },
    async quoteReminderMail(input: { organizationId: string; quoteId: string; version: number }): Promise<SendEmailInput | null> {
      return mapped(() => quoteReminderMail(deps.orm.em.fork(), input));
    },
  };
}
