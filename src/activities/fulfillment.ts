/** Fulfillment activities (workflow fulfillOrder): one-line delegates to src/services/fulfillment/steps.ts, idempotent per order. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { syncFulfillment, type SyncFulfillmentInput } from '../services/fulfillment/steps.js';
import { runAllocation } from '../services/stock/backorders.js';
import type { AllocateBackordersInput } from '../workflows/allocate-backorders-defs.js';
import { mapped } from './failures.js';

export function createFulfillmentActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    /** Reads the order's shipments and completes a Shipped order whose deliveries are all confirmed (or whose timer fired); its allocation and escalation e-mails. */
    syncFulfillment: (input: SyncFulfillmentInput) => mapped(() => syncFulfillment(deps.orm.em.fork(), deps.config, input)),
    /** One allocation of the product's waiting backorders (one transaction); answers the orders served. */
    allocateStock: (input: AllocateBackordersInput) =>
      mapped(async () => {
        const r = await runAllocation(deps.orm, input);
        return { allocated: r.allocated, orderIds: [...new Set(r.orders.map((o) => o.orderId))] };
      }),
  };
}
