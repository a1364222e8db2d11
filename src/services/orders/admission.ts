/**
 * Admission of a buyer's order (docs/security.md "Admission of orders"): the one service every path
 * to an order calls before anything is charged or stored as placed: checkout
 * (src/services/carts/checkout.ts), quote accept (src/services/quotes/quotes.ts) and POST /api/orders
 * by a customer user (src/services/orders/orders.ts). The rule is `spendingAdmission`
 * (src/domain/orders/admission.ts); above the buyer's limits the order is held for an approval
 * (workflow approvePurchase) and the caller answers `202 { status: "PendingApproval", approvalId }`.
 * The credit admission of an on-account order runs later, in the order's own transaction
 * (`reserveCredit`, src/services/credit/accounts.ts), so it serializes with every other order of
 * the customer.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { Decimal } from 'decimal.js';
import type { Config } from '../../config.js';
import { spendingAdmission, type BuyerSpending } from '../../domain/orders/admission.js';
import { ApprovalRequest, User, type ApprovalSubject } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { sameCartLines, type HeldLine } from '../../domain/approvals/rules.js';
import { boundRows } from '../../db/orm-sql.js';
import type { Principal } from '../../http/auth.js';
import { startOnce } from '../../adapters/temporal.js';
import { amountText } from '../../workflows/tags-defs.js';
import type { ApprovePurchaseInput, QuoteAcceptHold } from '../../workflows/approve-purchase-defs.js';
import type { CheckoutInput } from '../../workflows/checkout-cart-defs.js';
import { emitEventOnce } from '../webhooks/events.js';
import { approvalEvent, approvalWorkflowId, type PendingApproval } from '../approvals/approvals.js';
import { limitedBuyer, lockedBuyer } from '../approvals/buyers.js';

export interface AdmissionDeps {
  em: EntityManager;
  temporal: Client;
  config: Config;
}

export type ApprovalLine = { sku: string; name: string; quantity: number; unitPrice: string; lineTotal: string };

/** What is being admitted: the order's customer, total and lines, and what an approval continues. */
export interface AdmissionSubject {
  subject: ApprovalSubject;
  customerId: string | null;
  customerNumber: string;
  currencyCode: string;
  total: Decimal;
  lines: ApprovalLine[];
  /** Cart: the checkout to continue once approved (workflow checkout-<cartId>). */
  checkout?: CheckoutInput;
  /** Quote: the accept to continue once approved (signal to workflow quote-<quoteId>). */
  quoteAccept?: QuoteAcceptHold;
  /** Order: the order stored PendingApproval (released by the approval). */
  orderId?: string;
}

/** Whether the principal can be a limited buyer at the customer (a Customer user); null otherwise. */
const buyerOf = (auth: Principal, customerId: string | null): { userId: string; customerId: string } | null =>
  auth.role !== 'Customer' || auth.isSuper || !auth.userId || !customerId ? null : { userId: auth.userId, customerId };

/** The buyer's limits at the customer and this month's spending (no lock: for reads), or null when the principal is not a limited buyer there. */
export async function buyerSpending(em: EntityManager, orgId: string, auth: Principal, customerId: string | null): Promise<BuyerSpending | null> {
  const b = buyerOf(auth, customerId);
  return b ? limitedBuyer(em, orgId, b.customerId, b.userId) : null;
}

const sameSubject = (s: AdmissionSubject) => (s.subject === 'Quote' ? { quoteId: s.quoteAccept!.quoteId } : s.subject === 'Cart' ? { cartId: s.checkout!.cartId } : { orderId: s.orderId! });
const subjectKey = (s: AdmissionSubject) => (s.subject === 'Quote' ? `quote:${s.quoteAccept!.quoteId}` : s.subject === 'Cart' ? `cart:${s.checkout!.cartId}` : `order:${s.orderId!}`);

/**
 * How long an admitted checkout or quote accept counts as spent before its order exists: longer
 * than a checkout normally runs (a run that outlives it, e.g. with every worker down, no longer
 * holds the buyer's monthly room; its order counts once written).
 */
export const ADMISSION_HOLD_SECONDS = 30 * 60;

