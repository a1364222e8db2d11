/** Input and output of the sendEmail workflow, shared by the workflow, its activity and every caller (no activity proxies here). */

export type EmailTemplate =
  | 'welcome-admin'
  | 'invite-user'
  | 'welcome-sales-rep'
  | 'invite-sales-rep'
  | 'reinvite-sales-rep'
  | 'order-confirmation'
  | 'invoice-issued'
  | 'invoice-reminder'
  | 'invoice-overdue'
  | 'credit-hold'
  | 'accept-membership'
  | 'password-reset'
  | 'quote-reminder'
  | 'approval-request'
  | 'approval-decision'
  | 'shipment-notification'
  | 'backorder-allocated'
  | 'backorder-escalation'
  | 'generic';

export interface SendEmailInput {
  /** Business key, e.g. `welcome-admin-<orgId>-<userId>`; also the EmailMessage id. */
  emailId: string;
  organizationId: string | null;
  template: EmailTemplate;
  to: string;
  /** Template data; never secrets (one-time links are minted inside the activity). */
  data: Record<string, string | number | boolean | null>;
}

export interface SendEmailResult {
  delivered: boolean;
}
