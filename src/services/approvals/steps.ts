/**
 * The approvePurchase workflow's writes (src/activities/approvals.ts). Each is idempotent by its
 * key (a chain entry carries it) or by the final state it leads to, and runs under the request's
 * row lock; webhook events and the e-mails to send are answered in the same step.
 */
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { ApplicationFailure } from '@temporalio/common';
import { approvalLevels, approvalRefusal, approverLimitRefusal, reviseLevels, sameCartLines } from '../../domain/approvals/rules.js';
import { spendingAdmission } from '../../domain/orders/admission.js';
import { formatMoney, minorUnitDigits } from '../../domain/money.js';
import { orderTotals } from '../../domain/orders/totals.js';
import { ApprovalRequest, Cart, CustomerBuyer, Order, OrganizationMember, Quote, User } from '../../entities/index.js';
import type { ApprovalChainEntry } from '../../entities/Approval.js';
import { AppError } from '../../errors.js';
import { APPROVAL_WRONG_STATE, type LevelInfo, type Supersession } from '../../workflows/approve-purchase-defs.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { emitEventOnce } from '../webhooks/events.js';
import { priceLines, type PricedLine } from '../catalog/pricing.js';
import { cartBuyer } from '../carts/carts.js';
import { approvalEvent } from './approvals.js';
import { limitedBuyer } from './buyers.js';
import { reserveApprovedOrder } from '../orders/create.js';

const wrongState = (message: string) => ApplicationFailure.create({ type: APPROVAL_WRONG_STATE, message, nonRetryable: true });

