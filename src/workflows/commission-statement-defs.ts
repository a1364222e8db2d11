/**
 * Update definitions of the commissionStatement workflow, shared by the workflow and the API
 * (kept apart so the API does not load the workflow's activity proxies).
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';

export interface CommissionStatementInput {
  organizationId: string;
  statementId: string;
  requestedBy: string | null;
  /** Milliseconds a Draft waits before each reminder to the admins. */
  reminderMs: number;
}

export interface FinanceArgs {
  /** Unique per request: keys the statement event, so a retried activity records it once. */
  requestId: string;
  by: string | null;
}

export interface StatementState {
  status: 'Generating' | 'Draft' | 'Approved' | 'Rejected' | 'Paid';
}

/** ApplicationFailure type of a refused finance action (the API answers 409). */
export const WRONG_STATE = 'WrongState';

export const recalculateUpdate = defineUpdate<StatementState, [FinanceArgs]>('recalculate');
export const approveUpdate = defineUpdate<StatementState, [FinanceArgs]>('approve');
export const rejectUpdate = defineUpdate<StatementState, [FinanceArgs & { reason: string }]>('reject');
export const markPaidUpdate = defineUpdate<StatementState, [FinanceArgs & { paymentReference: string; paidAt: string }]>('markPaid');
export const statementStateQuery = defineQuery<StatementState>('state');
