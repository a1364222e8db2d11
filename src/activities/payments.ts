/**
 * Payment activities: provider calls (charge, void, refund; each idempotent by the provider key
 * the workflow passes) and hosted-payment reconciliation (idempotent, see src/services/payments/hosted.ts).
 * Permanent failures (declines, validation, a provider refusing our credentials) are
 * non-retryable; everything else is retried by the calling workflow's policy. One-line delegates:
 * the provider calls go to the organization's gateway (src/services/integrations/provider-settings.ts),
 * the rest to src/services/payments/.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { CardCharge } from '../adapters/payment-gateway.js';
import { gatewayFor, type IntegrationSettingsCache } from '../services/integrations/provider-settings.js';
import { recordPaymentFailed, type PaymentFailedInput } from '../services/payments/failed-events.js';
import { expireHosted, reconcileHosted, voidLateHosted } from '../services/payments/hosted.js';
import type { HostedCallback } from '../workflows/hosted-payment-defs.js';
import { mapped } from './failures.js';

export type { PaymentFailedInput };

export interface ChargeInput {
  organizationId: string;
  paymentProfileId: string;
  /** Decimal string rounded to the currency's minor unit. */
  amount: string;
  currency: string;
  idempotencyKey: string;
  reference: string;
}

export function createPaymentActivities(deps: { orm: MikroORM; config: Config; readCache?: IntegrationSettingsCache }) {
  const gateway = (organizationId: string) => gatewayFor(deps.orm.em.fork(), deps.config, organizationId, deps.readCache);
  return {
    /** Charges a saved payment profile; the provider charges one idempotency key once. */
    chargeProfile: (input: ChargeInput): Promise<CardCharge> => mapped(async () => (await gateway(input.organizationId)).chargeProfile(input)),
    /** Voids a charge (saga compensation); idempotent per key. */
    voidCharge: (input: { organizationId: string; chargeId: string; idempotencyKey: string }): Promise<void> => mapped(async () => (await gateway(input.organizationId)).void(input)),
    /** Refunds part of a charge; idempotent per key. */
    refundCharge: (input: { organizationId: string; chargeId: string; amount: string; idempotencyKey: string }) =>
      mapped(async () => ({ refundedAmount: (await (await gateway(input.organizationId)).refund(input)).refundedAmount })),
    /** Writes the `payment.failed` webhook event of a declined charge; idempotent per event key. */
    recordPaymentFailed: (input: PaymentFailedInput) => recordPaymentFailed(deps.orm.em.fork(), input),
    reconcileHostedPayment: (input: Parameters<typeof reconcileHosted>[2]) => mapped(() => reconcileHosted(deps.orm.em.fork(), deps.config, input)),
    expireHostedPayment: (input: Parameters<typeof expireHosted>[1]) => mapped(() => expireHosted(deps.orm.em.fork(), input)),
    /** An approval that arrived after the setup's timer fired: voided at the provider, recorded on the setup. */
    voidLateHostedPayment: (input: { organizationId: string; transactionSetupId: string; callback: HostedCallback }) =>
      mapped(() => voidLateHosted(deps.orm.em.fork(), () => gateway(input.organizationId), input)),
  };
}
