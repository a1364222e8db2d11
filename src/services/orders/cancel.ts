/**
 * Order cancellation (issue 42 item 1; docs/returns.md "Cancellation"): POST
 * /api/orders/{orderId}/cancel, the whole order or unshipped lines and quantities, with a reason.
 *
 * One transaction under the order's row lock: the plan (src/domain/orders/cancellation.ts; shipped
 * units 409), the lines' cancelled quantities, the order Cancelled when nothing is left, the
 * cancellation row, the stock release (cancel-links.ts), the `order.cancelled` event and, when the
 * order has an issued invoice, a credit note for the cancelled amount (source Cancellation, keyed
 * by the cancellation). On account the note is applied to the customer's open invoices (oldest
 * first); for a card order it is reserved for the card refund, which the refundOrderCancellation
 * workflow (id and provider key `order-cancel-<cancellationId>`) makes once, then records.
 * The note never exceeds what the invoice can still absorb (refunded or credited already, e.g. by
 * a manual credit note): the cancellation completes with the note capped (capCredit), the rest is
 * the cancellation's `uncreditedAmount`, and a card order is refunded the capped amount only.
 * Concurrent requests serialize on the order lock: what one cancelled the next cannot cancel again.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { runWorkflow } from '../../adapters/temporal.js';
import { boundRows } from '../../db/orm-sql.js';
import type { Deps } from '../../deps.js';
import { planCancellation } from '../../domain/orders/cancellation.js';
import { UUID_RE } from '../../domain/ids.js';
import { capCredit } from '../../domain/credit-notes/rules.js';
import { fullyShipped } from '../../domain/fulfillment/rules.js';
import { formatMoney, moneyNumber } from '../../domain/money.js';
import { CreditNote, Invoice, InvoicePayment, Order, OrderCancellation, Organization } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { amountText } from '../../workflows/tags-defs.js';
import type { CancellationRefundInput } from '../../workflows/cancel-order-defs.js';
import { fulfillmentWorkflowId, shipmentsChangedSignal } from '../../workflows/fulfill-order-defs.js';
import { recordSalesCredits } from '../analytics/credits.js';
import { creditableInTransaction, issueInTransaction, notifyCreditNote } from '../credit-notes/credit-notes.js';
import { mayActFor } from '../customers/visibility.js';
import { emitEvent, emitEventOnce } from '../webhooks/events.js';
import { releaseCancelledStock, shippedQuantities } from './cancel-links.js';
import { orderScope } from './orders.js';

export interface CancelRequest {
  lines?: { sku: string; quantity: number }[] | null;
  reason: string;
}

export const cancellationRefundKey = (cancellationId: string) => `order-cancel-${cancellationId}`;

/** The money that goes back for a cancellation: its amount less what its invoice could not absorb. */
const moneyBack = (c: Pick<OrderCancellation, 'amount' | 'uncreditedAmount'>) => new Decimal(c.amount).minus(c.uncreditedAmount ?? 0);

export function cancellationView(c: OrderCancellation, orderStatus: string, note: Pick<CreditNote, 'creditNoteNumber' | 'amount'> | null = null) {
  const cur = c.currencyCode;
  return {
    cancellationId: c.id,
    orderId: c.orderId,
    orderNumber: c.orderNumber,
    orderStatus,
    wholeOrder: c.wholeOrder,
    reason: c.reason,
    currencyCode: cur,
    amount: moneyNumber(c.amount, cur),
    amountFormatted: formatMoney(c.amount, cur),
    lines: c.lines.map((l) => ({ sku: l.sku, productName: l.productName, quantity: l.quantity, price: moneyNumber(l.price, cur), amount: moneyNumber(l.amount, cur) })),
    refund: c.refundKey ? { status: c.refundStatus ?? 'Pending', amount: moneyNumber(moneyBack(c), cur), idempotencyKey: c.refundKey } : null,
    creditNoteId: c.creditNoteId ?? null,
    creditNoteNumber: note?.creditNoteNumber ?? null,
    creditNoteAmount: note ? moneyNumber(note.amount, cur) : null,
    uncreditedAmount: moneyNumber(c.uncreditedAmount ?? 0, cur),
    createdAt: c.createdAt.toISOString(),
  };
}

