/** Invoice issuance activities (workflow issueInvoice): one-line delegates to src/services/invoices/issuance-steps.ts. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Storage } from '../adapters/storage.js';
import { storeInvoicePdf, type InvoiceRef } from '../services/invoices/issuance-steps.js';

export function createInvoiceActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  return {
    storeInvoicePdf: (ref: InvoiceRef) => storeInvoicePdf(deps.orm.em.fork(), deps, ref),
  };
}
