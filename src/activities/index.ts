import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Storage } from '../storage.js';
import { createBenchActivities } from './bench.js';
import { createCheckoutActivities } from './checkout.js';
import { createEmailActivities } from './email.js';
import { createImageActivities } from './images.js';
import { createInvoiceActivities } from './invoices.js';
import { createPaymentActivities } from './payments.js';
import { createWebhookActivities } from './webhooks.js';

export interface ActivityDeps {
  orm: MikroORM;
  config: Config;
  storage: Storage;
}

/** All activities, built from their dependencies (the worker calls this once). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createBenchActivities(),
    ...createEmailActivities(deps),
    ...createCheckoutActivities(deps),
    ...createImageActivities(deps),
    ...createInvoiceActivities(deps),
    ...createPaymentActivities(deps),
    ...createWebhookActivities(deps),
  };
}
