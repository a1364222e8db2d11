/**
 * Invoices: create, import (upsert), edit, status moves, listing and who may see which
 * invoice. Status moves go through src/domain/invoices/state.ts, money through
 * src/domain/invoices/money.ts; payments through ./record-payment.ts. Decisions: docs/invoices.md.
 */
import { LockMode, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import { Decimal } from 'decimal.js';
import { balanceOf, computeTotals } from '../../domain/invoices/money.js';
import { INVOICE_STATUSES, isInvoiceStatus, transition, type InvoiceEvent, type InvoiceStatus } from '../../domain/invoices/state.js';
import { Invoice, InvoicePayment, Order } from '../../entities/index.js';
import type { InvoiceCustomer, InvoiceDiscount, InvoiceSalesRep } from '../../entities/Invoice.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { itemsEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { byVisibleCustomer, liveCustomerId, mayActFor, ofCustomerNumber, visibleCustomerNumbers } from '../customers/visibility.js';
import { allocateNumber, claimNumbers, INVOICE_NUMBERS } from '../numbering.js';
import { boundSql } from '../../db/orm-sql.js';
import { assertNoAdminOnlyChanges, repPriced, writesAsGiven } from './rep-rules.js';
import { signalDunning } from './signal.js';
import { invoiceView } from './view.js';
import { UUID_RE } from '../../domain/ids.js';

export interface DiscountInput {
  code?: string | null;
  type: string;
  value: number;
  description?: string | null;
}

/** Invoice fields as the API takes them (every one optional: PUT edits a subset). */
export interface InvoiceFields {
  orderId?: string | null;
  orderNumber?: string | null;
  invoiceNumber?: string | null;
  externalId?: string | null;
  customer?: InvoiceCustomer | null;
  primarySalesRep?: InvoiceSalesRep | null;
  invoiceDate?: string | null;
  dueDate?: string | null;
  terms?: string;
  currencyCode?: string;
  /** priceListId: set by the rep rules from the one resolver (src/services/invoices/rep-rules.ts), never taken from a client. */
  items?: { sku: string; productName?: string | null; quantity: number; price: number; priceListId?: string | null }[];
  poNumber?: string | null;
  notes?: string | null;
  tax?: number | null;
  discount?: DiscountInput | null;
  importedInvoiceTotal?: number | null;
  importedBalance?: number | null;
  active?: boolean;
}

/** A new invoice: the fields POST /api/invoices requires. */
export interface NewInvoice extends InvoiceFields {
  orderId: string;
  customer: NonNullable<InvoiceFields['customer']>;
  invoiceDate: string;
  dueDate: string;
  terms: string;
  currencyCode: string;
  items: NonNullable<InvoiceFields['items']>;
}

const money4 = (v: number | string) => new Decimal(v).toFixed();

/**
 * The invoice, scoped to the organization, to active ones and to the customers the caller may
 * see (a Customer its own, a SalesRep its assigned customers); `auth` null is the service itself
 * re-reading an invoice it already checked.
 */
export async function findInvoice(em: EntityManager, orgId: string, id: string, auth: Principal | null, lock = false): Promise<Invoice> {
  if (!UUID_RE.test(id)) throw AppError.notFound('Invoice');
  const scope = auth ? await byVisibleCustomer(em, orgId, auth) : {};
  const inv = await em.findOne(Invoice, { id, organization: orgId, active: true, ...scope }, { ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}), populate: ['organization'] });
  if (!inv) throw AppError.notFound('Invoice');
  return inv;
}

/** A Customer or SalesRep may create or change invoices only of customers it may act for (403 otherwise). */
export async function assertMayInvoice(em: EntityManager, orgId: string, auth: Principal, customerNumber: string | undefined): Promise<void> {
  if (customerNumber === undefined || (await mayActFor(em, orgId, auth, customerNumber))) return;
  throw AppError.forbidden('This customer is not assigned to your rep number.');
}

export async function viewOf(em: EntityManager, inv: Invoice) {
  const payments = await em.find(InvoicePayment, { invoice: inv.id });
  return invoiceView(inv, payments);
}

/** The invoice's current view, read in a fresh identity map. */
export async function reload(em: EntityManager, orgId: string, id: string) {
  const fork = em.fork();
  const inv = await findInvoice(fork, orgId, id, null);
  return viewOf(fork, inv);
}

export function must(from: string, event: InvoiceEvent): InvoiceStatus {
  const t = transition(from as InvoiceStatus, event);
  if (!t.ok) throw AppError.badRequest(t.reason);
  return t.to;
}

