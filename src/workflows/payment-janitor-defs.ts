/** Input and result of the paymentJanitor workflow, shared by the workflow, the worker's schedule and the API. */
export interface PaymentJanitorInput {
  /** How far back the provider's charges are compared (days). */
  lookbackDays: number;
  /** Charges younger than this are left to the workflows that made them (seconds). */
  minAgeSeconds: number;
  /** Only this organization's charges (an Admin's run); all when absent (the schedule). */
  organizationId?: string | null;
}

export interface PaymentJanitorResult {
  examined: number;
  alreadyRecorded: number;
  recorded: number;
  voided: number;
  refunded: number;
  unattributed: number;
}

/** The Temporal Schedule of a deployment (one per namespace), created idempotently at worker start. */
export const PAYMENT_JANITOR_SCHEDULE_ID = 'payment-janitor';
