/**
 * Credit notes (issue 42 item 3; docs/returns.md "Credit notes"): issue one for an invoice (lines or
 * an amount, a reason, never above what is still creditable), apply it to the customer's open
 * invoices (oldest due first, or as staff choose) or keep it as
 * available credit, apply available credit later, list and read them.
 *
 * - Each application is a payment with method `CreditNote` on the invoice (record-payment.ts
 *   `applyPayment`, under the invoice's row lock), so the invoice moves to PartiallyPaid or Paid
 *   and its triggers write `invoice.paid`; the dunning process of every affected invoice is
 *   signalled after the commit, so a credited-to-zero invoice ends its reminders (and a credit
 *   hold it placed).
 * - Unapplied credit lowers the customer's open balance (src/services/credit/accounts.ts) and is
 *   listed on the statement of account.
 * - One transaction per issue / apply: the credited invoice and the customer's open invoices are
 *   locked in id order, then (apply) the credit note, so concurrent credits of one invoice never
 *   exceed it, concurrent applications of one note never exceed it, and none deadlock.
 * - Events `credit_note.issued` and `credit_note.applied` commit with the change.
 */
import { LockMode, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import type { Storage } from '../../adapters/storage.js';
import type { Client } from '../../adapters/temporal.js';
import { boundSql } from '../../db/orm-sql.js';
import { allocateChosen, allocateCreditedFirst, allocateOldestFirst, creditableAmount, priceLines, type Allocation, type LineRequest, type OpenInvoice } from '../../domain/credit-notes/rules.js';
import type { CreditableInvoice } from '../../domain/returns/invoices.js';
import { CREDIT_NOTE_SOURCES, type CreditNoteOut, type CreditNoteStatus } from '../../domain/credit-notes/resources.js';
import { UUID_RE } from '../../domain/ids.js';
import { balanceOf } from '../../domain/invoices/money.js';
import { formatMoney, moneyNumber, roundMoney } from '../../domain/money.js';
import { CreditNote, Invoice } from '../../entities/index.js';
import type { CreditNoteApplication } from '../../entities/CreditNote.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { byVisibleCustomer, customerNumberFiltersById, mayActFor } from '../customers/visibility.js';
import { recordSalesCredits } from '../analytics/credits.js';
import { applyPayment } from '../invoices/record-payment.js';
import { signalDunning } from '../invoices/signal.js';
import { CREDIT_NOTE_NUMBERS, allocateNumber } from '../numbering.js';
import { emitEvent } from '../webhooks/events.js';
import { storeCreditNotePdf } from './pdf.js';
import { log } from '../../logger.js';

export type ApplyMode = 'OldestFirst' | 'Chosen' | 'None';

export interface ApplyRequest {
  /** OldestFirst (default): the customer's open invoices, oldest due first; Chosen: `applyTo`; None: keep as available credit. */
  apply?: ApplyMode;
  applyTo?: { invoiceId: string; amount: number | string }[] | null;
}

export interface IssueRequest extends ApplyRequest {
  invoiceId: string;
  amount?: number | string | null;
  lines?: LineRequest[] | null;
  reason: string;
}

/** What the issuing use case needs besides the request: who issues and, for automatic issuers, the source key (exactly once per key). */
export interface IssueContext {
  source?: (typeof CREDIT_NOTE_SOURCES)[number];
  sourceId?: string | null;
  issuedBy?: string | null;
  /** Apply to the credited invoice first, then the customer's other open invoices oldest first (a return's notes). */
  creditedFirst?: boolean;
}

export interface CreditNoteDeps {
  temporal: Client;
  storage: Storage;
}

const OPEN_STATUSES = ['Issued', 'PartiallyPaid'] as const;

/** Credit not applied nor paid back to a card yet. */
export const availableOf = (cn: Pick<CreditNote, 'amount' | 'amountApplied' | 'amountRefunded'>) => new Decimal(cn.amount).minus(cn.amountApplied).minus(cn.amountRefunded);

const statusOf = (cn: Pick<CreditNote, 'amount' | 'amountApplied' | 'amountRefunded'>): CreditNoteStatus => {
  const used = new Decimal(cn.amountApplied).plus(cn.amountRefunded);
  if (used.lte(0)) return 'Open';
  return used.gte(cn.amount) ? 'Applied' : 'PartiallyApplied';
};

export function creditNoteView(cn: CreditNote): CreditNoteOut {
  const c = cn.currencyCode;
  const available = availableOf(cn);
  return {
    creditNoteId: cn.id,
    creditNoteNumber: cn.creditNoteNumber,
    status: statusOf(cn),
    invoiceId: cn.invoiceId,
    invoiceNumber: cn.invoiceNumber,
    orderId: cn.orderId ?? null,
    orderNumber: cn.orderNumber ?? null,
    customerNumber: cn.customerNumber,
    currencyCode: c,
    amount: moneyNumber(cn.amount, c),
    amountFormatted: formatMoney(cn.amount, c),
    amountApplied: moneyNumber(cn.amountApplied, c),
    amountRefunded: moneyNumber(cn.amountRefunded, c),
    refundStatus: cn.refundStatus ?? null,
    available: moneyNumber(available, c),
    availableFormatted: formatMoney(available, c),
    merchandiseAmount: moneyNumber(cn.merchandiseAmount, c),
    reason: cn.reason,
    lines: (cn.lines ?? []).map((l) => ({ sku: l.sku, productName: l.productName ?? null, quantity: l.quantity, price: moneyNumber(l.price, c), amount: moneyNumber(l.amount, c) })),
    applications: cn.applications.map((a) => ({ invoiceId: a.invoiceId, invoiceNumber: a.invoiceNumber, paymentId: a.paymentId, amount: moneyNumber(a.amount, c), appliedAt: a.appliedAt })),
    source: cn.source as (typeof CREDIT_NOTE_SOURCES)[number],
    pdf: `/api/credit-notes/${cn.id}/pdf`,
    createdAt: new Date(cn.createdAt).toISOString(),
    updatedAt: new Date(cn.updatedAt).toISOString(),
  };
}

/**
 * Locks, in id order (so concurrent issues and applications of one customer never deadlock), the
 * customer's open invoices in `currency` and the invoice `include` (the credited one, whatever its
 * status). Answers them all; `openOf` keeps the open ones (Issued, PartiallyPaid, balance > 0).
 */
async function lockInvoices(tx: EntityManager, orgId: string, owner: Pick<Invoice, 'customerId' | 'customerNumber'>, currency: string, include: string | readonly string[] | null): Promise<Invoice[]> {
  const who: FilterQuery<Invoice> = owner.customerId ? { customerId: owner.customerId } : { customerId: null, customerNumber: owner.customerNumber };
  const open = { active: true, status: { $in: [...OPEN_STATUSES] }, currencyCode: currency, ...who } as FilterQuery<Invoice>;
  const ids = include === null ? [] : typeof include === 'string' ? [include] : [...include];
  return tx.find(Invoice, { $and: [{ organization: orgId }, ids.length ? { $or: [{ id: { $in: ids } }, open] } : open] } as FilterQuery<Invoice>, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
    orderBy: { id: 'asc' },
  });
}

