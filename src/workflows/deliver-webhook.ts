import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks.js';
import type { DeliverWebhookInput, DeliverWebhookResult } from './deliver-webhook-defs.js';
import { bounded } from './retry-policies.js';

const { attemptWebhookDelivery } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  // 15 s HTTP timeout plus database work.
  startToCloseTimeout: '45 seconds',
  retry: bounded(10),
});

/**
 * One delivery (workflow id `webhook-delivery-<deliveryId>`): attempts at the scheduled delays,
 * waiting longer when the receiver asked for it with Retry-After (429, 503). Ends when an
 * attempt succeeds, the receiver answers 410, or the last attempt fails.
 */
export async function deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookResult> {
  let extraWaitMs = 0;
  for (let i = 0; i < input.delaysMs.length; i++) {
    const wait = Math.max(input.delaysMs[i], extraWaitMs);
    if (wait > 0) await sleep(wait);
    const next = i + 1 < input.delaysMs.length ? input.delaysMs[i + 1] : null;
    const r = await attemptWebhookDelivery({ organizationId: input.organizationId, deliveryId: input.deliveryId, nextDelayMs: next });
    if (r.done) return { status: r.status, attempts: i + 1 };
    extraWaitMs = r.retryAfterMs ?? 0;
  }
  return { status: 'Failed', attempts: input.delaysMs.length };
}
