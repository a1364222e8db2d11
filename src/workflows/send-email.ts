import { deprecatePatch } from '@temporalio/workflow';
import { deliverOnMailQueue, MAIL_QUEUE_PATCH } from './mail-delivery.js';
import type { SendEmailInput, SendEmailResult } from './send-email-defs.js';

/** Delivers one e-mail with retries, as an activity of the mail queue (mail-delivery.ts); idempotent per emailId. */
export async function sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
  deprecatePatch(MAIL_QUEUE_PATCH); // retired patch: docs/operations.md, "Retiring a patch"
  return deliverOnMailQueue(input);
}
