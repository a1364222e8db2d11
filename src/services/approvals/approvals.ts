/**
 * Buyer approvals (docs/approvals.md): read, list, approve, reject. A request is made by the one
 * admission of orders (src/services/orders/admission.ts) for a checkout, a quote accept or an order
 * posted by a customer user above the buyer's limits (workflow approvePurchase, id
 * `approval-<approvalId>`). Approve and reject are updates of that workflow; an approved request
 * continues what it holds exactly once (the checkout as workflow checkout-<cartId>, the accept as a
 * signal to quote-<quoteId>, the order released from PendingApproval).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { isWorkflowNotFound, updateRefusal, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { approvalRefusal, approverLimitRefusal, APPROVAL_STATUSES } from '../../domain/approvals/rules.js';
import { formatMoney, moneyNumber } from '../../domain/money.js';
import { ApprovalRequest, CustomerBuyer } from '../../entities/index.js';
import type { Out } from '../../domain/contract.js';
import type { approval } from '../../domain/resources.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { UUID_RE } from '../../domain/ids.js';
import { APPROVAL_SUPERSEDED, APPROVAL_WRONG_STATE, approveUpdate, rejectUpdate, withdrawUpdate } from '../../workflows/approve-purchase-defs.js';
import { customerNumberFiltersById, liveCustomerId } from '../customers/visibility.js';
import { isApproverOf } from './buyers.js';

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

/** An Approver (not an admin) approves only a total within its own per-order limit: 403 naming orderLimit otherwise (re-checked in the decision step). */
async function assertWithinOwnLimit(em: EntityManager, orgId: string, auth: Principal, a: ApprovalRequest, action: 'approve' | 'reject' | 'withdraw'): Promise<void> {
  if (action !== 'approve' || auth.isSuper || auth.role === 'Admin' || !auth.userId || !a.customerId) return;
  const own = await em.findOne(CustomerBuyer, { organizationId: orgId, customerId: a.customerId, userId: auth.userId, role: 'Approver' });
  const refusal = own ? approverLimitRefusal(a.total, own.orderLimit ?? null, a.currencyCode) : null;
  if (refusal) throw new AppError('forbidden', refusal.message, refusal.errors);
}

export async function decideApproval(deps: ApprovalDeps, orgId: string, auth: Principal, approvalId: string, decision: { action: 'approve' | 'reject'; reason?: string }) {
  const a = await findApproval(deps.em, orgId, auth, approvalId);
  if (!mayDecide(a, auth)) throw AppError.forbidden(auth.userId === a.requesterUserId ? 'A buyer cannot approve their own order.' : 'You have not been asked to decide on this approval.');
  const refused = approvalRefusal(a.status, decision.action);
  if (refused) throw AppError.conflict(a.status === 'Superseded' ? `${refused} ${a.supersededBy ? `Approval ${a.supersededBy} asks for the new total.` : 'The buyer checks out again.'}` : refused);
  await assertWithinOwnLimit(deps.em, orgId, auth, a, decision.action);
  const handle = deps.temporal.workflow.getHandle(approvalWorkflowId(a.id));
  const args = { requestId: randomUUID(), by: auth.userId ?? auth.subject, isAdmin: auth.isSuper || auth.role === 'Admin', reason: decision.reason };
  try {
    await (decision.action === 'approve' ? handle.executeUpdate(approveUpdate, { args: [args] }) : handle.executeUpdate(rejectUpdate, { args: [args] }));
  } catch (e) {
    // WrongState (decided, busy, cart closed) and Superseded (the total changed at current prices; the detail names both totals and the new request).
    const refusal = updateRefusal(e);
    if (refusal && (refusal.type === APPROVAL_WRONG_STATE || refusal.type === APPROVAL_SUPERSEDED)) throw AppError.conflict(refusal.message);
    // The decider's Approver role ended between the API's check and the decision: another customer's approval.
    if (refusal?.type === 'not_found') throw AppError.notFound('Approval');
    // The Approver's own limit is below the total (its limit may have been lowered since the check above).
    if (refusal?.type === 'forbidden') throw new AppError('forbidden', refusal.message, (refusal.details?.[0] as Record<string, string[]> | undefined) ?? undefined);
    if (isWorkflowNotFound(e)) throw AppError.conflict(`The approval is ${a.status}; its workflow has finished.`);
    throw e;
  }
  deps.em.clear();
  return readApproval(deps.em, orgId, auth, approvalId);
}

/**
 * POST /api/approvals/{id}/withdraw: the buyer who asked (or an admin) withdraws a Pending request
 * (update withdrawPurchase of its workflow). Who may not see the request gets 404; who sees it but
 * did not ask it (an Approver of the customer) 403; a request no longer Pending 409.
 */
export async function withdrawApproval(deps: ApprovalDeps, orgId: string, auth: Principal, approvalId: string, reason: string | null) {
  const a = await findApproval(deps.em, orgId, auth, approvalId);
  const isAdmin = auth.isSuper || auth.role === 'Admin';
  if (!isAdmin && auth.userId !== a.requesterUserId) throw AppError.forbidden('Only the buyer who requested the approval, or an admin, withdraws it.');
  const refused = approvalRefusal(a.status, 'withdraw');
  if (refused) throw AppError.conflict(refused);
  const args = { requestId: randomUUID(), by: auth.userId ?? auth.subject, isAdmin, reason: reason ?? undefined };
  try {
    await deps.temporal.workflow.getHandle(approvalWorkflowId(a.id)).executeUpdate(withdrawUpdate, { args: [args] });
  } catch (e) {
    const refusal = updateRefusal(e);
    if (refusal?.type === APPROVAL_WRONG_STATE) throw AppError.conflict(refusal.message);
    if (refusal?.type === 'forbidden') throw AppError.forbidden(refusal.message);
    if (isWorkflowNotFound(e)) throw AppError.conflict(`The approval is ${a.status}; its workflow has finished.`);
    throw e;
  }
  deps.em.clear();
  return readApproval(deps.em, orgId, auth, approvalId);
}

export function approvalEvent(a: ApprovalRequest): Record<string, unknown> {
  return { approvalId: a.id, subject: a.subject, customerNumber: a.customerNumber, cartId: a.cartId ?? null, quoteId: a.quoteId ?? null, orderId: a.orderId ?? null, status: a.status, total: moneyNumber(a.total, a.currencyCode), currencyCode: a.currencyCode, orderNumber: a.orderNumber ?? null };
}

export function approvalView(a: ApprovalRequest): Out<typeof approval> {
  const cur = a.currencyCode;
  return {
    approvalId: a.id,
    status: a.status,
    subject: a.subject,
    customerNumber: a.customerNumber,
    cartId: a.cartId ?? null,
    quoteId: a.quoteId ?? null,
    orderId: a.orderId ?? null,
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
