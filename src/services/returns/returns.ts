/**
 * Returns (RMA; issue 42 item 2; docs/returns.md "Returns"): a buyer or staff request a return of
 * shipped units of one order (reason per line), staff approve or reject it, receive the goods
 * (per line: restock to a location, a stock-ledger receipt, or scrap), and the return pays back by
 * card refund or credit note, then closes.
 *
 * - The `order_return` row is the return's state; every endpoint writes it in one transaction
 *   (the row, or for a request the order, locked), with its webhook event, then tells the
 *   returnOrder workflow (id `return-<id>`) through the `returnChanged` update, which holds the
 *   timers (staff reminder, expiry) and the money step (./steps.ts).
 * - Numbers `RMA-000001` are gapless per organization (src/services/numbering.ts RETURN_NUMBERS).
 * - On receipt the order's issued invoice gets a credit note for the amount (source Return, keyed
 *   by the return: issued once): applied oldest first on account (`credit`), or reserved for the
 *   card refund (`card`, like a cancellation's).
 */
import { LockMode, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { startOnce, updateAppError } from '../../adapters/temporal.js';
import { boundRows, boundSql } from '../../db/orm-sql.js';
import type { Deps } from '../../deps.js';
import { UUID_RE } from '../../domain/ids.js';
import { moneyNumber } from '../../domain/money.js';
import type { ReturnOut } from '../../domain/returns/resources.js';
import { creditsForReturn } from '../../domain/returns/invoices.js';
import { planReturn, refundMethodOf, VOID_RETURN_STATUSES, withinReturnWindow } from '../../domain/returns/rules.js';
import { Invoice, Order, OrderReturn, Organization } from '../../entities/index.js';
import type { ReturnStep } from '../../entities/Return.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { log } from '../../logger.js';
import { amountText } from '../../workflows/tags-defs.js';
import { returnChangedUpdate, returnRefundKey, returnWorkflowId, type ReturnOrderInput } from '../../workflows/return-order-defs.js';
import { recordSalesCredits } from '../analytics/credits.js';
import { creditableInvoicesOfOrder, issueInTransaction, notifyCreditNote } from '../credit-notes/credit-notes.js';
import { byVisibleCustomer, customerNumberFiltersById, mayActFor } from '../customers/visibility.js';
import { shippedQuantities } from '../orders/cancel-links.js';
import { RETURN_NUMBERS, allocateNumber } from '../numbering.js';
import { applyMovements, type Movement } from '../stock/ledger.js';
import { emitEvent } from '../webhooks/events.js';

export type RefundMethod = 'card' | 'credit';

export interface ReturnRequest {
  orderId: string;
  lines: { sku: string; quantity: number; reason: string }[];
}

export interface DecisionRequest {
  message?: string | null;
  refundMethod?: RefundMethod | null;
}

export interface ReceiveRequest {
  lines: { sku: string; disposition: 'restock' | 'scrap'; locationId?: string | null }[];
  refundMethod?: RefundMethod | null;
}

const isStaff = (auth: Principal) => auth.isSuper || auth.role === 'Admin' || auth.role === 'SalesRep';

export function returnView(r: OrderReturn): ReturnOut {
  const c = r.currencyCode;
  return {
    returnId: r.id,
    rmaNumber: r.rmaNumber,
    status: r.status,
    orderId: r.orderId,
    orderNumber: r.orderNumber,
    customerNumber: r.customerNumber,
    currencyCode: c,
    amount: moneyNumber(r.amount, c),
    lines: r.lines.map((l) => ({
      sku: l.sku,
      productName: l.productName,
      quantity: l.quantity,
      price: moneyNumber(l.price, c),
      amount: moneyNumber(l.amount, c),
      reason: l.reason,
      disposition: l.disposition,
      locationId: l.locationId,
    })),
    refundMethod: r.refundMethod ?? null,
    refund: r.refundKey ? { amount: moneyNumber(r.amount, c), idempotencyKey: r.refundKey } : null,
    creditNoteId: r.creditNoteId ?? null,
    message: r.message ?? null,
    steps: r.steps.map((s) => ({ status: s.status, at: s.at, by: s.by, note: s.note ?? null })),
    reminderSentAt: r.reminderSentAt ? new Date(r.reminderSentAt).toISOString() : null,
    createdAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
  };
}

export const step = (status: ReturnStep['status'], by: string | null, note?: string | null): ReturnStep => ({ status, at: new Date().toISOString(), by, ...(note ? { note } : {}) });

/** The return with this id if the principal may see it (its customer's): else 404. */
export async function findReturn(em: EntityManager, orgId: string, auth: Principal, id: string): Promise<OrderReturn> {
  if (!UUID_RE.test(id)) throw AppError.notFound('Return');
  const scope = (await byVisibleCustomer(em, orgId, auth)) as FilterQuery<OrderReturn>;
  const r = await em.findOne(OrderReturn, { $and: [{ organizationId: orgId, id }, scope] });
  if (!r) throw AppError.notFound('Return');
  return r;
}

/** Staff who may decide on the return: Admin, the customer's SalesRep (a Customer user: 403). */
async function assertStaff(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<void> {
  if (auth.isSuper || auth.role === 'Admin') return;
  if (auth.role === 'SalesRep' && (await mayActFor(em, orgId, auth, customerNumber))) return;
  throw AppError.forbidden('Only an admin or the customer\'s sales rep may decide on a return.');
}

/** After a state change: the workflow re-reads the return (waits at most `waitMs` for it to act; a workflow that has ended or is not there yet is left alone). */
async function nudge(deps: Deps, returnId: string, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      deps.temporal.workflow.getHandle(returnWorkflowId(returnId)).executeUpdate(returnChangedUpdate, { args: [] }),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
  } catch (e) {
    const refused = updateAppError(e);
    if (refused) throw refused;
    log.warn('could not tell the return workflow', { returnId, error: String(e) });
  } finally {
    clearTimeout(timer);
  }
}

async function returnSettingsOf(em: EntityManager, orgId: string): Promise<{ returnWindowDays: number; returnRefundPolicy: RefundMethod }> {
  const org = await em.findOneOrFail(Organization, { id: orgId }, { fields: ['id', 'returnWindowDays', 'returnRefundPolicy'] });
  return { returnWindowDays: org.returnWindowDays, returnRefundPolicy: org.returnRefundPolicy };
}

export async function readReturnSettings(em: EntityManager, orgId: string) {
  return returnSettingsOf(em.fork(), orgId);
}

/** PUT /api/organizations/return-settings (Admin): the return window and the refund policy. */
export async function setReturnSettings(em: EntityManager, orgId: string, body: { returnWindowDays?: number | null; returnRefundPolicy?: RefundMethod | null }) {
  const f = em.fork();
  const org = await f.findOneOrFail(Organization, { id: orgId });
  if (body.returnWindowDays !== undefined && body.returnWindowDays !== null) org.returnWindowDays = body.returnWindowDays;
  if (body.returnRefundPolicy) org.returnRefundPolicy = body.returnRefundPolicy;
  await f.flush();
  return { returnWindowDays: org.returnWindowDays, returnRefundPolicy: org.returnRefundPolicy };
}

/**
 * POST /api/returns: a buyer of the order's customer, or staff (Admin, the customer's rep). Lines
 * from the shipped units not returned yet; a buyer only within the return window (days after the
 * order's last shipment), staff any time. Starts the returnOrder workflow.
 */
export async function requestReturn(em: EntityManager, deps: Deps, orgId: string, auth: Principal, body: ReturnRequest): Promise<ReturnOut> {
  if (!UUID_RE.test(body.orderId)) throw new AppError('not_found', 'No order you may see has this id.', { orderId: ['No order you may see has this id.'] });
  const seen = await em.fork().findOne(Order, { $and: [{ organization: orgId, id: body.orderId }, await byVisibleCustomer(em, orgId, auth)] }, { fields: ['id', 'customerNumber'] });
  if (!seen) throw new AppError('not_found', 'No order you may see has this id.', { orderId: ['No order you may see has this id.'] });
  const settings = await returnSettingsOf(em.fork(), orgId);
  const ret = await em.fork().transactional(async (tx) => {
    const order = await tx.findOneOrFail(Order, { organization: orgId, id: body.orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['items'] });
    const [last] = await boundRows<{ at: Date | null }>(tx, 'select max(shipped_at) as at from shipment where organization_id = $1 and order_id = $2', [orgId, order.id]);
    if (!last?.at) throw AppError.conflict(`Nothing of order ${order.orderNumber} has shipped; cancel it instead.`);
    if (!isStaff(auth) && !withinReturnWindow(new Date(last.at), settings.returnWindowDays, new Date())) {
      const end = new Date(new Date(last.at).getTime() + settings.returnWindowDays * 86_400_000).toISOString();
      throw AppError.forbidden(`The return window of order ${order.orderNumber} ended at ${end} (${settings.returnWindowDays} days after its last shipment); ask your sales rep or the seller.`);
    }
    const shipped = await shippedQuantities(tx, orgId, order.id);
    const returned = new Map<string, number>();
    for (const r of await tx.find(OrderReturn, { organizationId: orgId, orderId: order.id, status: { $nin: [...VOID_RETURN_STATUSES] } }))
      for (const l of r.lines) returned.set(l.orderItemId, (returned.get(l.orderItemId) ?? 0) + l.quantity);
    const items = order.items.getItems().sort((a, b) => a.position - b.position);
    const check = planReturn(
      items.map((i) => ({ id: i.id, sku: i.sku, productName: i.productName, shippedQuantity: shipped.get(i.id) ?? 0, returnedQuantity: returned.get(i.id) ?? 0, price: i.price })),
      body.lines,
      order.currencyCode,
    );
    if (!check.ok) throw new AppError(check.status === 409 ? 'conflict' : 'validation', check.detail, check.errors);
    const number = await allocateNumber(boundSql(tx), RETURN_NUMBERS, orgId);
    const r = tx.create(OrderReturn, {
      organizationId: orgId,
      rmaNumber: number,
      orderId: order.id,
      orderNumber: order.orderNumber,
      customerId: order.customerId ?? null,
      customerNumber: order.customerNumber,
      currencyCode: order.currencyCode,
      status: 'Requested',
      lines: check.lines.map((l) => ({ ...l, disposition: null, locationId: null })),
      amount: check.amount.toFixed(),
      refundMethod: null,
      refundKey: null,
      chargeId: null,
      creditNoteId: null,
      message: null,
      steps: [step('Requested', auth.userId ?? null)],
      requestedBy: auth.userId ?? null,
      reminderSentAt: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    emitEvent(tx, orgId, 'return.requested', {
      returnId: r.id,
      rmaNumber: number,
      orderId: order.id,
      orderNumber: order.orderNumber,
      customerNumber: order.customerNumber,
      currencyCode: order.currencyCode,
      amount: check.amount.toFixed(),
      lines: check.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, reason: l.reason, amount: l.amount })),
    });
    await tx.flush();
    return r;
  });
  const input: ReturnOrderInput = {
    organizationId: orgId,
    returnId: ret.id,
    rmaNumber: ret.rmaNumber,
    orderNumber: ret.orderNumber,
    customerNumber: ret.customerNumber,
    reminderAfterMs: deps.config.returns.reminderAfterMs,
    expiryMs: deps.config.returns.expiryMs,
  };
  await startOnce(deps.temporal, deps.config, {
    workflowType: 'returnOrder',
    workflowId: returnWorkflowId(ret.id),
    args: [input],
    keys: { organizationId: orgId, customerNumber: ret.customerNumber, orderNumber: ret.orderNumber, businessKeys: [ret.rmaNumber] },
    about: { what: `Return ${ret.rmaNumber} of order ${ret.orderNumber}`, amount: amountText(new Decimal(ret.amount).toFixed(), ret.currencyCode) },
  });
  return returnView(ret);
}