/**
 * Who may cancel: an admin, the customer's rep, and (when the organization lets buyers cancel,
 * `buyersMayCancel`) a buyer of the order's customer, whose order is visible to them only; a buyer
 * may cancel only before anything of the order shipped (checked in the transaction).
 */
async function assertMayCancel(em: EntityManager, orgId: string, auth: Principal, order: Pick<Order, 'customerNumber'>): Promise<'staff' | 'buyer'> {
  if (auth.isSuper || auth.role === 'Admin') return 'staff';
  if (auth.role === 'SalesRep' && (await mayActFor(em, orgId, auth, order.customerNumber))) return 'staff';
  if (auth.role === 'Customer') {
    const org = await em.fork().findOneOrFail(Organization, { id: orgId }, { fields: ['id', 'buyersMayCancel'] });
    if (org.buyersMayCancel) return 'buyer';
    throw AppError.forbidden("This organization does not let buyers cancel their orders; ask the seller (an admin or the customer's sales rep).");
  }
  throw AppError.forbidden("Only an admin or the customer's sales rep may cancel an order.");
}

export async function cancelOrder(em: EntityManager, deps: Deps, orgId: string, auth: Principal, orderId: string, body: CancelRequest) {
  if (!UUID_RE.test(orderId)) throw AppError.notFound('Order');
  const seen = await em.fork().findOne(Order, { $and: [{ organization: orgId, id: orderId }, await orderScope(em, orgId, auth)] }, { fields: ['id', 'customerNumber'] });
  if (!seen) throw AppError.notFound('Order');
  const who = await assertMayCancel(em, orgId, auth, seen);
  const done = await em.fork().transactional(async (tx) => {
    const order = await tx.findOneOrFail(Order, { organization: orgId, id: orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['items'] });
    if (order.orderStatus === 'Cancelled') throw AppError.conflict(`Order ${order.orderNumber} is already cancelled.`);
    if (order.orderStatus === 'PendingApproval') throw AppError.conflict(`Order ${order.orderNumber} is waiting for approval; reject its approval request instead.`);
    const shipped = await shippedQuantities(tx, orgId, orderId);
    if (who === 'buyer' && [...shipped.values()].some((q) => q > 0))
      throw AppError.conflict(`Part of order ${order.orderNumber} has shipped; a buyer may cancel only before anything ships. Ask the seller to cancel the rest.`);
    const earlier = await tx.find(OrderCancellation, { organizationId: orgId, orderId });
    const before = earlier.reduce((s, c) => s.plus(c.amount), new Decimal(0));
    const items = order.items.getItems().sort((a, b) => a.position - b.position);
    const check = planCancellation(
      items.map((i) => ({ id: i.id, sku: i.sku, productName: i.productName, quantity: i.quantity, cancelledQuantity: i.cancelledQuantity, shippedQuantity: shipped.get(i.id) ?? 0, price: i.price })),
      body.lines ?? null,
      order.total,
      before,
      order.currencyCode,
    );
    if (!check.ok) throw new AppError(check.status === 409 ? 'conflict' : 'validation', check.detail, check.errors);
    const plan = check.plan;
    // Set-based and keyed by organization (DESIGN "Scale-out"), not the ORM's update by primary key.
    await boundRows(
      tx,
      `update order_item i set cancelled_quantity = i.cancelled_quantity + x.q
         from unnest($3::uuid[], $4::int[]) as x(id, q) where i.organization_id = $1 and i.order_id = $2 and i.id = x.id`,
      [orgId, orderId, plan.lines.map((l) => l.orderItemId), plan.lines.map((l) => l.quantity)],
    );
    if (plan.wholeOrder) order.orderStatus = 'Cancelled';
    // Cancelling the last units still to ship after a shipment leaves the order shipped in full: it
    // is Shipped, as its last shipment would have made it (order.shipped once; the fulfillment
    // process is woken below and waits for the deliveries from here).
    const cancelledNow = new Map(plan.lines.map((l) => [l.orderItemId, l.quantity]));
    const rest = items.map((i) => ({ sku: i.sku, quantity: i.quantity - i.cancelledQuantity - (cancelledNow.get(i.id) ?? 0), shippedQuantity: shipped.get(i.id) ?? 0 }));
    const shippedOut = !plan.wholeOrder && order.orderStatus === 'Processing' && rest.some((l) => l.shippedQuantity > 0) && fullyShipped(rest);
    if (shippedOut) {
      order.orderStatus = 'Shipped';
      await emitEventOnce(tx, orgId, 'order.shipped', { orderId, orderNumber: order.orderNumber, orderStatus: 'Shipped' }, `order-${orderId}-shipped`);
    }
    const card = !!order.paymentChargeId && order.paymentMethod !== 'OnAccount';
    const c = tx.create(OrderCancellation, {
      organizationId: orgId,
      orderId,
      orderNumber: order.orderNumber,
      customerId: order.customerId ?? null,
      customerNumber: order.customerNumber,
      currencyCode: order.currencyCode,
      lines: plan.lines,
      amount: plan.amount.toFixed(),
      merchandiseAmount: plan.merchandise.toFixed(),
      wholeOrder: plan.wholeOrder,
      reason: body.reason,
      refundKey: null,
      refundStatus: null,
      chargeId: card ? order.paymentChargeId : null,
      creditNoteId: null,
      cancelledBy: auth.userId ?? null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    await tx.flush();
    // A partial cancellation leaves the order in the figures and takes its lines back in this month;
    // a whole one takes the order out (status Cancelled, docs/analytics.md "Credits").
    if (!plan.wholeOrder)
      await recordSalesCredits(tx, orgId, orderId, 'cancellation', c.id, plan.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, amount: l.amount })));
    await releaseCancelledStock(tx, orgId, orderId, plan.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })));
    // The order's issued invoice gets a credit note for the cancelled amount (applied on account;
    // reserved for the card refund), capped at what the invoice can still absorb. An order invoiced
    // per shipment has invoiced only what shipped, which is never cancelled: no note.
    const inv = order.invoicePerShipment
      ? null
      : await tx.findOne(Invoice, { organization: orgId, orderId, active: true, status: { $in: ['Issued', 'PartiallyPaid', 'Paid'] } }, { orderBy: { createdAt: 'asc' } });
    const cap = inv ? capCredit(plan.amount, await creditableInTransaction(tx, orgId, inv), order.currencyCode) : { credit: plan.amount, uncredited: new Decimal(0) };
    c.uncreditedAmount = cap.uncredited.toFixed();
    if (card && cap.credit.gt(0)) {
      c.refundKey = cancellationRefundKey(c.id);
      c.refundStatus = 'Pending';
    }
    let note: Awaited<ReturnType<typeof issueInTransaction>> | null = null;
    if (inv && cap.credit.gt(0)) {
      const capped = cap.uncredited.gt(0);
      note = await issueInTransaction(
        tx,
        orgId,
        inv,
        { invoiceId: inv.id, amount: cap.credit.toFixed(), reason: `Order ${order.orderNumber} cancelled: ${body.reason}`, apply: 'OldestFirst' },
        { source: 'Cancellation', sourceId: c.id, issuedBy: auth.userId ?? null, refundToCard: !!c.refundKey },
      );
      // A capped note credits an amount, not the lines (their total is more than it).
      note.cn.lines = plan.wholeOrder || capped ? null : plan.lines.map((l) => ({ sku: l.sku, productName: l.productName, quantity: l.quantity, price: l.price, amount: l.amount }));
      note.cn.merchandiseAmount = Decimal.min(plan.merchandise, cap.credit).toFixed();
      c.creditNoteId = note.cn.id;
    }
    emitEvent(tx, orgId, 'order.cancelled', {
      orderId,
      orderNumber: order.orderNumber,
      customerNumber: order.customerNumber,
      cancellationId: c.id,
      wholeOrder: plan.wholeOrder,
      orderStatus: order.orderStatus,
      reason: body.reason,
      currencyCode: order.currencyCode,
      amount: plan.amount.toFixed(),
      lines: plan.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, price: l.price, amount: l.amount })),
      creditNoteId: c.creditNoteId ?? null,
      creditNoteAmount: note ? note.cn.amount : null,
      uncreditedAmount: cap.uncredited.toFixed(),
      refund: c.refundKey ? { idempotencyKey: c.refundKey, amount: cap.credit.toFixed() } : null,
    });
    await tx.flush();
    return { c, note, status: order.orderStatus, shippedOut };
  });
  if (done.shippedOut)
    await deps.temporal.workflow
      .getHandle(fulfillmentWorkflowId(orderId))
      .signal(shipmentsChangedSignal)
      // Temporal away or the process closed: the order is stored Shipped; the process reads it on its next wake-up.
      .catch(() => undefined);
  if (done.note) await notifyCreditNote(em, deps, done.note);
  if (done.c.refundKey) await refundCancellation(deps, done.c);
  const fresh = await em.fork().findOneOrFail(OrderCancellation, { organizationId: orgId, id: done.c.id });
  return cancellationView(fresh, done.status, done.note?.cn ?? null);
}

