import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { attemptDelivery, markStarted, type DeliveryToStart } from '../services/webhooks/deliveries.js';
import { claimDeliveries } from '../services/webhooks/claim.js';

/**
 * Webhook activities: one-line delegates for the dispatcher's outbox step (src/services/webhooks/claim.ts)
 * and one delivery attempt. `stopping` is aborted when the worker begins to stop, so a claim that
 * is waiting for work answers at once; the claim heartbeats while it waits, so a lost worker is
 * noticed within the heartbeat timeout.
 */
export function createWebhookActivities(deps: { orm: MikroORM; config: Config; stopping?: AbortSignal }) {
  return {
    /** The deliveries to start with their retry schedule; waits for work up to claimWaitMs (src/services/webhooks/claim.ts). */
    claimWebhookDeliveries: async () => {
      const ctx = Context.current();
      return claimDeliveries(deps.orm.em, deps.config, { stop: deps.stopping, cancel: ctx.cancellationSignal, onPause: () => ctx.heartbeat() });
    },
    markWebhookDeliveriesStarted: (deliveries: Array<DeliveryToStart | string>) => markStarted(deps.orm.em.fork(), deliveries),
    attemptWebhookDelivery: (input: Parameters<typeof attemptDelivery>[2]) => attemptDelivery(deps.orm.em.fork(), deps.config, input),
  };
}