/** Locks the return (visible to `auth`, staff of its customer) and answers it for a decision. */
async function lockForDecision(tx: EntityManager, orgId: string, id: string): Promise<OrderReturn> {
  return tx.findOneOrFail(OrderReturn, { organizationId: orgId, id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** POST /api/returns/{id}/approve (Admin, the customer's rep): Requested -> Approved, with an optional message and refund method. */
export async function approveReturn(em: EntityManager, deps: Deps, orgId: string, auth: Principal, id: string, body: DecisionRequest): Promise<ReturnOut> {
  const seen = await findReturn(em.fork(), orgId, auth, id);
  await assertStaff(em, orgId, auth, seen.customerNumber);
  await em.fork().transactional(async (tx) => {
    const r = await lockForDecision(tx, orgId, id);
    if (r.status !== 'Requested') throw AppError.conflict(`Return ${r.rmaNumber} is ${r.status}; only a Requested return can be approved.`);
    r.status = 'Approved';
    r.message = body.message ?? null;
    if (body.refundMethod) r.refundMethod = body.refundMethod;
    r.steps = [...r.steps, step('Approved', auth.userId ?? null, body.message ?? null)];
    emitEvent(tx, orgId, 'return.approved', { returnId: r.id, rmaNumber: r.rmaNumber, orderId: r.orderId, orderNumber: r.orderNumber, customerNumber: r.customerNumber, message: r.message, refundMethod: r.refundMethod ?? null });
    await tx.flush();
  });
  await nudge(deps, id, deps.config.checkoutWaitMs);
  return returnView(await findReturn(em.fork(), orgId, auth, id));
}

/** POST /api/returns/{id}/reject (Admin, the customer's rep): Requested -> Rejected with a message; the units count as not returned. */
export async function rejectReturn(em: EntityManager, deps: Deps, orgId: string, auth: Principal, id: string, body: { message: string }): Promise<ReturnOut> {
  const seen = await findReturn(em.fork(), orgId, auth, id);
  await assertStaff(em, orgId, auth, seen.customerNumber);
  await em.fork().transactional(async (tx) => {
    const r = await lockForDecision(tx, orgId, id);
    if (r.status !== 'Requested') throw AppError.conflict(`Return ${r.rmaNumber} is ${r.status}; only a Requested return can be rejected.`);
    r.status = 'Rejected';
    r.message = body.message;
    r.steps = [...r.steps, step('Rejected', auth.userId ?? null, body.message)];
    emitEvent(tx, orgId, 'return.rejected', { returnId: r.id, rmaNumber: r.rmaNumber, orderId: r.orderId, orderNumber: r.orderNumber, customerNumber: r.customerNumber, message: body.message });
    await tx.flush();
  });
  await nudge(deps, id, deps.config.checkoutWaitMs);
  return returnView(await findReturn(em.fork(), orgId, auth, id));
}

/**
 * POST /api/returns/{id}/receive (Admin, the customer's rep): Approved -> Received. Every line of
 * the return gets a disposition: restock (a ledger receipt at `locationId`, the default location
 * when omitted, for a tracked product) or scrap. The refund method (staff's choice now, at approval,
 * or the organization's policy) decides the money step: a credit note applied on account, or a
 * card refund (the note reserved for it). Waits for the workflow's money step (at most
 * CHECKOUT_WAIT_MS) and answers the return as it then is.
 */
export async function receiveReturn(em: EntityManager, deps: Deps, orgId: string, auth: Principal, id: string, body: ReceiveRequest): Promise<ReturnOut> {
  const seen = await findReturn(em.fork(), orgId, auth, id);
  await assertStaff(em, orgId, auth, seen.customerNumber);
  const settings = await returnSettingsOf(em.fork(), orgId);
  const note = await em.fork().transactional(async (tx) => {
    const r = await lockForDecision(tx, orgId, id);
    if (r.status !== 'Approved') throw AppError.conflict(`Return ${r.rmaNumber} is ${r.status}; only an Approved return can be received.`);
    const errors: Record<string, string[]> = {};
    const bySku = new Map<string, number>();
    body.lines.forEach((l, i) => {
      const line = r.lines.find((x) => x.sku.toLowerCase() === l.sku.toLowerCase());
      if (!line) errors[`lines[${i}].sku`] = [`Return ${r.rmaNumber} has no line with sku ${l.sku}.`];
      else if (bySku.has(line.sku)) errors[`lines[${i}].sku`] = [`${l.sku} is named twice.`];
      else bySku.set(line.sku, i);
    });
    const missing = r.lines.filter((l) => !bySku.has(l.sku)).map((l) => l.sku);
    if (missing.length && !Object.keys(errors).length) errors.lines = [`Give a disposition for every line of the return; missing: ${missing.join(', ')}.`];
    // Restocked lines: the products (tracked ones move stock) and the locations.
    const restock = body.lines.filter((l) => l.disposition === 'restock');
    const products = new Map(
      (await boundRows<{ id: string; sku: string; tracked: boolean }>(tx, 'select id, sku, track_inventory as tracked from product where organization_id = $1 and sku = any($2::text[])', [
        orgId,
        restock.map((l) => r.lines.find((x) => x.sku.toLowerCase() === l.sku.toLowerCase())?.sku ?? l.sku),
      ])).map((p) => [p.sku, p]),
    );
    const locations = await boundRows<{ id: string; is_default: boolean }>(tx, 'select id, is_default from stock_location where organization_id = $1 and active', [orgId]);
    const fallback = locations.find((l) => l.is_default)?.id ?? null;
    const moves: Movement[] = [];
    const dispositions = new Map<string, { disposition: 'restock' | 'scrap'; locationId: string | null }>();
    body.lines.forEach((l, i) => {
      const line = r.lines.find((x) => x.sku.toLowerCase() === l.sku.toLowerCase());
      if (!line) return;
      if (l.disposition === 'scrap') {
        if (l.locationId) errors[`lines[${i}].locationId`] = ['A scrapped line has no location.'];
        dispositions.set(line.sku, { disposition: 'scrap', locationId: null });
        return;
      }
      if (l.locationId && !locations.some((x) => x.id === l.locationId)) {
        errors[`lines[${i}].locationId`] = ['No active stock location of the organization has this id.'];
        return;
      }
      const product = products.get(line.sku);
      const locationId = l.locationId ?? (product?.tracked ? fallback : null);
      if (product?.tracked && !locationId) {
        errors[`lines[${i}].locationId`] = [`${line.sku} is tracked: name the location to restock it to (the organization has no default location).`];
        return;
      }
      dispositions.set(line.sku, { disposition: 'restock', locationId });
      if (product?.tracked && locationId)
        moves.push({ productId: product.id, locationId, kind: 'receipt', quantity: line.quantity, reason: `Return ${r.rmaNumber}`, reference: r.rmaNumber, orderId: r.orderId, createdBy: auth.userId ?? null });
    });
    if (Object.keys(errors).length) throw AppError.validation(errors);
    const order = await tx.findOneOrFail(Order, { organization: orgId, id: r.orderId }, { fields: ['id', 'orderNumber', 'paymentChargeId', 'paymentMethod', 'invoicePerShipment'] });
    const charge = order.paymentChargeId && order.paymentMethod !== 'OnAccount' ? order.paymentChargeId : null;
    const method = refundMethodOf(settings.returnRefundPolicy, body.refundMethod ?? r.refundMethod, !!charge);
    // Which invoices the returned units are credited on: the order's invoice, or, for an order
    // invoiced per shipment, the shipment invoices that carried them (latest first, within what
    // each can still be credited; src/domain/returns/invoices.ts).
    const credits = order.invoicePerShipment && new Decimal(r.amount).gt(0) ? await perShipmentCredits(tx, orgId, r) : null;
    const inv = credits
      ? (credits[0]?.invoice ?? null)
      : await tx.findOne(Invoice, { organization: orgId, orderId: r.orderId, active: true, status: { $in: ['Issued', 'PartiallyPaid', 'Paid'] } }, { orderBy: { createdAt: 'asc' } });
    if (method === 'credit' && !inv) throw AppError.conflict(`Order ${r.orderNumber} has no issued invoice to credit; issue it first or refund to the card.`);
    await applyMovements(boundSql(tx), orgId, moves);
    r.lines = r.lines.map((l) => ({ ...l, ...(dispositions.get(l.sku) ?? { disposition: 'scrap' as const, locationId: null }) }));
    r.status = 'Received';
    r.refundMethod = method;
    if (method === 'card') {
      r.refundKey = returnRefundKey(r.id);
      r.chargeId = charge;
    }
    type Issued = Awaited<ReturnType<typeof issueInTransaction>>;
    let issued: Issued | null = null;
    const more: Issued[] = [];
    if (credits) {
      // One note per invoice credited, keyed by the return (the first) and `<returnId>:<n>`.
      for (const [n, c] of credits.entries()) {
        const note = await issueInTransaction(
          tx,
          orgId,
          c.invoice,
          { invoiceId: c.invoice.id, lines: c.lines, reason: `Return ${r.rmaNumber} of order ${r.orderNumber}`, apply: 'OldestFirst' },
          { source: 'Return', sourceId: n === 0 ? r.id : `${r.id}:${n + 1}`, issuedBy: auth.userId ?? null, refundToCard: method === 'card', creditedFirst: true },
        );
        if (n === 0) issued = note;
        else more.push(note);
      }
      if (issued) r.creditNoteId = issued.cn.id;
    } else if (inv && new Decimal(r.amount).gt(0)) {
      issued = await issueInTransaction(
        tx,
        orgId,
        inv,
        { invoiceId: inv.id, lines: r.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })), reason: `Return ${r.rmaNumber} of order ${r.orderNumber}`, apply: 'OldestFirst' },
        { source: 'Return', sourceId: r.id, issuedBy: auth.userId ?? null, refundToCard: method === 'card' },
      );
      r.creditNoteId = issued.cn.id;
    }
    // Analytics take the returned merchandise out in the month of the receipt (docs/analytics.md "Credits").
    await recordSalesCredits(tx, orgId, r.orderId, 'return', r.id, r.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, amount: new Decimal(l.amount).toFixed() })));
    r.steps = [...r.steps, step('Received', auth.userId ?? null, `${method === 'card' ? 'refund to card' : 'credit on account'}; ${r.lines.map((l) => `${l.sku} ×${l.quantity} ${l.disposition}`).join(', ')}`)];
    emitEvent(tx, orgId, 'return.received', {
      returnId: r.id,
      rmaNumber: r.rmaNumber,
      orderId: r.orderId,
      orderNumber: r.orderNumber,
      customerNumber: r.customerNumber,
      refundMethod: method,
      amount: new Decimal(r.amount).toFixed(),
      lines: r.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, disposition: l.disposition, locationId: l.locationId })),
      creditNoteId: r.creditNoteId ?? null,
    });
    await tx.flush();
    return issued ? [issued, ...more] : [];
  });
  for (const n of note) await notifyCreditNote(em, deps, n);
  await nudge(deps, id, deps.config.checkoutWaitMs);
  return returnView(await findReturn(em.fork(), orgId, auth, id));
}

