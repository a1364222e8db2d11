import { continueAsNew, proxyActivities, sleep, WorkflowIdReusePolicy } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks.js';
import type { deliverWebhook } from './deliver-webhook.js';
import { startChildOnce } from './lib/start-child-once.js';
import { unbounded } from './retry-policies.js';
import { childTags } from './tags-defs.js';

const ITERATIONS_PER_RUN = 300;

// The claim waits for work up to WEBHOOK_CLAIM_WAIT_MS (at most 20 s) and heartbeats meanwhile.
const { claimWebhookDeliveries, markWebhookDeliveriesStarted } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '30 seconds',
  heartbeatTimeout: '10 seconds',
  retry: unbounded(30_000),
});

/**
 * Long-running outbox dispatcher: fans committed events out to deliveries and starts one
 * `deliverWebhook` child per delivery (abandoned, so it outlives this run), then marks them
 * started, and continues as new to keep its history short. The claim waits for work inside its
 * activity (`waited`); results recorded before it did (none) are followed by a sleep, as then.
 */
export async function dispatchWebhookEvents(): Promise<void> {
  for (let i = 0; i < ITERATIONS_PER_RUN; i++) {
    const { deliveries, delaysMs, pollMs, waited } = await claimWebhookDeliveries();
    if (deliveries.length) {
      await Promise.all(
        // A delivery whose child is already there was started by an earlier run whose "mark started" step did not happen.
        deliveries.map((d) =>
          startChildOnce<typeof deliverWebhook>('deliverWebhook', {
            workflowId: `webhook-delivery-${d.deliveryId}`,
            args: [{ organizationId: d.organizationId, deliveryId: d.deliveryId, delaysMs }],
            workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
            ...childTags({ organizationId: d.organizationId }, { what: `Webhook delivery ${d.deliveryId}` }),
          }),
        ),
      );
      await markWebhookDeliveriesStarted(deliveries);
    } else if (!waited) {
      await sleep(pollMs);
    }
  }
  await continueAsNew<typeof dispatchWebhookEvents>();
}