const openOf = (rows: readonly Invoice[], currency: string, owner: Pick<Invoice, 'customerId' | 'customerNumber'>) =>
  rows.filter(
    (i) =>
      i.active &&
      (OPEN_STATUSES as readonly string[]).includes(i.status) &&
      i.currencyCode === currency &&
      (owner.customerId ? i.customerId === owner.customerId : !i.customerId && i.customerNumber === owner.customerNumber) &&
      balanceOf(i.total, i.amountPaid, i.currencyCode).gt(0),
  );

const openFacts = (invoices: readonly Invoice[]): OpenInvoice[] =>
  invoices.map((i) => ({ invoiceId: i.id, invoiceNumber: i.invoiceNumber, dueDate: i.dueDate, invoiceDate: i.invoiceDate, balance: balanceOf(i.total, i.amountPaid, i.currencyCode) }));

/** Where the note's available credit goes (field errors name apply / applyTo). */
function allocationsFor(cn: CreditNote, req: ApplyRequest, open: readonly Invoice[], creditedFirst = false): Allocation[] {
  const mode = req.apply ?? (req.applyTo && req.applyTo.length ? 'Chosen' : 'OldestFirst');
  if (mode !== 'Chosen' && req.applyTo && req.applyTo.length) throw AppError.field('applyTo', 'applyTo is given only with apply Chosen (or without apply).');
  const available = availableOf(cn);
  if (mode === 'None') return [];
  if (mode === 'Chosen') {
    if (!req.applyTo || !req.applyTo.length) throw AppError.field('applyTo', 'apply Chosen needs applyTo: the invoices and amounts.');
    const { allocations, errors } = allocateChosen(available, openFacts(open), req.applyTo, cn.currencyCode);
    if (Object.keys(errors).length) throw AppError.validation(errors);
    return allocations;
  }
  if (creditedFirst) return allocateCreditedFirst(available, openFacts(open), cn.invoiceId, cn.currencyCode);
  return allocateOldestFirst(available, openFacts(open), cn.currencyCode);
}

