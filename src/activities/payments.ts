/**
 * Payment activities: provider calls (charge, void, refund; each idempotent by the provider key
 * the workflow passes) and hosted-payment reconciliation (idempotent, see src/services/payments/hosted.ts).
 * Permanent failures (declines, validation, a provider refusing our credentials) are
 * non-retryable; everything else is retried by the calling workflow's policy.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { HostedPaymentSetup, Invoice } from '../entities/index.js';
import { log } from '../logger.js';
import type { CardCharge } from '../adapters/payment-gateway.js';
import { gatewayFor, type IntegrationSettingsCache } from '../services/integrations/provider-settings.js';
import { expireHosted, outcomeOf, reconcileHosted } from '../services/payments/hosted.js';
import type { HostedCallback, HostedOutcome } from '../workflows/hosted-payment-defs.js';
import { moneyNumber } from '../domain/money.js';
import { emitEventOnce } from '../services/webhooks/events.js';
import { mapped } from './failures.js';

export interface ChargeInput {
  organizationId: string;
  paymentProfileId: string;
  /** Decimal string rounded to the currency's minor unit. */
  amount: string;
  currency: string;
  idempotencyKey: string;
  reference: string;
}

/** A declined card charge of an invoice card payment or a checkout, as the workflow saw it. */
export interface PaymentFailedInput {
  organizationId: string;
  /** Unique per attempt (the workflow id and run id): a retried activity writes the event once. */
  eventKey: string;
  source: 'invoice' | 'checkout';
  invoiceId: string | null;
  invoiceNumber: string | null;
  cartId: string | null;
  orderNumber: string | null;
  customerNumber: string | null;
  /** Decimal string. */
  amount: string;
  currencyCode: string;
  message: string;
  /** The failure's details (AppError errors: `card: [<provider code>]`). */
  details: unknown;
}

/** The provider's decline code from a payment_required failure's details, else card_declined. */
function declineCode(details: unknown): string {
  const errors = Array.isArray(details) ? (details[0] as unknown) : details;
  if (errors && typeof errors === 'object' && 'card' in errors) {
    const card = (errors as { card: unknown }).card;
    if (Array.isArray(card) && typeof card[0] === 'string') return card[0];
  }
  return 'card_declined';
}

export function createPaymentActivities(deps: { orm: MikroORM; config: Config; readCache?: IntegrationSettingsCache }) {
  const gateway = (organizationId: string) => gatewayFor(deps.orm.em.fork(), deps.config, organizationId, deps.readCache);
  return {
    /** Charges a saved payment profile; the provider charges one idempotency key once. */
    async chargeProfile(input: ChargeInput): Promise<CardCharge> {
      return mapped(async () => (await gateway(input.organizationId)).chargeProfile(input));
    },

    /** Voids a charge (saga compensation); idempotent per key. */
    async voidCharge(input: { organizationId: string; chargeId: string; idempotencyKey: string }): Promise<void> {
      return mapped(async () => (await gateway(input.organizationId)).void(input));
    },

    /** Refunds part of a charge; idempotent per key. */
    async refundCharge(input: { organizationId: string; chargeId: string; amount: string; idempotencyKey: string }): Promise<{ refundedAmount: string }> {
      return mapped(async () => {
        const r = await (await gateway(input.organizationId)).refund(input);
        return { refundedAmount: r.refundedAmount };
      });
    },

    /** Writes the `payment.failed` webhook event of a declined charge; idempotent per event key. */
    async recordPaymentFailed(input: PaymentFailedInput): Promise<void> {
      const em = deps.orm.em.fork();
      const invoice = input.invoiceId ? await em.findOne(Invoice, { id: input.invoiceId, organization: input.organizationId }) : null;
      await emitEventOnce(
        em,
        input.organizationId,
        'payment.failed',
        {
          source: input.source,
          invoiceId: input.invoiceId,
          invoiceNumber: input.invoiceNumber,
          cartId: input.cartId,
          orderNumber: input.orderNumber,
          customerNumber: input.customerNumber ?? invoice?.customerNumber ?? null,
          amount: moneyNumber(input.amount, input.currencyCode),
          currencyCode: input.currencyCode,
          code: declineCode(input.details),
          message: input.message,
        },
        `payment.failed:${input.eventKey}`,
      );
    },

    async reconcileHostedPayment(input: { organizationId: string; transactionSetupId: string; callback: HostedCallback }): Promise<HostedOutcome> {
      return mapped(() => reconcileHosted(deps.orm.em.fork(), deps.config, input));
    },

    async expireHostedPayment(input: { organizationId: string; transactionSetupId: string }): Promise<HostedOutcome> {
      return mapped(() => expireHosted(deps.orm.em.fork(), input));
    },

    /**
     * An approval that arrived after the setup's timer fired: the charge is voided at the provider
     * (key `hosted-late-<setupId>`) and the setup records it (result `Voided`, the provider's
     * transaction id). A zero-amount approval (card save) has nothing to void and only stays Expired.
     */
    async voidLateHostedPayment(input: { organizationId: string; transactionSetupId: string; callback: HostedCallback }): Promise<HostedOutcome> {
      return mapped(async () => {
        const em = deps.orm.em.fork();
        const cb = input.callback;
        const money = cb.Result === 'Approved' && Boolean(cb.TransactionId) && Number(cb.Amount) > 0;
        if (money) {
          await (await gateway(input.organizationId)).void({ chargeId: cb.TransactionId, idempotencyKey: `hosted-late-${input.transactionSetupId}` });
          await em.nativeUpdate(
            HostedPaymentSetup,
            { organization: input.organizationId, transactionSetupId: input.transactionSetupId, status: 'expired' },
            { result: 'Voided', providerTransactionId: cb.TransactionId, lastFour: cb.LastFour || null, cardType: cb.CardType || null },
          );
          log.warn('late hosted approval voided at the provider', { transactionSetupId: input.transactionSetupId });
        }
        const setup = await em.findOneOrFail(HostedPaymentSetup, { organization: input.organizationId, transactionSetupId: input.transactionSetupId });
        return outcomeOf(setup);
      });
    },
  };
}
