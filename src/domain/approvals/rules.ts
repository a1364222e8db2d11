/**
 * Buyer approvals (pure): when a checkout needs an approval, who is asked at which level, and the
 * states of a request. Pending -> Approved | Rejected | Expired | Superseded | Withdrawn (by the
 * requester or an admin); an approve whose cart
 * total at current prices differs from the requested total is refused and the request is
 * Superseded (a new request asks for the new total when it still exceeds the buyer's limits).
 */
import { Decimal } from 'decimal.js';
import type { Amount } from '../money.js';

export const BUYER_ROLES = ['Buyer', 'Approver'] as const;
export type BuyerRole = (typeof BUYER_ROLES)[number];

export const APPROVAL_STATUSES = ['Pending', 'Approved', 'Rejected', 'Expired', 'Superseded', 'Withdrawn'] as const;
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
export function approvalRefusal(status: ApprovalStatus, action: 'approve' | 'reject' | 'withdraw'): string | null {
  if (status === 'Pending') return null;
  return `The approval is ${status}; only a Pending approval can be ${action === 'approve' ? 'approved' : action === 'reject' ? 'rejected' : 'withdrawn'}.`;
}

/**
 * Why an Approver whose own per-order limit is `orderLimit` may not approve a request of `total`
 * (a 403 naming orderLimit), or null when it may: an Approver approves at most what it may buy
 * itself (null: no limit). Rejecting is not limited (a refusal spends nothing); admins are
 * unlimited and never asked here.
 */
export function approverLimitRefusal(total: Amount, orderLimit: Amount | null, currencyCode: string): { message: string; errors: Record<string, string[]> } | null {
  if (orderLimit === null || new Decimal(total).lte(orderLimit)) return null;
  const limit = `${new Decimal(orderLimit).toFixed(2)} ${currencyCode}`;
  const asked = `${new Decimal(total).toFixed(2)} ${currencyCode}`;
  return {
    message: `An Approver approves only within its own per-order limit: this request is for ${asked} and your orderLimit is ${limit}. You may reject it; an Approver with a higher limit or an admin approves it (the request escalates to them).`,
    errors: { orderLimit: [`Your orderLimit ${limit} is below the request's total ${asked}.`] },
  };
}

/** Start of the calendar month (UTC) of `at`. */
export function monthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** A buyer row as the management rule reads it: role and limits (null = no limit). */
export interface BuyerGrant extends SpendingLimits {
  role: BuyerRole;
}

/** Who changes a buyer row: an admin (or Super), or a Customer user with their own row at the customer (null: none). */
export interface BuyerManager {
  isAdmin: boolean;
  userId: string | null;
  own: BuyerGrant | null;
}

/** A refused change of a buyer row (a 403): why, and the fields that ask for more than the manager has. */
export interface BuyerChangeRefusal {
  message: string;
  errors?: Record<string, string[]>;
}

const LIMIT_FIELDS = ['orderLimit', 'monthlyLimit'] as const;

/**
 * Whether `manager` may set the buyer row of `target` to `next` (null: remove it). Nobody changes
 * their own row; admins change any other; an Approver changes only plain Buyers' rows, makes nobody
 * an Approver, and grants no more than it has: each limit at most its own (null, no limit, only when
 * its own is null). Removing a row lifts the user's limits, so an Approver with a limit cannot.
 */
export function buyerChangeRefusal(manager: BuyerManager, target: { userId: string; current: BuyerGrant | null }, next: BuyerGrant | null): BuyerChangeRefusal | null {
  if (manager.userId !== null && manager.userId.toLowerCase() === target.userId.toLowerCase())
    return { message: "Nobody changes their own buyer role or limits; the organization's admins do." };
  if (manager.isAdmin) return null;
  const own = manager.own;
  if (own?.role !== 'Approver') return { message: "Only an admin or one of the customer's Approvers manages its buyers." };
  if (target.current?.role === 'Approver') return { message: "Only the organization's admins change an Approver's role or limits." };
  if (next === null) {
    const limited = LIMIT_FIELDS.filter((f) => own[f] !== null);
    return limited.length
      ? { message: `Removing a buyer's role lifts their limits, which is more than you have (your ${limited.join(' and ')} ${limited.length > 1 ? 'are' : 'is'} set); set limits within yours instead, or ask an admin.` }
      : null;
  }
  const errors: Record<string, string[]> = {};
  if (next.role === 'Approver') errors.role = ["Only the organization's admins make a user an Approver."];
  for (const f of LIMIT_FIELDS) {
    const mine = own[f];
    if (mine === null) continue;
    const max = new Decimal(mine).toFixed(2);
    const granted = next[f];
    if (granted === null) errors[f] = [`${f} must be set, at most your own ${f} ${max}: no limit is more than you have.`];
    else if (new Decimal(granted).gt(mine)) errors[f] = [`${f} must be at most your own ${f} ${max}.`];
  }
  return Object.keys(errors).length ? { message: 'An Approver grants at most its own role and limits.', errors } : null;
}

/** A cart line as an approval holds it: what is bought, how many, at which unit price. */
export interface HeldLine {
  sku: string;
  quantity: number;
  unitPrice: Amount;
}

/** Whether two carts buy exactly the same: the same SKUs in the same quantities at the same unit prices (line order aside). */
export function sameCartLines(a: readonly HeldLine[], b: readonly HeldLine[]): boolean {
  if (a.length !== b.length) return false;
  const key = (l: HeldLine) => l.sku.toLowerCase();
  const bySku = new Map(b.map((l) => [key(l), l]));
  return a.every((l) => {
    const o = bySku.get(key(l));
    return o !== undefined && o.quantity === l.quantity && new Decimal(o.unitPrice).eq(l.unitPrice);
  });
}

/**
 * The chain of a Pending request after the customer's Approvers (or the admins) changed, while
 * level `askedIndex` (0-based; -1: none yet) is being asked. Levels already passed stay as they
 * were; the level being asked keeps only those still in `fresh` (the chain built now); the levels
 * after it are `fresh`'s, without anyone already asked. `skip`: nobody asked at the current level
 * may still decide, so the next level is asked at once (as an escalation).
 */
export function reviseLevels(levels: readonly ApprovalLevel[], askedIndex: number, fresh: readonly ApprovalLevel[]): { levels: ApprovalLevel[]; skip: boolean } {
  if (askedIndex < 0 || askedIndex >= levels.length) return { levels: fresh.map((l) => ({ ...l })), skip: false };
  const current = levels[askedIndex];
  const still = new Map(fresh.filter((l) => l.kind === current.kind).flatMap((l) => l.userIds.map((u, i) => [u, l.emails[i]] as const)));
  const left = current.userIds.filter((u) => still.has(u));
  const asked = new Set(levels.slice(0, askedIndex + 1).flatMap((l) => l.userIds));
  const rest =
    current.kind === 'Admins'
      ? []
      : fresh
          .map((l) => (l.kind === 'Admins' ? l : { ...l, userIds: l.userIds.filter((u) => !asked.has(u)), emails: l.emails.filter((_, i) => !asked.has(l.userIds[i])) }))
          .filter((l) => l.kind === 'Admins' || l.userIds.length > 0);
  const out = [...levels.slice(0, askedIndex), { ...current, userIds: left, emails: left.map((u) => still.get(u)!) }, ...rest].map((l, i) => ({ ...l, level: i + 1 }));
  return { levels: out, skip: left.length === 0 && askedIndex + 1 < out.length };
}
