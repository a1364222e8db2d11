/**
 * Contract of the returnOrder workflow (id `return-<returnId>`, commerce queue; docs/returns.md
 * "Returns"), shared by the workflow, its activities and the API (no activity proxies here).
 */
import { defineUpdate } from '@temporalio/workflow';
import type { SendEmailInput } from './send-email-defs.js';

export interface ReturnOrderInput {
  organizationId: string;
  returnId: string;
  rmaNumber: string;
  orderNumber: string;
  customerNumber: string | null;
  /** Milliseconds a Requested return waits before the staff reminder e-mail. */
  reminderAfterMs: number;
  /** Milliseconds an Approved return waits for its goods before it expires. */
  expiryMs: number;
}

export interface ReturnRef {
  organizationId: string;
  returnId: string;
}

export interface ReturnState {
  status: string;
}

/** What the money step of a Received return does next: a card refund to make (then record), or nothing more (credited). */
export interface ReturnSettlement {
  status: string;
  refund: { organizationId: string; chargeId: string; amount: string; idempotencyKey: string } | null;
}

export interface ReturnReminder {
  mails: SendEmailInput[];
}

export const returnWorkflowId = (returnId: string) => `return-${returnId}`;
/** The provider's idempotency key of a return's card refund (one refund per return). */
export const returnRefundKey = (returnId: string) => `return-${returnId}`;

/** The API changed the return (approved, rejected, received): the workflow re-reads it; answers its status once acted on (after the money step for a receipt). */
export const returnChangedUpdate = defineUpdate<ReturnState, []>('returnChanged');
