/** The payment janitor's activity: one reconciliation pass with the deployment's provider (src/services/payments/janitor.ts). */
import type { MikroORM } from '@mikro-orm/postgresql';
import { defaultPaymentSettings, providerClient } from '../adapters/payment-gateway.js';
import type { Config } from '../config.js';
import { reconcileCharges } from '../services/payments/janitor.js';
import type { PaymentJanitorInput, PaymentJanitorResult } from '../workflows/payment-janitor-defs.js';
import { mapped } from './failures.js';

export function createJanitorActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    async reconcileProviderCharges(input: PaymentJanitorInput): Promise<PaymentJanitorResult> {
      const gateway = providerClient(defaultPaymentSettings(deps.config), { allowPrivateNetworks: deps.config.outboundAllowPrivateNetworks });
      return mapped(() => reconcileCharges(deps.orm.em.fork(), gateway, input));
    },
  };
}