/** What apply and recompute read and write: an Invoice entity, or the import's in-memory copy of a stored row. */
export type InvoiceState = Pick<
  Invoice,
  'orderId' | 'orderNumber' | 'invoiceNumber' | 'externalId' | 'customer' | 'customerNumber' | 'customerId' | 'primarySalesRep' | 'invoiceDate' | 'dueDate' | 'terms' | 'currencyCode' | 'items' | 'poNumber' | 'notes'
  | 'taxInput' | 'discount' | 'importedInvoiceTotal' | 'importedBalance' | 'active' | 'subtotal' | 'discountAmount' | 'tax' | 'total' | 'importedPaid' | 'amountPaid'
>;

/** Recomputes the money columns from the inputs (Draft: no payments yet, so amountPaid is the imported paid amount). */
export function recompute(inv: InvoiceState) {
  const t = computeTotals({
    currencyCode: inv.currencyCode,
    items: inv.items,
    tax: inv.taxInput,
    discount: inv.discount,
    importedInvoiceTotal: inv.importedInvoiceTotal,
    importedBalance: inv.importedBalance,
  });
  const errors: Record<string, string[]> = {};
  if (t.total.isNegative()) errors.total = ['The invoice total must not be negative.'];
  if (t.importedPaid.isNegative()) errors.importedBalance = ['importedBalance must not exceed the invoice total.'];
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const paidBefore = new Decimal(inv.amountPaid).minus(inv.importedPaid);
  inv.subtotal = t.subtotal.toFixed();
  inv.discountAmount = t.discountAmount.toFixed();
  inv.tax = t.tax.toFixed();
  inv.total = t.total.toFixed();
  inv.importedPaid = t.importedPaid.toFixed();
  inv.amountPaid = paidBefore.plus(t.importedPaid).toFixed();
}

/**
 * Copies the given input fields onto the invoice. `owner` is the stored customer the input's
 * customerNumber names (looked up by the caller; null when there is none): an invoice belongs
 * to that record's id, not to the number.
 */
export function apply(inv: InvoiceState, input: InvoiceFields, owner: { customerId: string | null } | null) {
  const has = (k: keyof InvoiceFields) => input[k] !== undefined;
  if (has('orderId')) inv.orderId = input.orderId!;
  if (has('orderNumber')) inv.orderNumber = input.orderNumber ?? null;
  if (has('invoiceNumber') && input.invoiceNumber) inv.invoiceNumber = input.invoiceNumber;
  if (has('externalId')) inv.externalId = input.externalId ?? null;
  if (has('customer') && input.customer) {
    inv.customer = { ...input.customer, companyEmail: input.customer.companyEmail ?? null } as Invoice['customer'];
    inv.customerNumber = input.customer.customerNumber;
    inv.customerId = owner?.customerId ?? null;
  }
  if (has('primarySalesRep') && input.primarySalesRep) inv.primarySalesRep = { ...input.primarySalesRep };
  if (has('invoiceDate')) inv.invoiceDate = new Date(input.invoiceDate!);
  if (has('dueDate')) inv.dueDate = new Date(input.dueDate!);
  if (has('terms')) inv.terms = input.terms!;
  if (has('currencyCode')) inv.currencyCode = input.currencyCode!;
  if (has('items'))
    inv.items = input.items!.map((l) => ({ sku: l.sku, productName: l.productName ?? null, quantity: l.quantity, price: money4(l.price), ...(l.priceListId ? { priceListId: l.priceListId } : {}) }));
  if (has('poNumber')) inv.poNumber = input.poNumber ?? null;
  if (has('notes')) inv.notes = input.notes ?? null;
  if (has('tax')) inv.taxInput = money4(input.tax ?? 0);
  if (has('discount')) inv.discount = input.discount ? toDiscount(input.discount) : null;
  if (has('importedInvoiceTotal')) inv.importedInvoiceTotal = input.importedInvoiceTotal === null ? null : money4(input.importedInvoiceTotal!);
  if (has('importedBalance')) inv.importedBalance = input.importedBalance === null ? null : money4(input.importedBalance!);
  if (has('active')) inv.active = input.active!;
  if (inv.dueDate < inv.invoiceDate) throw AppError.field('dueDate', 'dueDate must not be before invoiceDate.');
}

