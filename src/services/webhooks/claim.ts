/** The dispatcher's claim (activity claimWebhookDeliveries of src/activities/webhooks.ts). */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { deliverySchedule, fanOutAndListUnstarted, hasDispatchWork, type DeliveryToStart } from './deliveries.js';
import { longPoll } from './long-poll.js';

/**
 * Fans new outbox events out to deliveries and returns the deliveries to start with the retry
 * schedule. While there are none it waits here (./long-poll.ts): it looks at the outbox every
 * `dispatchIntervalMs` (one statement), fans out what arrives (events no subscription selects end
 * there) and answers as soon as a delivery is to start, or with none after `claimWaitMs` or when
 * the worker stops (`stop`) or the activity is cancelled (`cancel`); `onPause` runs while it waits
 * (the activity's heartbeat). `waited` tells the workflow not to sleep (`pollMs` stays for workflow
 * code from before `waited`, which a worker of an older release may still run during a rolling
 * deploy, and sleeps it after an empty answer).
 */
export async function claimDeliveries(
  em: EntityManager,
  config: Config,
  signals: { stop?: AbortSignal; cancel?: AbortSignal; onPause: () => void },
): Promise<{ deliveries: DeliveryToStart[]; delaysMs: number[]; pollMs: number; waited: boolean }> {
  const { dispatchIntervalMs, claimWaitMs } = config.webhooks;
  let first = true;
  const found = await longPoll(
    async () => {
      if (!first && !(await hasDispatchWork(em.fork()))) return null;
      first = false;
      const deliveries = await fanOutAndListUnstarted(em.fork());
      return deliveries.length ? deliveries : null;
    },
    { pollMs: dispatchIntervalMs, maxWaitMs: claimWaitMs, stop: signals.stop, cancel: signals.cancel, onPause: signals.onPause },
  );
  return { deliveries: found ?? [], delaysMs: deliverySchedule(config), pollMs: dispatchIntervalMs, waited: true };
}