/** Applies the allocations in the caller's transaction: a CreditNote payment per invoice, the note's applied amount and applications, one `credit_note.applied` event each. */
function applyAllocations(tx: EntityManager, cn: CreditNote, allocations: readonly Allocation[], open: readonly Invoice[]): string[] {
  const touched: string[] = [];
  const applications: CreditNoteApplication[] = [...cn.applications];
  let applied = new Decimal(cn.amountApplied);
  for (const a of allocations) {
    const inv = open.find((i) => i.id === a.invoiceId)!;
    const payment = applyPayment(tx, inv, {
      organizationId: cn.organizationId,
      invoiceId: inv.id,
      amount: a.amount.toFixed(),
      currencyCode: cn.currencyCode,
      method: 'CreditNote',
      paymentDate: new Date(),
      reference: cn.creditNoteNumber,
      notes: `Credit note ${cn.creditNoteNumber}: ${cn.reason}`.slice(0, 2000),
      idempotencyKey: `credit-note:${cn.id}:${applications.length}`,
    });
    applied = applied.plus(a.amount);
    const appliedAt = new Date().toISOString();
    applications.push({ invoiceId: inv.id, invoiceNumber: inv.invoiceNumber, paymentId: payment.id, amount: a.amount.toFixed(), appliedAt });
    touched.push(inv.id);
    emitEvent(tx, cn.organizationId, 'credit_note.applied', {
      creditNoteId: cn.id,
      creditNoteNumber: cn.creditNoteNumber,
      customerNumber: cn.customerNumber,
      currencyCode: cn.currencyCode,
      invoiceId: inv.id,
      invoiceNumber: inv.invoiceNumber,
      paymentId: payment.id,
      amount: a.amount.toFixed(),
      invoiceStatus: inv.status,
      available: new Decimal(cn.amount).minus(applied).minus(cn.amountRefunded).toFixed(),
    });
  }
  cn.amountApplied = applied.toFixed();
  cn.applications = applications;
  return touched;
}

/** After the commit: every affected invoice's dunning process re-reads its invoice (a credited-to-zero one ends), and the PDF is stored. */
async function afterCommit(em: EntityManager, deps: CreditNoteDeps, cn: CreditNote, touched: readonly string[], storePdf: boolean): Promise<void> {
  await Promise.all(touched.map((id) => signalDunning(deps.temporal, id)));
  if (!storePdf) return;
  try {
    await storeCreditNotePdf(em, deps.storage, cn);
  } catch (e) {
    // GET /api/credit-notes/{id}/pdf renders and stores it when it is missing.
    log.warn('could not store the credit note PDF', { creditNoteId: cn.id, error: String(e) });
  }
}

/**
 * Issues a credit note for an invoice (visible to `auth`; null: a service already checked) and
 * applies it as asked, in one transaction. With `ctx.sourceId`, a note of that source and key is
 * issued once: a second call answers the first note.
 */