/**
 * The credits of a return on an order invoiced per shipment: per invoice (latest first) the
 * returned lines it takes; a unit no invoice can take any more (credited or refunded already) is
 * a 400 naming `lines`, nothing received.
 */
async function perShipmentCredits(tx: EntityManager, orgId: string, r: OrderReturn) {
  const invoices = await creditableInvoicesOfOrder(tx, orgId, r.orderId);
  if (!invoices.length) return [];
  const plan = creditsForReturn(
    r.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })),
    invoices,
    r.currencyCode,
  );
  if (plan.unplaced.length)
    throw AppError.validation({
      lines: [
        `The invoices of order ${r.orderNumber} can no longer be credited for ${plan.unplaced.map((l) => `${l.quantity} × ${l.sku}`).join(', ')} (credited or refunded already); credit what is left with an amount-only credit note.`,
      ],
    });
  return plan.credits.map((c) => ({ invoice: invoices.find((i) => i.invoiceId === c.invoiceId)!.invoice, lines: c.lines }));
}

export async function readReturn(em: EntityManager, orgId: string, auth: Principal, id: string): Promise<ReturnOut> {
  return returnView(await findReturn(em.fork(), orgId, auth, id));
}

export const returnListSpec: ListSpec = {
  filters: {
    rmaNumber: { prop: 'rmaNumber', type: 'string' },
    customerNumber: { prop: 'customerNumber', type: 'string' },
    orderNumber: { prop: 'orderNumber', type: 'string' },
    status: { prop: 'status', type: 'string' },
    currencyCode: { prop: 'currencyCode', type: 'string' },
    createdAt: { prop: 'createdAt', type: 'date' },
  },
  sorts: { CreatedAt: 'createdAt', RmaNumber: 'rmaNumber', Amount: 'amount', CustomerNumber: 'customerNumber' },
  defaultSort: 'CreatedAt',
  comparisons: true,
};