/** Records an admitted checkout or quote accept as spent this month until its order exists (src/services/approvals/buyers.ts spentThisMonth). */
async function recordAdmission(tx: EntityManager, orgId: string, buyer: { userId: string; customerId: string }, s: AdmissionSubject): Promise<void> {
  await boundRows(tx, 'delete from spending_admission where organization_id = $1 and customer_id = $2 and user_id = $3 and expires_at < now()', [orgId, buyer.customerId, buyer.userId]);
  await boundRows(
    tx,
    `insert into spending_admission (organization_id, subject_key, customer_id, user_id, cart_id, quote_id, amount, admitted_at, expires_at)
     values ($1, $2, $3, $4, $5, $6, $7, now(), now() + make_interval(secs => $8))
     on conflict (organization_id, subject_key) do update set customer_id = excluded.customer_id, user_id = excluded.user_id, amount = excluded.amount,
       admitted_at = excluded.admitted_at, expires_at = excluded.expires_at`,
    [orgId, subjectKey(s), buyer.customerId, buyer.userId, s.checkout?.cartId ?? null, s.quoteAccept?.quoteId ?? null, s.total.toFixed(), ADMISSION_HOLD_SECONDS],
  );
}

/**
 * The spending admission of a checkout or a quote accept, before anything is charged: null when it
 * may proceed; else the request holding it (a Pending one for the same cart or quote, or a new one).
 * A request Approved for the same cart or quote at the same total lets it proceed (a retry after a
 * declined card, or the approved accept itself). One transaction under the buyer row's lock: the
 * buyer's admissions run one at a time, each counting what the ones before admitted (recorded in
 * `spending_admission` until the order exists), so concurrent checkouts cannot together exceed the
 * monthly limit.
 */
export async function admitSpending(deps: AdmissionDeps, orgId: string, auth: Principal, s: AdmissionSubject): Promise<PendingApproval | null> {
  const buyer = buyerOf(auth, s.customerId);
  if (!buyer) return null;
  let created: ApprovalRequest | null = null;
  let answer: PendingApproval | null;
  try {
    answer = await deps.em.fork().transactional(async (tx) => {
      const limits = await lockedBuyer(tx, orgId, buyer.customerId, buyer.userId, subjectKey(s));
      if (!limits) return null;
      const pending = await tx.findOne(ApprovalRequest, { organizationId: orgId, ...sameSubject(s), status: 'Pending' });
      if (pending) return { status: 'PendingApproval' as const, approvalId: pending.id };
      const approved = await tx.findOne(ApprovalRequest, { organizationId: orgId, ...sameSubject(s), status: 'Approved' }, { orderBy: { updatedAt: 'desc' } });
      // After a declined card a cart's approval still holds, for exactly the approved lines and prices.
      const stillApproved = approved && (s.subject !== 'Cart' || sameCartLines(s.lines, approved.lines)) ? approved.total : null;
      const check = spendingAdmission(s.total, limits, stillApproved);
      if (!check.needsApproval) {
        await recordAdmission(tx, orgId, buyer, s);
        return null;
      }
      created = await insertApprovalRequest(tx, deps.config, orgId, auth, s, check.reason);
      return { status: 'PendingApproval' as const, approvalId: created.id };
    });
  } catch (e) {
    // Ten checkouts (or accepts) at once: one request, the others answer it.
    if (!isUniqueViolation(e, 'approval_request_one_pending_per_cart') && !isUniqueViolation(e, 'approval_request_one_pending_per_quote')) throw e;
    const other = await deps.em.fork().findOneOrFail(ApprovalRequest, { organizationId: orgId, ...sameSubject(s), status: 'Pending' });
    return { status: 'PendingApproval', approvalId: other.id };
  }
  const row = created as ApprovalRequest | null;
  if (row) await startApproval(deps, orgId, row, s);
  return answer;
}

/**
 * The spending admission of an order posted by a customer user (POST /api/orders), inside the
 * order's own transaction and under the buyer row's lock: the reason it needs an approval (the
 * order is then stored PendingApproval), or null when it is admitted (its own row counts from the commit on).
 */
