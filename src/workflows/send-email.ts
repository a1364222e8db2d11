import { proxyActivities } from '@temporalio/workflow';
import type { createEmailActivities } from '../activities/email.js';
import { bounded } from './retry-policies.js';

export type EmailTemplate = 'welcome-admin' | 'invite-user' | 'welcome-sales-rep' | 'invite-sales-rep' | 'reinvite-sales-rep' | 'order-confirmation' | 'invoice-issued' | 'invoice-reminder' | 'accept-membership' | 'password-reset' | 'generic';

export interface SendEmailInput {
  /** Business key, e.g. `welcome-admin-<orgId>-<userId>`; also the EmailMessage id. */
  emailId: string;
  organizationId: string | null;
  template: EmailTemplate;
  to: string;
  /** Template data; never secrets (one-time links are minted inside the activity). */
  data: Record<string, string | number | boolean | null>;
}

// An e-mail is bounded work: after about an hour of failures the workflow fails, visibly, in the Temporal UI.
const { deliverEmail } = proxyActivities<ReturnType<typeof createEmailActivities>>({ startToCloseTimeout: '30 seconds', retry: bounded(30, 120_000) });

/** Delivers one e-mail with retries; the activity is idempotent per emailId. */
export async function sendEmail(input: SendEmailInput): Promise<{ delivered: boolean }> {
  return deliverEmail(input);
}