/**
 * Whether an invoice input that names an order by `orderId` (other than the one `storedOrderId` already
 * names) and gives no `orderNumber` should take the order's number: the invoice then shows the same
 * orderNumber as the order. Called after the caller's order visibility check (a rep's invoice names
 * only orders it may see, ./rep-rules.ts).
 */
export const needsOrderNumber = (input: InvoiceFields, storedOrderId: string | null = null): input is InvoiceFields & { orderId: string } =>
  !!input.orderId && !input.orderNumber && input.orderId !== storedOrderId;

/** The input with the orderNumber of the order its orderId names, when it gives none (unchanged when no order of the organization has that id). */
export async function withOrderNumber<T extends InvoiceFields>(em: EntityManager, orgId: string, input: T, storedOrderId: string | null = null): Promise<T> {
  if (!needsOrderNumber(input, storedOrderId)) return input;
  const order = await em.findOne(Order, { id: input.orderId, organization: orgId }, { fields: ['orderNumber'] });
  return order ? { ...input, orderNumber: order.orderNumber } : input;
}

export const toDiscount = (d: { code?: string | null; type: string; value: number; description?: string | null }): InvoiceDiscount => ({
  code: d.code ?? null,
  type: d.type as InvoiceDiscount['type'],
  value: money4(d.value),
  description: d.description ?? null,
});

export const dupNumber = (n: string) => AppError.conflict(`Invoice number "${n}" is already used in this organization.`);
export const dupExternal = (x: string) => AppError.conflict(`An invoice with externalId "${x}" already exists in this organization.`);

export function translateUnique(e: unknown, input: { invoiceNumber?: string | null; externalId?: string | null }): never {
  if (isUniqueViolation(e, 'invoice_org_number_unique')) throw dupNumber(input.invoiceNumber ?? '');
  if (isUniqueViolation(e, 'invoice_org_external_id_unique')) throw dupExternal(input.externalId ?? '');
  throw e;
}

export async function createInvoice(em: EntityManager, orgId: string, input: NewInvoice): Promise<Invoice> {
  try {
    return await em.fork().transactional(async (tx) => {
      // An order waiting for its buyer's approval is not invoiced (docs/security.md "Admission of orders").
      if (input.orderId && (await tx.count(Order, { organization: orgId, id: input.orderId, orderStatus: 'PendingApproval' })))
        throw AppError.conflict('The order is waiting for approval (PendingApproval); it is invoiced once its approval request is approved.');
      if (input.invoiceNumber && (await tx.count(Invoice, { organization: orgId, invoiceNumber: input.invoiceNumber }))) throw dupNumber(input.invoiceNumber);
      if (input.externalId && (await tx.count(Invoice, { organization: orgId, externalId: input.externalId }))) throw dupExternal(input.externalId);
      if (input.invoiceNumber) await claimNumbers(boundSql(tx), INVOICE_NUMBERS, orgId, [input.invoiceNumber]);
      const invoiceNumber = input.invoiceNumber || (await allocateNumber(boundSql(tx), INVOICE_NUMBERS, orgId));
      const inv = tx.create(Invoice, {
        organization: orgId,
        orderId: input.orderId,
        invoiceNumber,
        status: 'Draft',
        invoiceDate: new Date(input.invoiceDate),
        dueDate: new Date(input.dueDate),
        terms: input.terms,
        currencyCode: input.currencyCode,
        customerNumber: input.customer.customerNumber,
        customer: { customerNumber: input.customer.customerNumber },
        primarySalesRep: {},
        items: [],
        taxInput: '0',
        subtotal: '0',
        discountAmount: '0',
        tax: '0',
        total: '0',
        importedPaid: '0',
        amountPaid: '0',
        active: true,
        createdAt: new Date(),
        updatedAt: new Date(),
      });
      apply(inv, { ...input, invoiceNumber }, { customerId: await liveCustomerId(tx, orgId, input.customer.customerNumber) });
      recompute(inv);
      await tx.flush();
      return inv;
    });
  } catch (e) {
    translateUnique(e, input);
  }
}

/** POST /api/invoices: an Admin's invoice as given; a rep's for an assigned customer (else 403) by the rep rules of ./rep-rules.ts. */
export async function createInvoiceFor(em: EntityManager, orgId: string, auth: Principal, input: NewInvoice) {
  await assertMayInvoice(em, orgId, auth, input.customer.customerNumber);
  await assertKeysVisible(em, orgId, auth, input);
  if (!writesAsGiven(auth)) assertNoAdminOnlyChanges(input, null);
  const inv = await createInvoice(em, orgId, await withOrderNumber(em, orgId, await repPriced(em, orgId, auth, input, null)));
  return reload(em, orgId, inv.id);
}

