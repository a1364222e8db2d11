import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { createEmailActivities } from '../activities/email.js';
import { emailDelivery, localEmailDelivery } from './retry-policies.js';
import type { SendEmailInput, SendEmailResult } from './send-email-defs.js';

const { deliverEmail } = proxyActivities<ReturnType<typeof createEmailActivities>>(emailDelivery);
const local = proxyLocalActivities<ReturnType<typeof createEmailActivities>>(localEmailDelivery);

/** Delivers one e-mail with retries; the activity is idempotent per emailId. */
export async function sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
  // Since patch `email-local-delivery` a local activity (a history marker, no task round trip through the server).
  return patched('email-local-delivery') ? local.deliverEmail(input) : deliverEmail(input);
}
