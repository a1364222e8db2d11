import { proxyActivities } from '@temporalio/workflow';
import type { createEmailActivities } from '../activities/email.js';
import { emailDelivery } from './retry-policies.js';
import type { SendEmailInput, SendEmailResult } from './send-email-defs.js';

const { deliverEmail } = proxyActivities<ReturnType<typeof createEmailActivities>>(emailDelivery);

/** Delivers one e-mail with retries; the activity is idempotent per emailId. */
export async function sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
  return deliverEmail(input);
}