/** Runs (or joins) the cancellation's refund workflow and waits for it. */
async function refundCancellation(deps: Deps, c: OrderCancellation): Promise<void> {
  const input: CancellationRefundInput = { organizationId: c.organizationId, cancellationId: c.id, chargeId: c.chargeId!, amount: moneyBack(c).toFixed(), refundKey: c.refundKey! };
  await runWorkflow(deps.temporal, deps.config, {
    workflowType: 'refundOrderCancellation',
    workflowId: c.refundKey!,
    args: [input],
    keys: { organizationId: c.organizationId, customerNumber: c.customerNumber, orderNumber: c.orderNumber },
    about: { what: `Card refund for cancelled order ${c.orderNumber}`, amount: amountText(input.amount, c.currencyCode) },
    waitMs: deps.config.checkoutWaitMs,
    what: 'The cancellation refund',
  });
}

/**
 * The refund workflow's recording step (idempotent): the cancellation and its credit note are
 * Refunded, and the card payment on the order's invoice carries the refunded amount (so a later
 * invoice refund cannot return the same money twice).
 */
export async function recordCancellationRefund(em: EntityManager, input: CancellationRefundInput): Promise<{ status: string }> {
  return em.fork().transactional(async (tx) => {
    const c = await tx.findOne(OrderCancellation, { organizationId: input.organizationId, id: input.cancellationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!c) throw AppError.notFound('Cancellation');
    if (c.refundStatus === 'Refunded') return { status: 'Refunded' };
    c.refundStatus = 'Refunded';
    if (c.creditNoteId) {
      const cn = await tx.findOne(CreditNote, { organizationId: input.organizationId, id: c.creditNoteId });
      if (cn) cn.refundStatus = 'Refunded';
    }
    const payment = await tx.findOne(InvoicePayment, { organizationId: input.organizationId, providerChargeId: input.chargeId, status: 'Completed' });
    if (payment) payment.refundedAmount = Decimal.min(payment.amount, new Decimal(payment.refundedAmount).plus(input.amount)).toFixed();
    await tx.flush();
    return { status: 'Refunded' };
  });
}
