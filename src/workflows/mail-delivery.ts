/**
 * E-mail delivery on the `mail` task queue. An SMTP server that
 * does not answer (the deployment's, or one tenant's own Smtp integration) then holds only a slot
 * of the mail worker's activities: never a workflow-task slot (a local activity holds one while it
 * runs) nor a commerce activity slot, so other tenants' checkouts, charges and dunning steps go on
 * (docs/decisions.md, "E-mail delivery on a task queue of its own").
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { createEmailActivities } from '../activities/email.js';
import { emailDelivery } from './retry-policies.js';
import type { SendEmailInput } from './send-email-defs.js';

/** Retired (deprecatePatch in collectInvoice only, docs/operations.md "Retiring a patch"): every delivery is on the mail queue. */
export const MAIL_QUEUE_PATCH = 'email-mail-queue';

/**
 * The mail queue beside this workflow's own: `<prefix>commerce` -> `<prefix>mail` (config.ts
 * taskQueue). The workflows that deliver (sendEmail, issueInvoice, collectInvoice) run on commerce.
 */
export function mailQueue(): string {
  return workflowInfo().taskQueue.replace(/commerce$/, 'mail');
}

/** deliverEmail as an ordinary activity on the mail queue (retries and attempt timeout of `emailDelivery`). */
export function deliverOnMailQueue(input: SendEmailInput): Promise<{ delivered: boolean }> {
  return proxyActivities<ReturnType<typeof createEmailActivities>>({ ...emailDelivery, taskQueue: mailQueue() }).deliverEmail(input);
}