export async function orderNeedsApproval(tx: EntityManager, orgId: string, auth: Principal, customerId: string | null, total: Decimal): Promise<string | null> {
  const buyer = buyerOf(auth, customerId);
  if (!buyer) return null;
  const check = spendingAdmission(total, await lockedBuyer(tx, orgId, buyer.customerId, buyer.userId));
  return check.needsApproval ? check.reason : null;
}

/** Writes the request (Pending, level 1) and its approval.requested event in the caller's transaction. */
export async function insertApprovalRequest(tx: EntityManager, config: Config, orgId: string, auth: Principal, s: AdmissionSubject, reason: string): Promise<ApprovalRequest> {
  if (s.checkout) await assertCartAsRead(tx, orgId, s.checkout.cartId, s.lines);
  const user = auth.userId ? await tx.findOne(User, { id: auth.userId }) : null;
  const row = tx.create(ApprovalRequest, {
    organizationId: orgId,
    id: randomUUID(),
    status: 'Pending',
    subject: s.subject,
    customerId: s.customerId,
    customerNumber: s.customerNumber,
    cartId: s.checkout?.cartId ?? null,
    quoteId: s.quoteAccept?.quoteId ?? null,
    orderId: s.orderId ?? null,
    requesterUserId: auth.userId!,
    requesterEmail: user?.email ?? null,
    requesterName: user ? `${user.firstName} ${user.lastName}`.trim() : null,
    reason,
    currencyCode: s.currencyCode,
    total: s.total.toFixed(),
    lines: s.lines,
    checkout: (s.checkout ?? s.quoteAccept ?? { orderId: s.orderId }) as unknown as Record<string, unknown>,
    level: 1,
    chain: [],
    decidedBy: null,
    decisionReason: null,
    orderNumber: null,
    supersededBy: null,
    supersedes: null,
    repricedTotal: null,
    expiresAt: new Date(Date.now() + config.approvals.expiryMs),
  });
  await tx.flush();
  await emitEventOnce(tx, orgId, 'approval.requested', approvalEvent(row), `approval-${row.id}-requested`);
  return row;
}

/**
 * Takes the cart's row lock (cart edits take it too, src/services/carts/carts.ts) and checks that
 * the cart still has the lines the request is made of: an edit lands before the request (then
 * this 409s and the buyer checks out again) or after it (then the edit is refused as held).
 */
async function assertCartAsRead(tx: EntityManager, orgId: string, cartId: string, lines: readonly HeldLine[]): Promise<void> {
  const [row] = await boundRows<{ status: string }>(tx, 'select status from cart where organization_id = $1 and id = $2 for update', [orgId, cartId]);
  // Lines in a statement of their own: one that waited for the lock would read its older snapshot.
  const now = await boundRows<HeldLine>(tx, 'select sku, quantity, unit_price::text as "unitPrice" from cart_item where organization_id = $1 and cart_id = $2', [orgId, cartId]);
  if (row?.status !== 'PENDING' || !sameCartLines(now, lines)) throw AppError.conflict('The cart changed while it was being checked out; nothing was charged. Review the cart and check out again.');
}

/** Starts the request's workflow approvePurchase (`approval-<id>`). */
export async function startApproval(deps: AdmissionDeps, orgId: string, row: ApprovalRequest, s: AdmissionSubject): Promise<void> {
  const input: ApprovePurchaseInput = {
    organizationId: orgId,
    approvalId: row.id,
    customerNumber: s.customerNumber,
    ...(s.checkout ? { checkout: s.checkout } : {}),
    ...(s.quoteAccept ? { quoteAccept: s.quoteAccept } : {}),
    ...(s.orderId ? { orderId: s.orderId } : {}),
    escalationMs: deps.config.approvals.escalationMs,
    expiryMs: deps.config.approvals.expiryMs,
  };
  const what = s.subject === 'Cart' ? 'checkout' : s.subject === 'Quote' ? 'quote accept' : 'order';
  await startOnce(deps.temporal, deps.config, {
    workflowType: 'approvePurchase',
    workflowId: approvalWorkflowId(row.id),
    args: [input],
    keys: { organizationId: orgId, customerNumber: s.customerNumber },
    about: { what: `Approval of a ${what}`, amount: amountText(s.total.toFixed(2), s.currencyCode) },
  });
}
