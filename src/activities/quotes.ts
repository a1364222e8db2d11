/**
 * Quote activities (workflow negotiateQuote). Each is idempotent by its key (see
 * src/services/quotes/steps.ts); the order's invoice is the checkout's (externalId `order-<orderId>`).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { invoiceCheckoutOrder } from '../services/invoices/from-order.js';
import { acceptQuoteOrder, applyQuoteStep, quoteAcceptAmount, quoteReminderMail } from '../services/quotes/steps.js';
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
    /** What a card accept charges: the current offer's total, refused (409) when the quote cannot be accepted now. */
    async quoteAcceptAmount(input: { organizationId: string; quoteId: string; at: string }): Promise<{ amount: string; currency: string }> {
      return mapped(() => quoteAcceptAmount(deps.orm.em.fork(), input));
    },
    /** The accepted quote's invoice: Issued, on the customer's terms and unpaid on account, or paid by the accept's card charge (the checkout's invoice path). */
    async invoiceQuoteOrder(input: { organizationId: string; orderId: string; quoteId: string; chargeId?: string | null; paymentProfileId?: string | null }): Promise<{ invoiceId: string; invoiceNumber: string; customerNumber: string; reminderDelaySeconds: number | null }> {
      return mapped(async () => {
        const res = await invoiceCheckoutOrder(deps.orm.em.fork(), {
          organizationId: input.organizationId,
          orderId: input.orderId,
          chargeId: input.chargeId ?? null,
          paymentKey: `quote-${input.quoteId}`,
          paymentProfileId: input.paymentProfileId ?? null,
        });
        return { ...res, reminderDelaySeconds: deps.config.invoiceReminderDelayOverrideSeconds };
      });
    },
    async quoteReminderMail(input: { organizationId: string; quoteId: string; version: number }): Promise<SendEmailInput | null> {
      return mapped(() => quoteReminderMail(deps.orm.em.fork(), input));
    },
  };
}