async function lock(tx: EntityManager, organizationId: string, approvalId: string): Promise<ApprovalRequest> {
  const a = await tx.findOne(ApprovalRequest, { organizationId, id: approvalId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!a) throw AppError.notFound('Approval');
  return a;
}

const entry = (e: Omit<ApprovalChainEntry, 'note' | 'by'> & Partial<Pick<ApprovalChainEntry, 'note' | 'by'>>): ApprovalChainEntry => ({ by: null, note: null, ...e });

/** The chain of the request: the customer's Approvers by their own limit, then the organization's admins (src/domain/approvals/rules.ts). */
export async function approvalChain(em: EntityManager, input: { organizationId: string; approvalId: string }): Promise<(LevelInfo & { emails: string[] })[]> {
  const f = em.fork();
  const a = await f.findOneOrFail(ApprovalRequest, { organizationId: input.organizationId, id: input.approvalId });
  const buyers = a.customerId ? await f.find(CustomerBuyer, { organizationId: input.organizationId, customerId: a.customerId, role: 'Approver' }) : [];
  const users = new Map((await f.find(User, { id: { $in: buyers.map((b) => b.userId) } })).map((u) => [u.id, u.email]));
  const admins = await f.find(OrganizationMember, { organization: input.organizationId, isAdmin: true }, { populate: ['user'] });
  return approvalLevels(
    a.requesterUserId,
    buyers.filter((b) => users.has(b.userId)).map((b) => ({ userId: b.userId, email: users.get(b.userId)!, orderLimit: b.orderLimit ?? null })),
    admins.map((m) => ({ userId: m.user.id, email: m.user.email })),
  );
}

/**
 * The chain revised after the customer's Approvers or the admins changed (signal
 * approversChanged): `reviseLevels` of src/domain/approvals/rules.ts against the chain built now.
 */
export async function reviseChain(
  em: EntityManager,
  input: { organizationId: string; approvalId: string; levels: (LevelInfo & { emails: string[] })[]; askedIndex: number },
): Promise<{ levels: (LevelInfo & { emails: string[] })[]; skip: boolean }> {
  return reviseLevels(input.levels, input.askedIndex, await approvalChain(em, input));
}

/**
 * Who of a level may still decide: Approvers of the customer (their buyer row ends with their
 * association to it or their membership) other than the requester, or the organization's admins.
 */
async function stillDeciding(em: EntityManager, a: ApprovalRequest, level: LevelInfo & { emails: string[] }): Promise<{ userIds: string[]; emails: string[] }> {
  const ids =
    level.kind === 'Admins'
      ? (await em.find(OrganizationMember, { organization: a.organizationId, isAdmin: true, user: { $in: level.userIds } }, { fields: ['user'] })).map((m) => m.user.id)
      : a.customerId
        ? (await em.find(CustomerBuyer, { organizationId: a.organizationId, customerId: a.customerId, role: 'Approver', userId: { $in: level.userIds } })).map((b) => b.userId).filter((u) => u !== a.requesterUserId)
        : [];
  const keep = new Set(ids);
  return { userIds: level.userIds.filter((u) => keep.has(u)), emails: level.emails.filter((_, i) => keep.has(level.userIds[i])) };
}

/**
 * Records that `level` was asked (Asked at level 1 or after a restart, Escalated later) and answers
 * its e-mails, to those of the level who may still decide (the level was built when the request
 * started). `note`: why the level is asked early (the one before has nobody left).
 */
export async function askLevel(
  em: EntityManager,
  input: { organizationId: string; approvalId: string; level: LevelInfo & { emails: string[] }; escalated: boolean; key: string; at: string; note?: string | null },
): Promise<SendEmailInput[]> {
  return em.fork().transactional(async (tx) => {
    const a = await lock(tx, input.organizationId, input.approvalId);
    if (a.status !== 'Pending') return [];
    const asked = await stillDeciding(tx, a, input.level);
    if (!a.chain.some((e) => e.key === input.key)) {
      const note = [input.level.kind === 'Admins' ? "the organization's admins" : null, input.note ?? null].filter(Boolean).join('; ') || null;
      a.chain = [...a.chain, entry({ key: input.key, at: input.at, type: input.escalated ? 'Escalated' : 'Asked', level: input.level.level, userIds: asked.userIds, note })];
      a.level = input.level.level;
      a.updatedAt = new Date(input.at);
      await tx.flush();
    }
    return asked.emails.map((to, i) => ({
      emailId: `approval-${a.id}-${input.key}-${i}`,
      organizationId: input.organizationId,
      template: 'approval-request' as const,
      to,
      data: { approvalId: a.id, customerNumber: a.customerNumber, total: a.total, currencyCode: a.currencyCode, requesterName: a.requesterName ?? a.requesterEmail ?? 'A buyer', reason: a.reason, level: input.level.level },
    }));
  });
}

const decisionMail = (a: ApprovalRequest, decision: string, reason: string | null): SendEmailInput | null =>
  a.requesterEmail
    ? {
        emailId: `approval-${a.id}-${decision}`,
        organizationId: a.organizationId,
        template: 'approval-decision',
        to: a.requesterEmail,
        data: { approvalId: a.id, decision, reason, requesterName: a.requesterName ?? '', total: formatMoney(a.total, a.currencyCode) },
      }
    : null;

export interface DecisionResult {
  status: ApprovalRequest['status'];
  /** Executions before the supersede change: the total changed and the request started over at level 1. Always false now. */
  restarted: boolean;
  superseded?: Supersession | null;
  mail: SendEmailInput | null;
  /** An Approved answer: the total approved, which the checkout it continues must come to. */
  approvedTotal?: string;
  /** An Approved answer: the lines approved, exactly what the checkout it continues orders. */
  approvedLines?: { sku: string; quantity: number; unitPrice: string }[];
}

/** The approved total of an Approved request (for the checkout it continues), nothing otherwise. */
const approvedTotalOf = (a: ApprovalRequest) =>
  a.status === 'Approved'
    ? { approvedTotal: new Decimal(a.total).toFixed(minorUnitDigits(a.currencyCode)), approvedLines: a.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, unitPrice: String(l.unitPrice) })) }
    : {};

type CartLine = { sku: string; name: string; quantity: number; unitPrice: string; lineTotal: string };
const lineOf = (i: { sku: string; name: string; quantity: number; unitPrice: string; lineTotal: string }): CartLine => ({ sku: i.sku, name: i.name, quantity: i.quantity, unitPrice: String(i.unitPrice), lineTotal: String(i.lineTotal) });

