import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * A Pending approval request whose deciders changed (a customer's Approver row, an admin): written by
 * database triggers in the transaction of the change, whatever path made it (migration
 * 20261129101000), and relayed as signal approversChanged by src/services/approvals/revise.ts.
 */
export const ApprovalSignalOutbox = defineEntity({
  name: 'ApprovalSignalOutbox',
  properties: {
    organizationId: p.uuid().primary(),
    approvalId: p.uuid().primary(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().defaultRaw('now()'),
    createdAt: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'approval_signal_outbox_due_index', properties: ['nextAttemptAt'] }],
});
export type ApprovalSignalOutbox = InferEntity<typeof ApprovalSignalOutbox>;