export async function issueCreditNoteAs(em: EntityManager, deps: CreditNoteDeps, orgId: string, auth: Principal | null, req: IssueRequest, ctx: IssueContext = {}): Promise<CreditNote> {
  if (!UUID_RE.test(req.invoiceId)) throw AppError.field('invoiceId', 'No invoice you may see has this id.');
  const scope = auth ? await byVisibleCustomer(em, orgId, auth) : {};
  // Visibility on a read of its own; the transaction then locks (and reads afresh) the invoices.
  const seen = await em.fork().findOne(Invoice, { id: req.invoiceId, organization: orgId, active: true, ...scope }, { fields: ['id', 'customerId', 'customerNumber', 'currencyCode'] });
  if (!seen) throw new AppError('not_found', 'No invoice you may see has this id.', { invoiceId: ['No invoice you may see has this id.'] });
  const result = await em.fork().transactional((tx) => issueInTransaction(tx, orgId, seen, req, ctx));
  await afterCommit(em, deps, result.cn, result.touched, result.fresh);
  return result.cn;
}

/** The invoice's refunds, earlier credit notes and what is still creditable (creditableAmount). */
function creditableOf(inv: Invoice, earlier: readonly CreditNote[]) {
  const refunded = (inv.refunds ?? []).reduce((s, r) => s.plus(r.amount), new Decimal(0));
  const credited = earlier.reduce((s, n) => s.plus(n.amount), new Decimal(0));
  return { refunded, credited, creditable: creditableAmount(inv.total, refunded, credited, inv.currencyCode) };
}

/**
 * What of the invoice can still be credited now (total - refunded - earlier credit notes), read
 * under the same locks as issuing (the customer's open invoices and this one, in id order), so a
 * note issued in the same transaction right after cannot exceed it.
 */
export async function creditableInTransaction(tx: EntityManager, orgId: string, seen: Pick<Invoice, 'id' | 'customerId' | 'customerNumber' | 'currencyCode'>): Promise<Decimal> {
  const locked = await lockInvoices(tx, orgId, seen, seen.currencyCode, seen.id);
  const inv = locked.find((i) => i.id === seen.id);
  if (!inv || !inv.active) return new Decimal(0);
  return creditableOf(inv, await tx.find(CreditNote, { organizationId: orgId, invoiceId: inv.id })).creditable;
}

/**
 * The order's creditable invoices (Issued, PartiallyPaid, Paid), oldest first, each with its lines,
 * what earlier credit notes credited of them and what it can still be credited (total - refunded -
 * earlier credit notes), read under the issuing locks (the order's invoices and the customer's
 * open ones, in id order), so notes issued right after in the same transaction cannot exceed them.
 */
export async function creditableInvoicesOfOrder(tx: EntityManager, orgId: string, orderId: string): Promise<(CreditableInvoice & { invoice: Invoice })[]> {
  const mine = await tx.find(Invoice, { organization: orgId, orderId, active: true, status: { $in: ['Issued', 'PartiallyPaid', 'Paid'] } }, { orderBy: { id: 'asc' } });
  if (!mine.length) return [];
  const locked = await lockInvoices(tx, orgId, mine[0], mine[0].currencyCode, mine.map((i) => i.id));
  const ids = new Set(mine.map((i) => i.id));
  const invoices = locked.filter((i) => ids.has(i.id) && i.active && ['Issued', 'PartiallyPaid', 'Paid'].includes(i.status));
  const notes = await tx.find(CreditNote, { organizationId: orgId, invoiceId: { $in: invoices.map((i) => i.id) } });
  return invoices
    .map((inv) => {
      const earlier = notes.filter((n) => n.invoiceId === inv.id);
      return {
        invoice: inv,
        invoiceId: inv.id,
        invoiceNumber: inv.invoiceNumber,
        invoiceDate: inv.invoiceDate,
        lines: inv.items.map((l) => ({ sku: l.sku, quantity: l.quantity, price: l.price })),
        credited: earlier.flatMap((n) => n.lines ?? []).map((l) => ({ sku: l.sku, quantity: l.quantity })),
        creditable: creditableOf(inv, earlier).creditable,
      };
    })
    .sort((a, b) => new Date(a.invoiceDate).getTime() - new Date(b.invoiceDate).getTime() || a.invoiceNumber.localeCompare(b.invoiceNumber));
}

