/**
 * Buyer approvals (docs/approvals.md). `holdForApproval` is the checkout's spending-limit hook: a
 * Customer user with limits at the customer whose checkout total exceeds the per-order limit or the
 * remaining monthly limit is not charged; the checkout is held as an approval request (workflow
 * approvePurchase, id `approval-<approvalId>`) and answered `202 { status: "PendingApproval",
 * approvalId }`. Approve and reject are updates of that workflow; an approved request continues the
 * held checkout (workflow checkout-<cartId>, so it runs and charges once).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../../config.js';
import { approvalRefusal, checkSpending, sameCartLines, APPROVAL_STATUSES, type HeldLine } from '../../domain/approvals/rules.js';
import { boundRows } from '../db/bound.js';
import { formatMoney, moneyNumber } from '../../domain/money.js';
import { orderTotals } from '../../domain/orders/totals.js';
import { ApprovalRequest, Cart, CustomerBuyer, User, type CartItem } from '../../entities/index.js';
import type { Out } from '../../domain/contract.js';
import type { approval } from '../../domain/resources.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { UUID_RE } from '../../domain/ids.js';
import { startOnce } from '../../adapters/temporal.js';
import { APPROVAL_SUPERSEDED, APPROVAL_WRONG_STATE, approveUpdate, rejectUpdate, type ApprovePurchaseInput } from '../../workflows/approve-purchase-defs.js';
import type { CheckoutInput } from '../../workflows/checkout-cart-defs.js';
import { customerNumberFiltersById, liveCustomerId } from '../customers/visibility.js';
import { emitEventOnce } from '../webhooks/events.js';
import { isApproverOf, spentThisMonth } from './buyers.js';

export interface ApprovalDeps {
  em: EntityManager;
  temporal: Client;
  config: Config;
}

export interface PendingApproval {
  status: 'PendingApproval';
  approvalId: string;
}

export const approvalWorkflowId = (approvalId: string) => `approval-${approvalId}`;

/** The cart as the spending check reads it (checkout's one-statement read, src/services/carts/checkout.ts). */
export type ApprovalCart = Pick<Cart, 'id' | 'customerId' | 'customerNumber' | 'currencyCode'> & {
  items: readonly Pick<CartItem, 'sku' | 'name' | 'quantity' | 'unitPrice' | 'lineTotal'>[];
};

const cartTotal = (cart: ApprovalCart) => orderTotals(cart.items.map((i) => ({ price: i.unitPrice, quantity: i.quantity })), cart.currencyCode).total;

/**
 * The checkout's spending-limit hook, called before anything is charged: null when the checkout may
 * proceed; else the request holding it (an existing Pending one for the cart, or a new one).
 * Only Customer users with a buyer profile at the cart's customer have limits. A request Approved
 * for this cart at the same total lets the checkout proceed (a retry after a declined card).
 */
export async function holdForApproval(deps: ApprovalDeps, orgId: string, auth: Principal, cart: ApprovalCart, checkout: CheckoutInput): Promise<PendingApproval | null> {
  const { em } = deps;
  if (auth.role !== 'Customer' || !auth.userId || !cart.customerId) return null;
  const buyer = await em.findOne(CustomerBuyer, { organizationId: orgId, customerId: cart.customerId, userId: auth.userId });
  if (!buyer) return null;
  const total = cartTotal(cart);
  const pending = await em.findOne(ApprovalRequest, { organizationId: orgId, cartId: cart.id, status: 'Pending' });
  if (pending) return { status: 'PendingApproval', approvalId: pending.id };
  const approved = await em.findOne(ApprovalRequest, { organizationId: orgId, cartId: cart.id, status: 'Approved' }, { orderBy: { updatedAt: 'desc' } });
  // After a declined card the approval still holds, for exactly the approved lines and prices.
  if (approved && total.eq(approved.total) && sameCartLines(cart.items, approved.lines)) return null;
  const check = checkSpending(total, await spentThisMonth(em, orgId, cart.customerId, auth.userId), { orderLimit: buyer.orderLimit ?? null, monthlyLimit: buyer.monthlyLimit ?? null });
  if (!check.needsApproval) return null;
  const user = await em.findOne(User, { id: auth.userId });
  const id = randomUUID();
  const lines = cart.items.map((i) => ({ sku: i.sku, name: i.name, quantity: i.quantity, unitPrice: String(i.unitPrice), lineTotal: String(i.lineTotal) }));
  try {
    await em.fork().transactional(async (tx) => {
      await assertCartAsRead(tx, orgId, cart);
      const row = tx.create(ApprovalRequest, {
        organizationId: orgId,
        id,
        status: 'Pending',
        customerId: cart.customerId,
        customerNumber: cart.customerNumber,
        cartId: cart.id,
        requesterUserId: auth.userId!,
        requesterEmail: user?.email ?? null,
        requesterName: user ? `${user.firstName} ${user.lastName}`.trim() : null,
        reason: check.reason,
        currencyCode: cart.currencyCode,
        total: total.toFixed(),
        lines,
        checkout: checkout as unknown as Record<string, unknown>,
        level: 1,
        chain: [],
        decidedBy: null,
        decisionReason: null,
        orderNumber: null,
        supersededBy: null,
        supersedes: null,
        repricedTotal: null,
        expiresAt: new Date(Date.now() + deps.config.approvals.expiryMs),
      });
      await tx.flush();
      await emitEventOnce(tx, orgId, 'approval.requested', approvalEvent(row), `approval-${id}-requested`);
    });
  } catch (e) {
    // Ten checkouts of one cart at once: one request, the others answer it.
    if (!isUniqueViolation(e, 'approval_request_one_pending_per_cart')) throw e;
    const other = await em.fork().findOneOrFail(ApprovalRequest, { organizationId: orgId, cartId: cart.id, status: 'Pending' });
    return { status: 'PendingApproval', approvalId: other.id };
  }
  const input: ApprovePurchaseInput = {
    organizationId: orgId,
    approvalId: id,
    customerNumber: cart.customerNumber,
    checkout,
    escalationMs: deps.config.approvals.escalationMs,
    expiryMs: deps.config.approvals.expiryMs,
  };
  await startOnce(deps.temporal, deps.config, { workflowType: 'approvePurchase', workflowId: approvalWorkflowId(id), args: [input], keys: { organizationId: orgId, customerNumber: cart.customerNumber },
    summary: `Approval of a ${total.toFixed(2)} ${cart.currencyCode} checkout of customer ${cart.customerNumber} (organization ${orgId})`,
  });
  return { status: 'PendingApproval', approvalId: id };
}

