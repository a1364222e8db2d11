import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createEmailActivities } from '../activities/email.js';
import { deliverOnMailQueue, MAIL_QUEUE_PATCH } from './mail-delivery.js';
import { emailDelivery, localEmailDelivery } from './retry-policies.js';
import type { SendEmailInput, SendEmailResult } from './send-email-defs.js';

const { deliverEmail } = proxyActivities<ReturnType<typeof createEmailActivities>>(emailDelivery);
const local = proxyLocalActivities<ReturnType<typeof createEmailActivities>>(localEmailDelivery);

/** Delivers one e-mail with retries; the activity is idempotent per emailId. */
export async function sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
  // Since patch `email-mail-queue` an activity of the mail queue (mail-delivery.ts); histories from
  // before it deliver as a local activity (patch `email-local-delivery`) or, older still, on this queue.
  if (patched(MAIL_QUEUE_PATCH)) return deliverOnMailQueue(input);
  return patched('email-local-delivery') ? local.deliverEmail(input) : deliverEmail(input);
}