/**
 * The issuing transaction's body, in the caller's transaction (an order cancellation issues its
 * note in its own): locks the invoices, checks, numbers, creates, applies. `ctx.refundToCard`: the
 * whole note is reserved for a card refund (amountRefunded, refundStatus Pending) and not applied.
 * The caller runs afterCommit's work (notifyCreditNote) once committed.
 */
export async function issueInTransaction(
  tx: EntityManager,
  orgId: string,
  seen: Pick<Invoice, 'id' | 'customerId' | 'customerNumber' | 'currencyCode'>,
  req: IssueRequest,
  ctx: IssueContext & { refundToCard?: boolean },
): Promise<{ cn: CreditNote; touched: string[]; fresh: boolean }> {
  const source = ctx.source ?? 'Manual';
  {
    const locked = await lockInvoices(tx, orgId, seen, seen.currencyCode, seen.id);
    const inv = locked.find((i) => i.id === seen.id);
    if (!inv || !inv.active) throw AppError.notFound('Invoice');
    if (ctx.sourceId) {
      const prior = await tx.findOne(CreditNote, { organizationId: orgId, source, sourceId: ctx.sourceId });
      if (prior) return { cn: prior, touched: [] as string[], fresh: false };
    }
    if (inv.status === 'Draft' || inv.status === 'Voided' || inv.status === 'Cancelled')
      throw AppError.conflict(`The invoice is ${inv.status}; only an Issued, PartiallyPaid or Paid invoice can be credited.`);
    const earlier = await tx.find(CreditNote, { organizationId: orgId, invoiceId: inv.id });
    const c = inv.currencyCode;
    const { refunded, credited, creditable } = creditableOf(inv, earlier);
    const errors: Record<string, string[]> = {};
    let amount: Decimal;
    let lines = null as ReturnType<typeof priceLines>['lines'] | null;
    let merchandise = new Decimal(0);
    if (req.lines && req.lines.length) {
      const priced = priceLines(inv.items, earlier.flatMap((n) => n.lines ?? []), req.lines, c);
      Object.assign(errors, priced.errors);
      lines = priced.lines;
      merchandise = priced.total;
      amount = priced.total;
      if (req.amount !== undefined && req.amount !== null && !roundMoney(req.amount, c).eq(priced.total))
        errors.amount = [`amount must equal the credited lines' total (${priced.total.toFixed()}) or be omitted.`];
    } else if (req.amount !== undefined && req.amount !== null) {
      amount = roundMoney(req.amount, c);
      if (amount.lte(0)) errors.amount = ['amount must be greater than 0.'];
    } else {
      throw AppError.validation({ amount: ['Give lines or an amount.'], lines: ['Give lines or an amount.'] });
    }
    if (!errors.amount && !Object.keys(errors).some((k) => k.startsWith('lines')) && amount.gt(creditable))
      errors[req.lines && req.lines.length ? 'lines' : 'amount'] = [`The credit (${amount.toFixed()}) exceeds what invoice ${inv.invoiceNumber} can still be credited (${creditable.toFixed()}: total ${new Decimal(inv.total).toFixed()}, refunded ${refunded.toFixed()}, credited ${credited.toFixed()}).`];
    if (Object.keys(errors).length) throw AppError.validation(errors);
    const number = await allocateNumber(boundSql(tx), CREDIT_NOTE_NUMBERS, orgId);
    const cn = tx.create(CreditNote, {
      organizationId: orgId,
      creditNoteNumber: number,
      invoiceId: inv.id,
      invoiceNumber: inv.invoiceNumber,
      orderId: inv.orderId ?? null,
      orderNumber: inv.orderNumber ?? null,
      customerId: inv.customerId ?? null,
      customerNumber: inv.customerNumber,
      currencyCode: c,
      amount: amount.toFixed(),
      amountApplied: '0',
      reason: req.reason,
      lines,
      merchandiseAmount: merchandise.toFixed(),
      applications: [],
      amountRefunded: '0',
      refundStatus: null,
      source,
      sourceId: ctx.sourceId ?? null,
      pdfKey: null,
      issuedBy: ctx.issuedBy ?? null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    emitEvent(tx, orgId, 'credit_note.issued', {
      creditNoteId: cn.id,
      creditNoteNumber: number,
      invoiceId: inv.id,
      invoiceNumber: inv.invoiceNumber,
      orderId: inv.orderId ?? null,
      orderNumber: inv.orderNumber ?? null,
      customerNumber: inv.customerNumber,
      currencyCode: c,
      amount: amount.toFixed(),
      reason: req.reason,
      lines: lines ?? [],
      source,
    });
    // A note staff issue takes its lines (or, without lines, its amount from the totals) out of the
    // order's figures; notes of a cancellation or a return are counted by their source.
    if (source === 'Manual' && inv.orderId)
      await recordSalesCredits(tx, orgId, inv.orderId, 'credit_note', cn.id, lines ? lines.map((l) => ({ sku: l.sku, quantity: l.quantity, amount: l.amount })) : [{ sku: null, quantity: 0, amount: amount.toFixed() }]);
    if (ctx.refundToCard) {
      cn.amountRefunded = cn.amount;
      cn.refundStatus = 'Pending';
      await tx.flush();
      return { cn, touched: [], fresh: true };
    }
    const open = openOf(locked, c, inv);
    const touched = applyAllocations(tx, cn, allocationsFor(cn, req, open, ctx.creditedFirst), open);
    await tx.flush();
    return { cn, touched, fresh: true };
  }
}

/** After the issuing transaction committed: the dunning signals and the PDF (see afterCommit). */
export const notifyCreditNote = (em: EntityManager, deps: CreditNoteDeps, r: { cn: CreditNote; touched: string[]; fresh: boolean }) => afterCommit(em, deps, r.cn, r.touched, r.fresh);

/** The credit note with this id if the principal may see it (its customer's): else 404. */
export async function findCreditNote(em: EntityManager, orgId: string, auth: Principal, id: string, lock = false): Promise<CreditNote> {
  if (!UUID_RE.test(id)) throw AppError.notFound('Credit note');
  const scope = (await byVisibleCustomer(em, orgId, auth)) as FilterQuery<CreditNote>;
  const cn = await em.findOne(CreditNote, { $and: [{ organizationId: orgId, id }, scope] }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!cn) throw AppError.notFound('Credit note');
  return cn;
}

/** POST /api/credit-notes (Admin): issues and applies; answers the note's view. */
export async function issueCreditNote(em: EntityManager, deps: CreditNoteDeps, orgId: string, auth: Principal, req: IssueRequest): Promise<CreditNoteOut> {
  const cn = await issueCreditNoteAs(em, deps, orgId, auth, req, { source: 'Manual', issuedBy: auth.userId ?? null });
  return readCreditNote(em, orgId, auth, cn.id);
}

/** POST /api/credit-notes/{id}/apply (Admin; the customer's SalesRep): applies available credit now, oldest first or as chosen. */
export async function applyCreditNote(em: EntityManager, deps: CreditNoteDeps, orgId: string, auth: Principal, id: string, req: ApplyRequest): Promise<CreditNoteOut> {
  const seen = await findCreditNote(em, orgId, auth, id);
  if (!(await mayActFor(em, orgId, auth, seen.customerNumber))) throw AppError.forbidden('This customer is not assigned to your rep number.');
  if ((req.apply ?? 'OldestFirst') === 'None') throw AppError.field('apply', 'apply must be OldestFirst or Chosen here.');
  const touched = await em.fork().transactional(async (tx) => {
    // Invoices before the note, the same order as issuing (no deadlock with a concurrent issue).
    const open = openOf(await lockInvoices(tx, orgId, seen, seen.currencyCode, null), seen.currencyCode, seen);
    const cn = await tx.findOneOrFail(CreditNote, { organizationId: orgId, id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (availableOf(cn).lte(0)) throw AppError.conflict(`Credit note ${cn.creditNoteNumber} is fully applied; no credit is left.`);
    const allocations = allocationsFor(cn, req, open);
    if (!allocations.length) throw AppError.conflict(`Customer ${cn.customerNumber} has no open invoice in ${cn.currencyCode} to apply credit note ${cn.creditNoteNumber} to.`);
    const t = applyAllocations(tx, cn, allocations, open);
    await tx.flush();
    return t;
  });
  await afterCommit(em, deps, seen, touched, false);
  return readCreditNote(em, orgId, auth, id);
}

export async function readCreditNote(em: EntityManager, orgId: string, auth: Principal, id: string): Promise<CreditNoteOut> {
  return creditNoteView(await findCreditNote(em.fork(), orgId, auth, id));
}

/** GET /api/credit-notes/{id}/pdf: the stored PDF (rendered and stored now when it is missing). */
export async function creditNotePdf(em: EntityManager, storage: Storage, orgId: string, auth: Principal, id: string): Promise<{ data: Buffer; fileName: string }> {
  const cn = await findCreditNote(em, orgId, auth, id);
  const data = (cn.pdfKey ? await storage.get(cn.pdfKey) : null) ?? (await storeCreditNotePdf(em, storage, cn));
  return { data, fileName: `credit-note-${cn.creditNoteNumber.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf` };
}

export const creditNoteListSpec: ListSpec = {
  filters: {
    creditNoteNumber: { prop: 'creditNoteNumber', type: 'string' },
    customerNumber: { prop: 'customerNumber', type: 'string' },
    invoiceNumber: { prop: 'invoiceNumber', type: 'string' },
    orderNumber: { prop: 'orderNumber', type: 'string' },
    currencyCode: { prop: 'currencyCode', type: 'string' },
    createdAt: { prop: 'createdAt', type: 'date' },
  },
  sorts: { CreatedAt: 'createdAt', CreditNoteNumber: 'creditNoteNumber', Amount: 'amount', CustomerNumber: 'customerNumber' },
  defaultSort: 'CreatedAt',
  comparisons: true,
};

/**
 * GET /api/credit-notes: the notes of the customers the principal may see (generic envelope);
 * filters as `filters` (creditNoteNumber, customerNumber, invoiceNumber, orderNumber,
 * currencyCode, createdAt) and the shortcuts invoiceId, orderId, customerNumber.
 */
export async function listCreditNotes(em: EntityManager, orgId: string, auth: Principal, query: Record<string, unknown>) {
  const q = parseList(query, creditNoteListSpec);
  const shortcuts: FilterQuery<CreditNote>[] = [];
  const errors: Record<string, string[]> = {};
  for (const key of ['invoiceId', 'orderId'] as const) {
    const v = query[key];
    if (v === undefined || v === '') continue;
    if (typeof v !== 'string' || !UUID_RE.test(v)) errors[key] = [`${key} must be a valid id (UUID).`];
    else shortcuts.push({ [key]: v });
  }
  if (Object.keys(errors).length) throw AppError.validation(errors, 'Invalid query parameters.');
  const byNumber = typeof query.customerNumber === 'string' && query.customerNumber ? { $and: [...((q.where.$and as unknown[]) ?? []), { customerNumber: query.customerNumber }] } : q.where;
  const where = await customerNumberFiltersById(em, orgId, byNumber);
  const [rows, total] = await em.findAndCount(
    CreditNote,
    { $and: [{ organizationId: orgId }, (await byVisibleCustomer(em, orgId, auth)) as FilterQuery<CreditNote>, where as FilterQuery<CreditNote>, ...shortcuts] },
    { orderBy: [q.orderBy, { creditNoteNumber: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(creditNoteView), total, q);
}
