/**
 * Buyer approvals (pure): when a checkout needs an approval, who is asked at which level, and the
 * states of a request. Pending -> Approved | Rejected | Expired | Superseded; an approve whose cart
 * total at current prices differs from the requested total is refused and the request is
 * Superseded (a new request asks for the new total when it still exceeds the buyer's limits).
 */
import { Decimal } from 'decimal.js';
import type { Amount } from '../money.js';

export const BUYER_ROLES = ['Buyer', 'Approver'] as const;
export type BuyerRole = (typeof BUYER_ROLES)[number];

export const APPROVAL_STATUSES = ['Pending', 'Approved', 'Rejected', 'Expired', 'Superseded'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export interface SpendingLimits {
  /** Per order; null = no limit. */
  orderLimit: Amount | null;
  /** Per calendar month (UTC); null = no limit. */
  monthlyLimit: Amount | null;
}

export type SpendingCheck = { needsApproval: false } | { needsApproval: true; reason: string };

/** Whether a checkout of `total` by a buyer who spent `spentThisMonth` needs an approval. */
export function checkSpending(total: Amount, spentThisMonth: Amount, limits: SpendingLimits): SpendingCheck {
  const t = new Decimal(total);
  if (limits.orderLimit !== null && t.gt(limits.orderLimit)) return { needsApproval: true, reason: `the total ${t.toFixed(2)} exceeds the per-order limit ${new Decimal(limits.orderLimit).toFixed(2)}` };
  if (limits.monthlyLimit !== null) {
    const remaining = Decimal.max(0, new Decimal(limits.monthlyLimit).minus(spentThisMonth));
    if (t.gt(remaining)) return { needsApproval: true, reason: `the total ${t.toFixed(2)} exceeds the remaining monthly limit ${remaining.toFixed(2)}` };
  }
  return { needsApproval: false };
}

export interface ApproverCandidate {
  userId: string;
  email: string;
  /** The approver's own per-order limit; null = unlimited (the highest level). */
  orderLimit: Amount | null;
}

export interface ApprovalLevel {
  level: number;
  kind: 'Approvers' | 'Admins';
  userIds: string[];
  emails: string[];
}

/**
 * The chain of a request: the customer's Approvers (never the requester) grouped by their own
 * per-order limit, lowest first (an unlimited approver last), one level per group; then the
 * organization's admins. An empty customer chain goes straight to the admins.
 */
export function approvalLevels(requesterUserId: string, approvers: readonly ApproverCandidate[], admins: readonly { userId: string; email: string }[]): ApprovalLevel[] {
  const groups = new Map<string, ApproverCandidate[]>();
  for (const a of approvers) {
    if (a.userId === requesterUserId) continue;
    const key = a.orderLimit === null ? '∞' : new Decimal(a.orderLimit).toFixed(4);
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const keys = [...groups.keys()].sort((a, b) => (a === '∞' ? 1 : b === '∞' ? -1 : new Decimal(a).cmp(b)));
  const levels: ApprovalLevel[] = keys.map((k, i) => ({ level: i + 1, kind: 'Approvers', userIds: groups.get(k)!.map((a) => a.userId), emails: groups.get(k)!.map((a) => a.email) }));
  levels.push({ level: levels.length + 1, kind: 'Admins', userIds: admins.map((a) => a.userId), emails: admins.map((a) => a.email) });
  return levels;
}

/** Why `action` is refused in `status` (a 409), or null when it may proceed. */
export function approvalRefusal(status: ApprovalStatus, action: 'approve' | 'reject'): string | null {
  if (status === 'Pending') return null;
  return `The approval is ${status}; only a Pending approval can be ${action === 'approve' ? 'approved' : 'rejected'}.`;
}

/** Start of the calendar month (UTC) of `at`. */
export function monthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}
