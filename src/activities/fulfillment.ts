/** Fulfillment activities (workflow fulfillOrder): one-line delegates to src/services/fulfillment/steps.ts, idempotent per order. */
import type { MikroORM } from '@mikro-orm/postgresql';
import { syncFulfillment, type SyncFulfillmentInput } from '../services/fulfillment/steps.js';
import { mapped } from './failures.js';

export function createFulfillmentActivities(deps: { orm: MikroORM }) {
  return {
    /** Reads the order's shipments and completes a Shipped order whose deliveries are all confirmed (or whose timer fired). */
    syncFulfillment: (input: SyncFulfillmentInput) => mapped(() => syncFulfillment(deps.orm.em.fork(), input)),
  };
}