/** DESIGN "Security decisions": a key (externalId, invoiceNumber) held by an invoice the caller may not see is a 404 naming it, not a 409. */
async function assertKeysVisible(em: EntityManager, orgId: string, auth: Principal, input: { externalId?: string | null; invoiceNumber?: string | null }): Promise<void> {
  const numbers = await visibleCustomerNumbers(em, orgId, auth);
  if (numbers === null) return;
  const errors: Record<string, string[]> = {};
  for (const field of ['externalId', 'invoiceNumber'] as const) {
    const value = input[field];
    if (value && (await em.count(Invoice, { organization: orgId, [field]: value, customerNumber: { $nin: numbers } })))
      errors[field] = [`No invoice with this ${field} is visible to you; nothing was changed.`];
  }
  if (Object.keys(errors).length) throw new AppError('not_found', 'The invoice names a key of an invoice that is not visible to you.', errors);
}

export const invoiceLinks = (id: string) => [
  { rel: 'self', href: `/api/invoices/${id}` },
  { rel: 'pdf', href: `/api/invoices/${id}/pdf` },
];

/** Runs a status move under the row lock and tells the invoice's dunning process. */
export async function move(em: EntityManager, temporal: Client, orgId: string, auth: Principal, id: string, event: InvoiceEvent) {
  await em.fork().transactional(async (tx) => {
    const inv = await findInvoice(tx, orgId, id, auth, true);
    inv.status = must(inv.status, event);
    await tx.flush();
  });
  await signalDunning(temporal, id);
  return reload(em, orgId, id);
}

export const invoiceListSpec: ListSpec = {
  filters: {},
  sorts: { InvoiceDate: 'invoiceDate', DueDate: 'dueDate', InvoiceNumber: 'invoiceNumber', Total: 'total' },
  defaultSort: 'InvoiceDate',
  names: { page: 'page', size: 'pageSize' },
};


/** GET /api/invoices: filters customerId (a customer number: the invoices of the customer with that number, src/services/customers/visibility.ts `ofCustomerNumber`), orderId, status; paging; only invoices of customers the caller may see. */
export async function listInvoices(em: EntityManager, orgId: string, auth: Principal, raw: Record<string, unknown>) {
  const get = (name: string) => {
    const k = Object.keys(raw).find((x) => x.toLowerCase() === name.toLowerCase());
    const v = k === undefined ? undefined : raw[k];
    return v === undefined || v === '' ? undefined : v;
  };
  const errors: Record<string, string[]> = {};
  const where: FilterQuery<Invoice> & { orderId?: string; status?: InvoiceStatus } = { organization: orgId, active: true };
  const customerId = get('customerId');
  const orderId = get('orderId');
  const status = get('status');
  if (customerId !== undefined) {
    if (typeof customerId !== 'string') errors.customerId = ['customerId must be a single value.'];
    else Object.assign(where, await ofCustomerNumber(em, orgId, customerId));
  }
  if (orderId !== undefined) {
    if (typeof orderId !== 'string' || !UUID_RE.test(orderId)) errors.orderId = ['orderId must be a valid id (UUID).'];
    else where.orderId = orderId;
  }
  if (status !== undefined) {
    if (!isInvoiceStatus(status)) errors.status = [`status must be one of: ${INVOICE_STATUSES.join(', ')}.`];
    else where.status = status;
  }
  let q;
  try {
    q = parseList(raw, invoiceListSpec);
  } catch (e) {
    if (e instanceof AppError && e.errors) Object.assign(errors, e.errors);
    else throw e;
  }
  if (Object.keys(errors).length || !q) throw AppError.validation(errors, 'Invalid query parameters.');
  const scope = await byVisibleCustomer(em, orgId, auth);
  const [rows, total] = await em.findAndCount(Invoice, { $and: [where, scope] }, {
    orderBy: [q.orderBy, { invoiceNumber: 'asc' }],
    limit: q.pageSize,
    offset: q.offset,
    populate: ['organization'],
  });
  const payments = rows.length ? await em.find(InvoicePayment, { invoice: { $in: rows.map((r) => r.id) } }) : [];
  return itemsEnvelope(rows.map((r) => invoiceView(r, payments.filter((p) => p.invoice.id === r.id))), total, q);
}

