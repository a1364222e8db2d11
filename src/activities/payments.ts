import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { expireHosted, reconcileHosted, type HostedCallback, type HostedOutcome } from '../services/payments/hosted.js';

/** Hosted-payment activities; both are idempotent (see src/services/payments/hosted.ts). */
export function createPaymentActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    async reconcileHostedPayment(input: { organizationId: string; transactionSetupId: string; callback: HostedCallback }): Promise<HostedOutcome> {
      return reconcileHosted(deps.orm.em.fork(), deps.config, input);
    },
    async expireHostedPayment(input: { organizationId: string; transactionSetupId: string }): Promise<HostedOutcome> {
      return expireHosted(deps.orm.em.fork(), input);
    },
  };
}
