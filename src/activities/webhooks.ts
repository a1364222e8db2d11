import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import {
  attemptDelivery,
  deliverySchedule,
  fanOutAndListUnstarted,
  markStarted,
  type AttemptResult,
  type DeliveryToStart,
} from '../services/webhooks/deliveries.js';

/** Webhook activities: the dispatcher's outbox step and one delivery attempt. */
export function createWebhookActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    /** Fans new outbox events out to deliveries; returns deliveries to start, the retry schedule and the idle poll interval. */
    async claimWebhookDeliveries(): Promise<{ deliveries: DeliveryToStart[]; delaysMs: number[]; pollMs: number }> {
      const deliveries = await fanOutAndListUnstarted(deps.orm.em.fork());
      return { deliveries, delaysMs: deliverySchedule(deps.config), pollMs: deps.config.webhooks.dispatchIntervalMs };
    },
    async markWebhookDeliveriesStarted(deliveries: Array<DeliveryToStart | string>): Promise<void> {
      await markStarted(deps.orm.em.fork(), deliveries);
    },
    async attemptWebhookDelivery(input: { organizationId: string; deliveryId: string; nextDelayMs: number | null }): Promise<AttemptResult> {
      return attemptDelivery(deps.orm.em.fork(), deps.config, input);
    },
  };
}