/**
 * The open cart repriced at current catalog/tier prices (quantity breaks applied), under its row
 * lock: the lines that changed take the new prices, so a checkout that follows charges them. A line
 * that can no longer be priced (product gone, no price) refuses the approve (409), nothing changes.
 */
async function repriceCart(tx: EntityManager, orgId: string, cartId: string): Promise<{ cart: Cart; total: Decimal }> {
  const cart = await tx.findOne(Cart, { organization: orgId, id: cartId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!cart || cart.status !== 'PENDING') throw wrongState('The cart is no longer open.');
  await tx.populate(cart, ['items']);
  const items = cart.items.getItems();
  let priced: PricedLine[];
  try {
    priced = await priceLines(tx, orgId, cartBuyer(cart), items.map((i) => ({ sku: i.sku, quantity: i.quantity })));
  } catch (e) {
    if (e instanceof AppError) {
      const why = Object.entries(e.errors ?? {}).map(([field, m]) => `${items[Number(/\[(\d+)\]/.exec(field)?.[1] ?? 0)]?.sku ?? field}: ${m.join(' ')}`);
      throw wrongState(`The cart cannot be checked out any more (${why.join('; ') || e.message}); the buyer must change it.`);
    }
    throw e;
  }
  items.forEach((item, i) => {
    const price = priced[i].unitPrice;
    if (!price.eq(item.unitPrice)) {
      item.unitPrice = price.toFixed();
      item.lineTotal = price.times(item.quantity).toFixed();
      item.priceListId = priced[i].priceListId;
      cart.updatedAt = new Date();
    }
  });
  return { cart, total: orderTotals(cart.items.getItems().map((i) => ({ price: i.unitPrice, quantity: i.quantity })), cart.currencyCode).total };
}

/**
 * Approve, reject or withdraw under the row lock. An approve re-checks the cart: still open, and its total at
 * current catalog/tier prices (the cart's lines are repriced) equal to the requested total. A changed
 * total ends this request as Superseded (chain entry TotalChanged naming both totals) and, when the
 * new total still exceeds the buyer's limits, creates request `newApprovalId` for it (the workflow
 * starts its approvePurchase); otherwise the buyer is told to check out again.
 */
export async function decide(
  em: EntityManager,
  input: {
    organizationId: string;
    approvalId: string;
    action: 'approve' | 'reject' | 'withdraw';
    by: string;
    /** Whether `by` decides as an admin; false: as an Approver of the customer, re-checked here. Absent from inputs recorded before it. */
    byAdmin?: boolean;
    reason?: string | null;
    key: string;
    at: string;
    newApprovalId?: string;
  },
): Promise<DecisionResult> {
  return em.fork().transactional(async (tx) => {
    const a = await lock(tx, input.organizationId, input.approvalId);
    const done = a.chain.find((e) => e.key === input.key);
    if (done) return { status: a.status, restarted: false, superseded: done.type === 'TotalChanged' ? supersession(a) : null, mail: null, ...approvedTotalOf(a) };
    const refused = approvalRefusal(a.status, input.action);
    if (refused) throw wrongState(refused);
    // An Approver decides only while it is one (the API checked it; its role may have ended since): otherwise the approval is another customer's (404).
    if (input.action === 'withdraw') return withdraw(tx, a, input);
    const asApprover = input.byAdmin === false && a.customerId ? await tx.findOne(CustomerBuyer, { organizationId: a.organizationId, customerId: a.customerId, userId: input.by, role: 'Approver' }) : null;
    if (input.byAdmin === false && !asApprover) throw AppError.notFound('Approval');
    // An Approver approves at most its own per-order limit (read here, under the request's lock: a limit lowered since the API's check counts).
    const overLimit = input.action === 'approve' && asApprover ? approverLimitRefusal(a.total, asApprover.orderLimit ?? null, a.currencyCode) : null;
    if (overLimit) throw new AppError('forbidden', overLimit.message, overLimit.errors);
    const at = new Date(input.at);
    if (input.action === 'approve' && a.subject === 'Quote') {
      const changed = await heldQuoteChange(tx, a);
      if (changed) return supersedeHeldQuote(tx, a, changed, input);
      a.status = 'Approved';
    } else if (input.action === 'approve' && a.subject === 'Order') {
      await settleHeldOrder(tx, a, 'Pending');
      a.status = 'Approved';
    } else if (input.action === 'approve') {
      const { cart, total } = await repriceCart(tx, input.organizationId, a.cartId!);
      // An approval is for exact lines and prices: a total or any line that differs at current prices supersedes it.
      if (!total.eq(a.total) || !sameCartLines(cart.items.getItems(), a.lines)) return supersede(tx, a, cart, total, { ...input, newApprovalId: input.newApprovalId ?? randomUUID() });
      await tx.flush();
      a.status = 'Approved';
    } else {
      if (a.subject === 'Order') await settleHeldOrder(tx, a, 'Cancelled');
      a.status = 'Rejected';
      a.decisionReason = input.reason ?? null;
    }
    a.decidedBy = input.by;
    a.chain = [...a.chain, entry({ key: input.key, at: input.at, type: a.status === 'Approved' ? 'Approved' : 'Rejected', level: a.level, userIds: [input.by], by: input.by, note: input.reason ?? null })];
    a.updatedAt = at;
    await tx.flush();
    await emitEventOnce(tx, input.organizationId, a.status === 'Approved' ? 'approval.approved' : 'approval.rejected', approvalEvent(a), `approval-${a.id}-${a.status}`);
    return { status: a.status, restarted: false, mail: a.status === 'Rejected' ? decisionMail(a, 'rejected', a.decisionReason ?? null) : null, ...approvedTotalOf(a) };
  });
}

/**
 * The requester (or an admin) withdraws its Pending request: Withdrawn, chain entry `Withdrawn`,
 * webhook approval.withdrawn. What it held is left as the buyer had it: the cart is open for edits
 * again, the quote stays open, a held order is Cancelled (it was never placed). The requester is
 * re-checked here (the API checked it): only the buyer who asked, or an admin, withdraws.
 */
async function withdraw(tx: EntityManager, a: ApprovalRequest, input: { organizationId: string; by: string; byAdmin?: boolean; reason?: string | null; key: string; at: string }): Promise<DecisionResult> {
  if (!input.byAdmin && input.by !== a.requesterUserId) throw AppError.forbidden('Only the buyer who requested the approval, or an admin, withdraws it.');
  if (a.subject === 'Order') await settleHeldOrder(tx, a, 'Cancelled');
  a.status = 'Withdrawn';
  a.decidedBy = input.by;
  a.decisionReason = input.reason ?? null;
  a.chain = [...a.chain, entry({ key: input.key, at: input.at, type: 'Withdrawn', level: a.level, userIds: [input.by], by: input.by, note: input.reason ?? null })];
  a.updatedAt = new Date(input.at);
  await tx.flush();
  await emitEventOnce(tx, input.organizationId, 'approval.withdrawn', approvalEvent(a), `approval-${a.id}-Withdrawn`);
  // An admin withdrawing a buyer's request tells the buyer; the buyer withdrawing its own needs no mail.
  return { status: a.status, restarted: false, mail: input.by !== a.requesterUserId ? decisionMail(a, 'withdrawn', a.decisionReason ?? null) : null };
}

/**
 * A held quote accept at approval: why the accept it holds can no longer go ahead as requested (the
 * quote is no longer Quoted, or its current offer comes to another total), or null. Read under the
 * quote's row lock, after the request's.
 */
async function heldQuoteChange(tx: EntityManager, a: ApprovalRequest): Promise<{ note: string; total: Decimal | null } | null> {
  const q = await tx.findOne(Quote, { organizationId: a.organizationId, id: a.quoteId! }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!q || q.status !== 'Quoted') return { note: `the quote is ${q?.status ?? 'gone'}; it can no longer be accepted`, total: null };
  const offer = [...q.versions].reverse().find((v) => v.kind === 'Offer');
  const total = new Decimal(offer?.total ?? 0);
  return total.eq(a.total) ? null : { note: `the quote's offer now comes to ${formatMoney(total, a.currencyCode)}`, total };
}

/** A held accept that can no longer go ahead: Superseded without a new request (the buyer accepts the quote as it now stands, which asks again when needed). */
async function supersedeHeldQuote(tx: EntityManager, a: ApprovalRequest, changed: { note: string; total: Decimal | null }, input: { organizationId: string; key: string; at: string; by: string }): Promise<DecisionResult> {
  a.status = 'Superseded';
  a.repricedTotal = changed.total ? changed.total.toFixed() : null;
  a.updatedAt = new Date(input.at);
  a.chain = [...a.chain, entry({ key: input.key, at: input.at, type: 'TotalChanged', level: a.level, userIds: [], by: input.by, note: changed.note })];
  await tx.flush();
  await emitEventOnce(tx, input.organizationId, 'approval.superseded', approvalEvent(a), `approval-${a.id}-Superseded`);
  const message = `Not approved: ${changed.note} since the approval was requested; the buyer accepts the quote as it now stands.`;
  const s: Supersession = { currencyCode: a.currencyCode, requestedTotal: new Decimal(a.total).toFixed(), currentTotal: new Decimal(changed.total ?? a.total).toFixed(), newApprovalId: null, message };
  return { status: a.status, restarted: false, superseded: s, mail: decisionMail(a, 'superseded', message.replace(/^Not approved: /, '')) };
}

/**
 * The order a request holds (subject Order), under its row lock: released to Pending by an approve,
 * Cancelled by a reject or expiry. Only a PendingApproval order moves (an approve of an order that
 * is no longer waiting is refused, 409).
 */
async function settleHeldOrder(tx: EntityManager, a: ApprovalRequest, to: 'Pending' | 'Cancelled'): Promise<void> {
  const o = await tx.findOne(Order, { organization: a.organizationId, id: a.orderId! }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!o || o.orderStatus !== 'PendingApproval') {
    if (to === 'Pending') throw wrongState(`The order is ${o?.orderStatus ?? 'gone'}; only an order waiting for approval can be released.`);
    return;
  }
  o.orderStatus = to;
  o.updatedAt = new Date();
  a.orderNumber = o.orderNumber;
  // Approved: availability is checked now and the tracked lines reserved in this transaction (409 when short; docs/fulfillment.md "Reservations").
  if (to === 'Pending') await reserveApprovedOrder(tx, a.organizationId, o);
  await tx.flush();
}

function supersession(a: ApprovalRequest): Supersession {
  const requested = formatMoney(a.total, a.currencyCode);
  const current = formatMoney(a.repricedTotal ?? a.total, a.currencyCode);
  return {
    currencyCode: a.currencyCode,
    requestedTotal: new Decimal(a.total).toFixed(),
    currentTotal: new Decimal(a.repricedTotal ?? a.total).toFixed(),
    newApprovalId: a.supersededBy ?? null,
    message: a.supersededBy
      ? `Not approved: the cart total changed from ${requested} to ${current} at current prices since the approval was requested; approval ${a.supersededBy} now asks for ${current}.`
      : `Not approved: the cart total changed from ${requested} to ${current} at current prices since the approval was requested; the new total is within the buyer's limits, so the buyer checks out again.`,
  };
}

async function supersede(tx: EntityManager, a: ApprovalRequest, cart: Cart, total: Decimal, input: { organizationId: string; key: string; at: string; by: string; newApprovalId: string }): Promise<DecisionResult> {
  const orgId = input.organizationId;
  const at = new Date(input.at);
  const lines = cart.items.getItems().map(lineOf);
  const check = spendingAdmission(total, a.customerId ? await limitedBuyer(tx, orgId, a.customerId, a.requesterUserId) : null);
  // The old request leaves Pending before the new one is inserted (at most one Pending request per cart).
  a.status = 'Superseded';
  a.repricedTotal = total.toFixed();
  a.updatedAt = at;
  await tx.flush();
  if (check.needsApproval) {
    const next = tx.create(ApprovalRequest, {
      organizationId: orgId,
      id: input.newApprovalId,
      status: 'Pending',
      customerId: a.customerId,
      customerNumber: a.customerNumber,
      cartId: a.cartId,
      requesterUserId: a.requesterUserId,
      requesterEmail: a.requesterEmail ?? null,
      requesterName: a.requesterName ?? null,
      reason: check.reason,
      currencyCode: a.currencyCode,
      total: total.toFixed(),
      lines,
      // The new request approves these lines: its checkout orders exactly them.
      checkout: { ...a.checkout, expectedLines: lines.map((l) => ({ sku: l.sku, quantity: l.quantity, unitPrice: l.unitPrice })) },
      level: 1,
      chain: [entry({ key: 'supersedes', at: input.at, type: 'Supersedes', level: null, userIds: [], note: `replaces approval ${a.id} of ${formatMoney(a.total, a.currencyCode)}: the total changed at current prices` })],
      decidedBy: null,
      decisionReason: null,
      orderNumber: null,
      supersededBy: null,
      supersedes: a.id,
      repricedTotal: null,
      expiresAt: new Date(at.getTime() + (a.expiresAt.getTime() - a.createdAt.getTime())),
    });
    await tx.flush();
    a.supersededBy = next.id;
    await emitEventOnce(tx, orgId, 'approval.requested', approvalEvent(next), `approval-${next.id}-requested`);
  }
  a.chain = [
    ...a.chain,
    entry({
      key: input.key,
      at: input.at,
      type: 'TotalChanged',
      level: a.level,
      userIds: [],
      by: input.by,
      note: `${formatMoney(a.total, a.currencyCode)} -> ${formatMoney(total, a.currencyCode)} at current prices; ${a.supersededBy ? `superseded by approval ${a.supersededBy}` : 'within the limits now: the buyer checks out again'}`,
    }),
  ];
  await tx.flush();
  await emitEventOnce(tx, orgId, 'approval.superseded', approvalEvent(a), `approval-${a.id}-Superseded`);
  const s = supersession(a);
  return { status: a.status, restarted: false, superseded: s, mail: decisionMail(a, 'superseded', s.message.replace(/^Not approved: /, '')) };
}

/** The request ran out: Expired (the cart stays open for the buyer). */
export async function expireApproval(em: EntityManager, input: { organizationId: string; approvalId: string; at: string }): Promise<DecisionResult> {
  return em.fork().transactional(async (tx) => {
    const a = await lock(tx, input.organizationId, input.approvalId);
    if (a.status !== 'Pending') return { status: a.status, restarted: false, mail: null };
    if (a.subject === 'Order') await settleHeldOrder(tx, a, 'Cancelled');
    a.status = 'Expired';
    a.chain = [...a.chain, entry({ key: 'expired', at: input.at, type: 'Expired', level: a.level, userIds: [] })];
    a.updatedAt = new Date(input.at);
    await tx.flush();
    await emitEventOnce(tx, input.organizationId, 'approval.expired', approvalEvent(a), `approval-${a.id}-Expired`);
    return { status: a.status, restarted: false, mail: decisionMail(a, 'expired', 'no approver answered in time') };
  });
}

/** The approved checkout's outcome on the request: its order number, or why it failed. */
export async function recordApprovalCheckout(em: EntityManager, input: { organizationId: string; approvalId: string; orderNumber: string | null; error: string | null; at: string }): Promise<void> {
  await em.fork().transactional(async (tx) => {
    const a = await lock(tx, input.organizationId, input.approvalId);
    if (input.orderNumber) a.orderNumber = input.orderNumber;
    const key = input.orderNumber ? `checkout-${input.orderNumber}` : `checkout-failed-${input.at}`;
    if (!a.chain.some((e) => e.key === key)) a.chain = [...a.chain, entry({ key, at: input.at, type: 'Approved', level: a.level, userIds: [], note: input.orderNumber ? `checked out as ${input.orderNumber}` : `checkout failed: ${input.error}` })];
    a.updatedAt = new Date(input.at);
    await tx.flush();
  });
}
