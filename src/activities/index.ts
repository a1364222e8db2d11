import type { MikroORM } from '@mikro-orm/postgresql';
import { createImportActivities } from './imports.js';
import type { Config } from '../config.js';
import type { Mailer } from '../adapters/mail.js';
import type { Storage } from '../adapters/storage.js';
import type { ReadCache } from '../services/auth/cache.js';
import { createCheckoutActivities } from './checkout.js';
import { createCommissionActivities } from './commissions.js';
import { createDunningActivities } from './dunning.js';
import { createEmailActivities } from './email.js';
import { createFulfillmentActivities } from './fulfillment.js';
import { createImageActivities } from './images.js';
import { createInvoicePaymentActivities } from './invoice-payments.js';
import { createCancellationActivities } from './cancellations.js';
import { createReturnActivities } from './returns.js';
import { createJanitorActivities } from './janitor.js';
import { createInvoiceActivities } from './invoices.js';
import { createPaymentActivities } from './payments.js';
import { createPriceListActivities } from './price-lists.js';
import { createQuoteActivities } from './quotes.js';
import { createApprovalActivities } from './approvals.js';
import { createWebhookActivities } from './webhooks.js';

export interface ActivityDeps {
  orm: MikroORM;
  config: Config;
  storage: Storage;
  /** The process's LISTEN/NOTIFY-invalidated cache: provider settings of charges and e-mails. */
  readCache?: ReadCache;
  /** Outgoing mail: the process's one pooled mailer, closed with its infrastructure at shutdown. */
  mailer: Mailer;
  /** Aborted when the worker begins to stop: activities that wait for work (the webhook claim) answer at once. */
  stopping?: AbortSignal;
}

export const TASK_QUEUES = ['commerce', 'media', 'imports', 'mail'] as const;
export type TaskQueueName = (typeof TASK_QUEUES)[number];

/**
 * The activities each task queue's worker registers (the worker calls this once). A queue's
 * workflows live in src/workflows/<queue>.ts; add its activities here with one spread.
 */
export function createQueueActivities(deps: ActivityDeps): Record<TaskQueueName, Record<string, unknown>> {
  return {
    commerce: {
      ...createCheckoutActivities(deps),
      ...createInvoiceActivities(deps),
      ...createPaymentActivities(deps),
      ...createInvoicePaymentActivities(deps),
      ...createCancellationActivities(deps),
      ...createReturnActivities(deps),
      ...createCommissionActivities(deps),
      ...createWebhookActivities(deps),
      ...createDunningActivities(deps),
      ...createQuoteActivities(deps),
      ...createApprovalActivities(deps),
      ...createJanitorActivities(deps),
      ...createFulfillmentActivities(deps),
      ...createPriceListActivities(deps),
    },
    media: { ...createImageActivities(deps) },
    imports: { ...createImportActivities(deps) },
    // E-mail delivery (src/workflows/mail-delivery.ts): a silent SMTP server holds only these slots.
    mail: { ...createEmailActivities(deps) },
  };
}
