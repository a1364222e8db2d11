/**
 * Payment activities: provider calls (charge, void, refund; each idempotent by the provider key
 * the workflow passes) and hosted-payment reconciliation (idempotent, see src/services/payments/hosted.ts).
 * Permanent failures (declines, validation, a provider refusing our credentials) are
 * non-retryable; everything else is retried by the calling workflow's policy.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { HostedPaymentSetup } from '../entities/index.js';
import { log } from '../logger.js';
import { gatewayFor, type CardCharge } from '../integrations/payment-gateway.js';
import { expireHosted, outcomeOf, reconcileHosted, type HostedCallback, type HostedOutcome } from '../services/payments/hosted.js';
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

export function createPaymentActivities(deps: { orm: MikroORM; config: Config }) {
  const gateway = (organizationId: string) => gatewayFor(deps.orm.em.fork(), deps.config, organizationId);
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