export interface PayableInvoice {
  invoiceId: string;
  invoiceNumber: string;
  customerNumber: string;
  /** The customer record the invoice belongs to (null: that customer was deleted). */
  customerId: string | null;
  currencyCode: string;
  /** What is still owed (decimal string). */
  balance: string;
}

/**
 * The organization's active invoice with this id or number, if it can be paid now (Issued or
 * PartiallyPaid; another status is a 400 naming the field); null when there is none.
 */
export async function findPayableInvoice(em: EntityManager, orgId: string, ref: { invoiceId?: string | null; invoiceNumber?: string | null }): Promise<PayableInvoice | null> {
  if (ref.invoiceId && !UUID_RE.test(ref.invoiceId)) return null;
  const where = ref.invoiceId ? { id: ref.invoiceId } : { invoiceNumber: ref.invoiceNumber ?? '' };
  const inv = await em.findOne(Invoice, { organization: orgId, active: true, ...where });
  if (!inv) return null;
  if (inv.status !== 'Issued' && inv.status !== 'PartiallyPaid')
    throw AppError.field(ref.invoiceId ? 'invoiceId' : 'invoiceNumber', `The invoice is ${inv.status}; only Issued or PartiallyPaid invoices can be paid.`);
  return { invoiceId: inv.id, invoiceNumber: inv.invoiceNumber, customerNumber: inv.customerNumber, customerId: inv.customerId ?? null, currencyCode: inv.currencyCode, balance: balanceOf(inv.total, inv.amountPaid, inv.currencyCode).toFixed() };
}

/** POST /api/invoices with active:false: soft-deletes the invoice matching externalId, else invoiceNumber (404 when none). */
export async function softDeleteMatching(em: EntityManager, orgId: string, auth: Principal, input: { externalId?: string | null; invoiceNumber?: string | null }): Promise<void> {
  const scope = await byVisibleCustomer(em, orgId, auth);
  const match =
    (input.externalId ? await em.findOne(Invoice, { organization: orgId, externalId: input.externalId, active: true, ...scope }) : null) ??
    (input.invoiceNumber ? await em.findOne(Invoice, { organization: orgId, invoiceNumber: input.invoiceNumber, active: true, ...scope }) : null);
  if (!match) throw AppError.notFound('Invoice');
  match.active = false;
  await em.flush();
}

/** PUT /api/invoices/:id: any subset of the fields while Draft; only notes and poNumber after (src/domain/invoices/state.ts). */
export async function updateInvoice(em: EntityManager, orgId: string, auth: Principal, id: string, body: InvoiceFields) {
  const fields = Object.entries(body)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  if (body.customer) await assertMayInvoice(em, orgId, auth, body.customer.customerNumber);
  try {
    await em.fork().transactional(async (tx) => {
      const inv = await findInvoice(tx, orgId, id, auth, true);
      if (!writesAsGiven(auth)) assertNoAdminOnlyChanges(body, inv);
      must(inv.status, { type: 'edit', fields });
      if (body.invoiceNumber && body.invoiceNumber !== inv.invoiceNumber && (await tx.count(Invoice, { organization: orgId, invoiceNumber: body.invoiceNumber }))) throw dupNumber(body.invoiceNumber);
      if (body.externalId && body.externalId !== inv.externalId && (await tx.count(Invoice, { organization: orgId, externalId: body.externalId }))) throw dupExternal(body.externalId);
      if (body.invoiceNumber && body.invoiceNumber !== inv.invoiceNumber) await claimNumbers(boundSql(tx), INVOICE_NUMBERS, orgId, [body.invoiceNumber]);
      const input = await withOrderNumber(tx, orgId, await repPriced(tx, orgId, auth, body, inv), inv.orderId);
      apply(inv, input, input.customer ? { customerId: await liveCustomerId(tx, orgId, input.customer.customerNumber) } : null);
      if (inv.status === 'Draft') recompute(inv);
      await tx.flush();
    });
  } catch (e) {
    translateUnique(e, body);
  }
  if (body.active === false) {
    const fork = em.fork();
    return viewOf(fork, await fork.findOneOrFail(Invoice, { id, organization: orgId }, { populate: ['organization'] }));
  }
  return reload(em, orgId, id);
}

/** Draft -> Issued under the row lock; the caller starts the issuance workflow. */
export async function markIssued(em: EntityManager, orgId: string, auth: Principal, id: string): Promise<Invoice> {
  return em.fork().transactional(async (tx) => {
    const i = await findInvoice(tx, orgId, id, auth, true);
    i.status = must(i.status, { type: 'issue' });
    await tx.flush();
    return i;
  });
}