/**
 * Takes the cart's row lock (cart edits take it too, src/services/carts/carts.ts) and checks that
 * the cart still has the lines the request is made of: an edit lands before the request (then
 * this 409s and the buyer checks out again) or after it (then the edit is refused as held).
 */
async function assertCartAsRead(tx: EntityManager, orgId: string, cart: ApprovalCart): Promise<void> {
  const [row] = await boundRows<{ status: string }>(tx, 'select status from cart where organization_id = $1 and id = $2 for update', [orgId, cart.id]);
  // Lines in a statement of their own: one that waited for the lock would read its older snapshot.
  const lines = await boundRows<HeldLine>(tx, 'select sku, quantity, unit_price::text as "unitPrice" from cart_item where organization_id = $1 and cart_id = $2', [orgId, cart.id]);
  if (row?.status !== 'PENDING' || !sameCartLines(lines, cart.items)) throw AppError.conflict('The cart changed while it was being checked out; nothing was charged. Review the cart and check out again.');
}

/**
 * Approval requests the principal may see: Admin all; a Customer user only those of the customer it
 * is associated with now (claims are re-read per request), its own and, as an Approver there, all
 * of them. A user moved to another customer or out of the organization sees none of the old
 * customer's requests (another customer's data: 404), its own included.
 */
async function approvalScope(em: EntityManager, orgId: string, auth: Principal): Promise<FilterQuery<ApprovalRequest>> {
  if (auth.isSuper || auth.role === 'Admin') return {};
  const none = { id: { $in: [] } };
  if (auth.role !== 'Customer' || !auth.userId || !auth.customerNumber) return none;
  const customerId = await liveCustomerId(em, orgId, auth.customerNumber);
  if (!customerId) return none;
  if (await isApproverOf(em, orgId, auth, customerId)) return { customerId };
  return { customerId, requesterUserId: auth.userId };
}

export async function findApproval(em: EntityManager, orgId: string, auth: Principal, approvalId: string): Promise<ApprovalRequest> {
  if (!UUID_RE.test(approvalId)) throw AppError.notFound('Approval');
  const a = await em.findOne(ApprovalRequest, { $and: [{ organizationId: orgId, id: approvalId }, await approvalScope(em, orgId, auth)] });
  if (!a) throw AppError.notFound('Approval');
  return a;
}

export async function readApproval(em: EntityManager, orgId: string, auth: Principal, approvalId: string) {
  return approvalView(await findApproval(em, orgId, auth, approvalId));
}

export const approvalListSpec: ListSpec = {
  filters: { status: { prop: 'status', type: 'string' }, customerNumber: { prop: 'customerNumber', type: 'string' }, createdAt: { prop: 'createdAt', type: 'date' } },
  sorts: { CreatedAt: 'createdAt', Status: 'status', CustomerNumber: 'customerNumber', Total: 'total' },
  defaultSort: 'CreatedAt',
  comparisons: true,
};

