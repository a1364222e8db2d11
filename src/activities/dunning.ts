/** Dunning activities (collectInvoice): thin wrappers over src/services/credit/dunning.ts, each idempotent by invoice and step. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { DunningStep } from '../domain/credit/dunning.js';
import { dunningPlan, invoiceStillOpen, recordDunningStep, recordHoldEnded, type InvoiceRef } from '../services/credit/dunning.js';

export function createDunningActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    async dunningPlan(ref: InvoiceRef) {
      return dunningPlan(deps.orm.em.fork(), deps.config, ref);
    },
    async dunningInvoiceOpen(ref: InvoiceRef): Promise<boolean> {
      return invoiceStillOpen(deps.orm.em.fork(), ref);
    },
    async dunningStep(input: InvoiceRef & { step: DunningStep }) {
      return recordDunningStep(deps.orm.em.fork(), deps.config, input);
    },
    async dunningHoldEnded(ref: InvoiceRef): Promise<void> {
      await recordHoldEnded(deps.orm.em.fork(), ref);
    },
  };
}
