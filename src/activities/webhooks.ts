import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import {
  attemptDelivery,
  deliverySchedule,
  fanOutAndListUnstarted,
  hasDispatchWork,
  markStarted,
  type AttemptResult,
  type DeliveryToStart,
} from '../services/webhooks/deliveries.js';
import { longPoll } from '../services/webhooks/long-poll.js';

/**
 * Webhook activities: the dispatcher's outbox step and one delivery attempt. `stopping` is aborted
 * when the worker begins to stop, so a claim that is waiting for work answers at once.
 */
export function createWebhookActivities(deps: { orm: MikroORM; config: Config; stopping?: AbortSignal }) {
  return {
    /**
     * Fans new outbox events out to deliveries and returns the deliveries to start with the retry
     * schedule. While there are none it waits here (src/services/webhooks/long-poll.ts): it looks
     * at the outbox every `dispatchIntervalMs` (one statement), fans out what arrives (events no
     * subscription selects end there) and answers as soon as a delivery is to start, or with none
     * after `claimWaitMs` or when the worker stops; `waited` tells the workflow not to sleep
     * (`pollMs` stays for workflow code from before `waited`, which a worker of an older release
     * may still run during a rolling deploy, and sleeps it after an empty answer).
     * Heartbeats while it waits, so a lost worker is noticed within the heartbeat timeout.
     */
    async claimWebhookDeliveries(): Promise<{ deliveries: DeliveryToStart[]; delaysMs: number[]; pollMs: number; waited: boolean }> {
      const { dispatchIntervalMs, claimWaitMs } = deps.config.webhooks;
      const ctx = Context.current();
      let first = true;
      const found = await longPoll(
        async () => {
          if (!first && !(await hasDispatchWork(deps.orm.em.fork()))) return null;
          first = false;
          const deliveries = await fanOutAndListUnstarted(deps.orm.em.fork());
          return deliveries.length ? deliveries : null;
        },
        { pollMs: dispatchIntervalMs, maxWaitMs: claimWaitMs, stop: deps.stopping, cancel: ctx.cancellationSignal, onPause: () => ctx.heartbeat() },
      );
      return { deliveries: found ?? [], delaysMs: deliverySchedule(deps.config), pollMs: dispatchIntervalMs, waited: true };
    },
    async markWebhookDeliveriesStarted(deliveries: Array<DeliveryToStart | string>): Promise<void> {
      await markStarted(deps.orm.em.fork(), deliveries);
    },
    async attemptWebhookDelivery(input: { organizationId: string; deliveryId: string; nextDelayMs: number | null }): Promise<AttemptResult> {
      return attemptDelivery(deps.orm.em.fork(), deps.config, input);
    },
  };
}
