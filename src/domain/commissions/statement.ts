/**
 * Commission statement states and finance actions (pure). Generating -> Draft -> Approved -> Paid,
 * or Draft -> Rejected (final; the period is free again). Recalculate keeps a Draft a Draft.
 */
export const STATEMENT_STATUSES = ['Generating', 'Draft', 'Approved', 'Rejected', 'Paid'] as const;
export type StatementStatus = (typeof STATEMENT_STATUSES)[number];

export type FinanceAction = 'recalculate' | 'approve' | 'reject' | 'markPaid';

const MOVES: Record<FinanceAction, { from: StatementStatus; to: StatementStatus }> = {
  recalculate: { from: 'Draft', to: 'Draft' },
  approve: { from: 'Draft', to: 'Approved' },
  reject: { from: 'Draft', to: 'Rejected' },
  markPaid: { from: 'Approved', to: 'Paid' },
};

export type ActionResult = { ok: true; to: StatementStatus } | { ok: false; reason: string };

export function isStatementStatus(s: unknown): s is StatementStatus {
  return typeof s === 'string' && (STATEMENT_STATUSES as readonly string[]).includes(s);
}

/** The state a finance action leads to from `from`, or why it is refused (a 409). */
export function financeMove(from: StatementStatus, action: FinanceAction): ActionResult {
  const m = MOVES[action];
  if (from === m.from) return { ok: true, to: m.to };
  const verb = { recalculate: 'recalculated', approve: 'approved', reject: 'rejected', markPaid: 'marked paid' }[action];
  return { ok: false, reason: `The statement is ${from}; only a ${m.from} statement can be ${verb}.` };
}

/** Statuses whose period blocks another statement of the same rep. */
export const BLOCKING_STATUSES: readonly StatementStatus[] = ['Generating', 'Draft', 'Approved', 'Paid'];

/** Whether the inclusive date ranges [aStart, aEnd] and [bStart, bEnd] (YYYY-MM-DD) share a day. */
export function periodsOverlap(aStart: string, aEnd: string, bStart: string, bEnd: string): boolean {
  return aStart <= bEnd && bStart <= aEnd;
}

/** Statuses whose entries are frozen and owed: clawbacks come from these. */
export const SETTLED_STATUSES: readonly StatementStatus[] = ['Approved', 'Paid'];
