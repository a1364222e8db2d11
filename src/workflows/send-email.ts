import { deliverOnMailQueue } from './mail-delivery.js';
import type { SendEmailInput, SendEmailResult } from './send-email-defs.js';

/** Delivers one e-mail with retries, as an activity of the mail queue (mail-delivery.ts); idempotent per emailId. */
export async function sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
  return deliverOnMailQueue(input);
}