/** GET /api/returns: the returns of the customers the principal may see (generic envelope); `filters` and the shortcuts orderId, customerNumber, status. */
export async function listReturns(em: EntityManager, orgId: string, auth: Principal, query: Record<string, unknown>) {
  const q = parseList(query, returnListSpec);
  const shortcuts: FilterQuery<OrderReturn>[] = [];
  if (query.orderId !== undefined && query.orderId !== '') {
    if (typeof query.orderId !== 'string' || !UUID_RE.test(query.orderId)) throw AppError.validation({ orderId: ['orderId must be a valid id (UUID).'] }, 'Invalid query parameters.');
    shortcuts.push({ orderId: query.orderId });
  }
  if (typeof query.status === 'string' && query.status) shortcuts.push({ status: query.status as OrderReturn['status'] });
  const byNumber = typeof query.customerNumber === 'string' && query.customerNumber ? { $and: [...((q.where.$and as unknown[]) ?? []), { customerNumber: query.customerNumber }] } : q.where;
  const where = await customerNumberFiltersById(em, orgId, byNumber);
  const [rows, total] = await em.fork().findAndCount(
    OrderReturn,
    { $and: [{ organizationId: orgId }, (await byVisibleCustomer(em, orgId, auth)) as FilterQuery<OrderReturn>, where as FilterQuery<OrderReturn>, ...shortcuts] },
    { orderBy: [q.orderBy, { rmaNumber: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(returnView), total, q);
}