/** GET /api/approvals: paged (generic envelope), filters status, customerNumber, createdAt (shortcuts ?status=, ?customerNumber=). */
export async function listApprovals(em: EntityManager, orgId: string, auth: Principal, query: Record<string, unknown>) {
  const q = parseList(query, approvalListSpec);
  const and: unknown[] = [...((q.where.$and as unknown[]) ?? [])];
  if (typeof query.status === 'string' && query.status) {
    if (!(APPROVAL_STATUSES as readonly string[]).includes(query.status)) throw AppError.field('status', `status must be one of: ${APPROVAL_STATUSES.join(', ')}.`);
    and.push({ status: query.status });
  }
  if (typeof query.customerNumber === 'string' && query.customerNumber) and.push({ customerNumber: query.customerNumber });
  const where = await customerNumberFiltersById(em, orgId, and.length ? { $and: and } : {});
  const [rows, total] = await em.findAndCount(
    ApprovalRequest,
    { $and: [{ organizationId: orgId }, await approvalScope(em, orgId, auth), where as FilterQuery<ApprovalRequest>] },
    { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(approvalView), total, q);
}

/** Whether the principal may decide: an admin always; a Customer user who is an Approver of the customer, was asked, and did not request it. */
function mayDecide(a: ApprovalRequest, auth: Principal): boolean {
  if (auth.isSuper || auth.role === 'Admin') return true;
  if (auth.role !== 'Customer' || !auth.userId || auth.userId === a.requesterUserId) return false;
  return a.chain.some((e) => (e.type === 'Asked' || e.type === 'Escalated') && e.userIds.includes(auth.userId!));
}

export async function decideApproval(deps: ApprovalDeps, orgId: string, auth: Principal, approvalId: string, decision: { action: 'approve' | 'reject'; reason?: string }) {
  const a = await findApproval(deps.em, orgId, auth, approvalId);
  if (!mayDecide(a, auth)) throw AppError.forbidden(auth.userId === a.requesterUserId ? 'A buyer cannot approve their own checkout.' : 'You have not been asked to decide on this approval.');
  const refused = approvalRefusal(a.status, decision.action);
  if (refused) throw AppError.conflict(a.status === 'Superseded' ? `${refused} ${a.supersededBy ? `Approval ${a.supersededBy} asks for the new total.` : 'The buyer checks out again.'}` : refused);
  const handle = deps.temporal.workflow.getHandle(approvalWorkflowId(a.id));
  const args = { requestId: randomUUID(), by: auth.userId ?? auth.subject, isAdmin: auth.isSuper || auth.role === 'Admin', reason: decision.reason };
  try {
    await (decision.action === 'approve' ? handle.executeUpdate(approveUpdate, { args: [args] }) : handle.executeUpdate(rejectUpdate, { args: [args] }));
  } catch (e) {
    // WrongState (decided, busy, cart closed) and Superseded (the total changed at current prices; the detail names both totals and the new request).
    if (e instanceof WorkflowUpdateFailedError && e.cause instanceof ApplicationFailure && (e.cause.type === APPROVAL_WRONG_STATE || e.cause.type === APPROVAL_SUPERSEDED)) throw AppError.conflict(e.cause.message);
    // The decider's Approver role ended between the API's check and the decision: another customer's approval.
    if (e instanceof WorkflowUpdateFailedError && e.cause instanceof ApplicationFailure && e.cause.type === 'not_found') throw AppError.notFound('Approval');
    if (e instanceof WorkflowNotFoundError) throw AppError.conflict(`The approval is ${a.status}; its workflow has finished.`);
    throw e;
  }
  deps.em.clear();
  return readApproval(deps.em, orgId, auth, approvalId);
}

export function approvalEvent(a: ApprovalRequest): Record<string, unknown> {
  return { approvalId: a.id, customerNumber: a.customerNumber, cartId: a.cartId, status: a.status, total: moneyNumber(a.total, a.currencyCode), currencyCode: a.currencyCode, orderNumber: a.orderNumber ?? null };
}

export function approvalView(a: ApprovalRequest): Out<typeof approval> {
  const cur = a.currencyCode;
  return {
    approvalId: a.id,
    status: a.status,
    customerNumber: a.customerNumber,
    cartId: a.cartId,
    requester: { userId: a.requesterUserId, email: a.requesterEmail ?? null, name: a.requesterName ?? null },
    reason: a.reason,
    currencyCode: cur,
    total: moneyNumber(a.total, cur),
    totalFormatted: formatMoney(a.total, cur),
    lines: a.lines.map((l) => ({ sku: l.sku, name: l.name, quantity: l.quantity, unitPrice: moneyNumber(l.unitPrice, cur), lineTotal: moneyNumber(l.lineTotal, cur) })),
    level: a.level,
    chain: a.chain.map((e) => ({ type: e.type, at: e.at, level: e.level, userIds: e.userIds, by: e.by, note: e.note })),
    decidedBy: a.decidedBy ?? null,
    decisionReason: a.decisionReason ?? null,
    orderNumber: a.orderNumber ?? null,
    supersededBy: a.supersededBy ?? null,
    supersedes: a.supersedes ?? null,
    repricedTotal: a.repricedTotal === null || a.repricedTotal === undefined ? null : moneyNumber(a.repricedTotal, cur),
    expiresAt: a.expiresAt.toISOString(),
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}
