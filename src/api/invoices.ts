/**
 * Invoice endpoints (SPEC "Invoice endpoints", DESIGN "Decisions"): create, bulk create
 * (idempotent by externalId / invoiceNumber, active:false soft-deletes), list, read, update
 * (Draft; notes/poNumber later), issue (starts the issueInvoice workflow), PDF download,
 * payments (offline, or a card on file through the payment gateway), refunds, discount,
 * void and cancel. Status moves go through src/domain/invoices/state.ts; money through
 * src/domain/invoices/money.ts. Decisions are written down in docs/invoices.md.
 */
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import * as yup from 'yup';
import type { Deps } from '../deps.js';
import { computeTotals } from '../domain/invoices/money.js';
import { CLOSED_STATUSES, isInvoiceStatus, transition, type InvoiceEvent, type InvoiceStatus, INVOICE_STATUSES } from '../domain/invoices/state.js';
import { Invoice, InvoicePayment } from '../entities/index.js';
import type { InvoiceDiscount } from '../entities/Invoice.js';
import { AppError, isUniqueViolation } from '../errors.js';
import type { Principal } from '../http/auth.js';
import { itemsEnvelope, parseList, type ListSpec } from '../http/paging.js';
import { created, defineRoute, noContent, ok, type Reply } from '../http/route.js';
import { checkPayment, recordInvoicePayment } from '../invoices/record-payment.js';
import { signalInvoiceClosed, invoiceWorkflowId } from '../invoices/signal.js';
import { invoiceView } from '../invoices/view.js';
import type { InvoiceCardPaymentInput } from '../workflows/invoice-payments.js';
import { applyInvoiceRefund, checkRefund, refundRecorded, refundTarget, type RefundInput } from '../services/invoices/card-payments.js';
import { runWorkflow } from '../workflow-runs.js';
import { startOnce } from '../temporal.js';
import { currencyCode, email, uuid, UUID_RE } from './schemas.js';
import { registerHostedInvoiceResolver } from '../payments/hosted.js';
import { nextInvoiceNumber } from '../invoices/numbering.js';

const MAX_BULK = 1000;
const str = (max = 200) => yup.string().max(max).nullable();
const isoDate = () =>
  yup.string().test('iso-date', '${path} must be an ISO 8601 date.', (v) => v === undefined || v === null || (/^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v))));
const money = () => yup.number().min(0, '${path} must be at least 0.').max(1e13, '${path} is too large.');

const address = () =>
  yup.object({ address1: str(), address2: str(), city: str(), stateProvince: str(), zipPostalCode: str(40), country: str(100) }).nullable().default(undefined);
const customerSchema = yup
  .object({
    customerNumber: yup.string().trim().min(1).max(100).required(),
    companyName: str(),
    companyEmail: email().nullable(),
    companyPhone: str(40),
    billingAddress: address(),
    shippingAddress: address(),
  })
  .default(undefined);
const repSchema = yup.object({ repNumber: str(50), firstName: str(100), lastName: str(100), email: email().nullable(), phoneNumber: str(40) }).default(undefined);
const itemSchema = yup.object({
  sku: yup.string().trim().min(1).max(100).required(),
  productName: str(300),
  quantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').max(1e9).required(),
  price: money().required(),
});
const discountFields = {
  code: str(100),
  type: yup.string().oneOf(['Percentage', 'Amount'], '${path} must be Percentage or Amount.').required(),
  value: money()
    .required()
    .when('type', { is: 'Percentage', then: (s) => s.max(100, '${path} must be at most 100 for a Percentage discount.') }),
  description: str(500),
};
const discountSchema = yup.object(discountFields).nullable().default(undefined);

const invoiceFields = {
  orderId: uuid(),
  orderNumber: str(100),
  invoiceNumber: yup.string().trim().min(1).max(100).nullable(),
  externalId: str(200),
  customer: customerSchema,
  primarySalesRep: repSchema,
  invoiceDate: isoDate(),
  dueDate: isoDate(),
  terms: yup.string().trim().min(1).max(100),
  currencyCode: currencyCode(),
  items: yup.array(itemSchema).min(1, '${path} must have at least one item.').max(1000),
  poNumber: str(100),
  notes: yup.string().max(4000).nullable(),
  tax: money().nullable(),
  discount: discountSchema,
  importedInvoiceTotal: money().nullable(),
  importedBalance: money().nullable(),
  active: yup.boolean(),
};
const createSchema = yup.object({
  ...invoiceFields,
  orderId: uuid().required(),
  customer: customerSchema.required(),
  primarySalesRep: repSchema.required(),
  invoiceDate: isoDate().required(),
  dueDate: isoDate().required(),
  terms: yup.string().trim().min(1).max(100).required(),
  currencyCode: currencyCode().required(),
  items: yup.array(itemSchema).min(1, '${path} must have at least one item.').max(1000).required(),
});
const updateSchema = yup.object(invoiceFields);
type CreateInput = yup.InferType<typeof createSchema>;
type UpdateInput = yup.InferType<typeof updateSchema>;

const paymentSchema = yup.object({
  amount: yup.number().required(),
  currencyCode: currencyCode().required(),
  method: yup.string().oneOf(['EFT', 'Check', 'Wire', 'Cash', 'Card'], '${path} must be one of EFT, Check, Wire, Cash, Card.').required(),
  paymentDate: isoDate().required(),
  reference: str(200),
  notes: yup.string().max(2000).nullable(),
  paymentProfileId: str(200),
  cardType: str(50),
  last4Digits: yup.string().matches(/^\d{4}$/, '${path} must be four digits.').nullable(),
  status: yup.string().oneOf(['Completed', 'Pending', 'Failed'], '${path} must be one of Completed, Pending, Failed.'),
});
const refundSchema = yup.object({ amount: yup.number().required(), paymentId: uuid().nullable(), reason: yup.string().trim().max(500).nullable() });
const discountBody = yup.object(discountFields);

const money4 = (v: number | string) => new Decimal(v).toFixed();

/** The invoice, scoped to the organization, to active ones, and for Customer tokens to their own customer number. */
async function findInvoice(em: EntityManager, orgId: string, id: string, auth?: Principal, lock = false): Promise<Invoice> {
  if (!UUID_RE.test(id)) throw AppError.notFound('Invoice');
  const where: Record<string, unknown> = { id, organization: orgId, active: true };
  if (auth && auth.role === 'Customer' && !auth.isSuper) where.customerNumber = auth.customerNumber ?? '\u0000';
  const inv = await em.findOne(Invoice, where, { ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}), populate: ['organization'] });
  if (!inv) throw AppError.notFound('Invoice');
  return inv;
}

async function viewOf(em: EntityManager, inv: Invoice) {
  const payments = await em.find(InvoicePayment, { invoice: inv.id });
  return invoiceView(inv, payments);
}

async function reload(em: EntityManager, orgId: string, id: string) {
  const fork = em.fork();
  const inv = await findInvoice(fork, orgId, id);
  return viewOf(fork, inv);
}

function must(from: string, event: InvoiceEvent): InvoiceStatus {
  const t = transition(from as InvoiceStatus, event);
  if (!t.ok) throw AppError.badRequest(t.reason);
  return t.to;
}

/** Recomputes the money columns from the inputs (Draft: no payments yet, so amountPaid is the imported paid amount). */
function recompute(inv: Invoice) {
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

/** Copies the given input fields onto the invoice. */
function apply(inv: Invoice, input: UpdateInput) {
  const has = (k: keyof UpdateInput) => input[k] !== undefined;
  if (has('orderId')) inv.orderId = input.orderId!;
  if (has('orderNumber')) inv.orderNumber = input.orderNumber ?? null;
  if (has('invoiceNumber') && input.invoiceNumber) inv.invoiceNumber = input.invoiceNumber;
  if (has('externalId')) inv.externalId = input.externalId ?? null;
  if (has('customer') && input.customer) {
    inv.customer = { ...input.customer, companyEmail: input.customer.companyEmail ?? null } as Invoice['customer'];
    inv.customerNumber = input.customer.customerNumber;
  }
  if (has('primarySalesRep') && input.primarySalesRep) inv.primarySalesRep = { ...input.primarySalesRep };
  if (has('invoiceDate')) inv.invoiceDate = new Date(input.invoiceDate!);
  if (has('dueDate')) inv.dueDate = new Date(input.dueDate!);
  if (has('terms')) inv.terms = input.terms!;
  if (has('currencyCode')) inv.currencyCode = input.currencyCode!;
  if (has('items')) inv.items = input.items!.map((l) => ({ sku: l.sku, productName: l.productName ?? null, quantity: l.quantity, price: money4(l.price) }));
  if (has('poNumber')) inv.poNumber = input.poNumber ?? null;
  if (has('notes')) inv.notes = input.notes ?? null;
  if (has('tax')) inv.taxInput = money4(input.tax ?? 0);
  if (has('discount')) inv.discount = input.discount ? toDiscount(input.discount) : null;
  if (has('importedInvoiceTotal')) inv.importedInvoiceTotal = input.importedInvoiceTotal === null ? null : money4(input.importedInvoiceTotal!);
  if (has('importedBalance')) inv.importedBalance = input.importedBalance === null ? null : money4(input.importedBalance!);
  if (has('active')) inv.active = input.active!;
  if (inv.dueDate < inv.invoiceDate) throw AppError.field('dueDate', 'dueDate must not be before invoiceDate.');
}

const toDiscount = (d: { code?: string | null; type: string; value: number; description?: string | null }): InvoiceDiscount => ({
  code: d.code ?? null,
  type: d.type as InvoiceDiscount['type'],
  value: money4(d.value),
  description: d.description ?? null,
});

const dupNumber = (n: string) => AppError.conflict(`Invoice number "${n}" is already used in this organization.`);
const dupExternal = (x: string) => AppError.conflict(`An invoice with externalId "${x}" already exists in this organization.`);

function translateUnique(e: unknown, input: { invoiceNumber?: string | null; externalId?: string | null }): never {
  if (isUniqueViolation(e, 'invoice_org_number_unique')) throw dupNumber(input.invoiceNumber ?? '');
  if (isUniqueViolation(e, 'invoice_org_external_id_unique')) throw dupExternal(input.externalId ?? '');
  throw e;
}

async function createInvoice(em: EntityManager, orgId: string, input: CreateInput): Promise<Invoice> {
  try {
    return await em.fork().transactional(async (tx) => {
      if (input.invoiceNumber && (await tx.count(Invoice, { organization: orgId, invoiceNumber: input.invoiceNumber }))) throw dupNumber(input.invoiceNumber);
      if (input.externalId && (await tx.count(Invoice, { organization: orgId, externalId: input.externalId }))) throw dupExternal(input.externalId);
      const invoiceNumber = input.invoiceNumber || (await nextInvoiceNumber(tx, orgId));
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
      apply(inv, { ...input, invoiceNumber });
      recompute(inv);
      await tx.flush();
      return inv;
    });
  } catch (e) {
    translateUnique(e, input);
  }
}

const links = (id: string) => [
  { rel: 'self', href: `/api/invoices/${id}` },
  { rel: 'pdf', href: `/api/invoices/${id}/pdf` },
];

/** Bulk/import upsert of one invoice: match by externalId, then invoiceNumber; active:false soft-deletes. */
async function upsertInvoice(em: EntityManager, orgId: string, input: CreateInput): Promise<{ id: string; invoiceNumber: string }> {
  const fork = em.fork();
  const match =
    (input.externalId ? await fork.findOne(Invoice, { organization: orgId, externalId: input.externalId }) : null) ??
    (input.invoiceNumber ? await fork.findOne(Invoice, { organization: orgId, invoiceNumber: input.invoiceNumber }) : null);
  if (!match) {
    const inv = await createInvoice(em, orgId, input);
    if (input.active === false) await em.fork().nativeUpdate(Invoice, { id: inv.id }, { active: false });
    return { id: inv.id, invoiceNumber: inv.invoiceNumber };
  }
  try {
    await fork.transactional(async (tx) => {
      const inv = await tx.findOneOrFail(Invoice, { id: match.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (input.active === false) {
        inv.active = false;
      } else {
        inv.active = true;
        // Only a Draft invoice takes the imported fields; issued ones keep their amounts and lines.
        if (inv.status === 'Draft') {
          apply(inv, { ...input, invoiceNumber: input.invoiceNumber || inv.invoiceNumber });
          recompute(inv);
        }
      }
      await tx.flush();
    });
  } catch (e) {
    translateUnique(e, input);
  }
  const inv = await em.fork().findOneOrFail(Invoice, { id: match.id });
  return { id: inv.id, invoiceNumber: inv.invoiceNumber };
}

/** Runs a status move under the row lock and signals the workflow when the invoice closes. */
async function move(em: EntityManager, deps: Deps, orgId: string, id: string, event: InvoiceEvent): Promise<Reply> {
  const status = await em.fork().transactional(async (tx) => {
    const inv = await findInvoice(tx, orgId, id, undefined, true);
    inv.status = must(inv.status, event);
    await tx.flush();
    return inv.status as InvoiceStatus;
  });
  if (CLOSED_STATUSES.includes(status)) await signalInvoiceClosed(deps.temporal, id);
  return ok(await reload(em, orgId, id));
}

const listSpec: ListSpec = {
  filters: {},
  sorts: { InvoiceDate: 'invoiceDate', DueDate: 'dueDate', InvoiceNumber: 'invoiceNumber', Total: 'total' },
  defaultSort: 'InvoiceDate',
  names: { page: 'page', size: 'pageSize' },
};

/** `<scope>:<Idempotency-Key>`; without the header `<scope>:<derived>` when given (card money), else a fresh key. */
const idempotencyKey = (header: string | undefined, scope: string, derived?: string) =>
  header && header.trim() ? `${scope}:${header.trim().slice(0, 200)}` : `${scope}:${derived ?? randomUUID()}`;

const invoiceDoc = 'invoice: id, organizationId, orderId, orderNumber, invoiceNumber, externalId, status, invoiceDate, dueDate, terms, currencyCode, poNumber, notes, customer, primarySalesRep, items, payments, refunds, discount, subtotal, discountAmount, tax, total, amountPaid, balance (+ ...Formatted)';
const WRITE = ['Admin', 'SalesRep'] as const;
const READ = ['Admin', 'SalesRep', 'Customer'] as const;

export const invoiceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/invoices',
    summary: 'List invoices (query customerId = customer number, orderId, status, page, pageSize, sortOn, sortDirection); Customer tokens see their own',
    tag: 'Invoices',
    auth: READ,
    responses: { 200: '{ items: [invoice], totalCount, pageNumber, pageSize, totalPages }', 400: 'Bad status, orderId or paging', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      const raw = query as unknown as Record<string, unknown>;
      const get = (name: string) => {
        const k = Object.keys(raw).find((x) => x.toLowerCase() === name.toLowerCase());
        const v = k === undefined ? undefined : raw[k];
        return v === undefined || v === '' ? undefined : v;
      };
      const errors: Record<string, string[]> = {};
      const where: Record<string, unknown> = { organization: orgId, active: true };
      const customerId = get('customerId');
      const orderId = get('orderId');
      const status = get('status');
      if (customerId !== undefined) {
        if (typeof customerId !== 'string') errors.customerId = ['customerId must be a single value.'];
        else where.customerNumber = customerId;
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
        q = parseList(raw, listSpec);
      } catch (e) {
        if (e instanceof AppError && e.errors) Object.assign(errors, e.errors);
        else throw e;
      }
      if (Object.keys(errors).length || !q) throw AppError.validation(errors, 'Invalid query parameters.');
      if (auth.role === 'Customer' && !auth.isSuper) {
        if (where.customerNumber !== undefined && where.customerNumber !== auth.customerNumber) return ok(itemsEnvelope([], 0, q));
        where.customerNumber = auth.customerNumber ?? '\u0000';
      }
      const [rows, total] = await em.findAndCount(Invoice, where, {
        orderBy: [q.orderBy, { invoiceNumber: 'asc' }],
        limit: q.pageSize,
        offset: q.offset,
        populate: ['organization'],
      });
      const payments = rows.length ? await em.find(InvoicePayment, { invoice: { $in: rows.map((r) => r.id) } }) : [];
      return ok(itemsEnvelope(rows.map((r) => invoiceView(r, payments.filter((p) => p.invoice.id === r.id))), total, q));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices',
    summary: 'Create an invoice in Draft (number generated when omitted). active:false soft-deletes the invoice matching externalId or invoiceNumber (204)',
    tag: 'Invoices',
    auth: WRITE,
    body: createSchema,
    idempotent: true,
    responses: { 201: invoiceDoc, 204: 'active:false: the matching invoice was soft-deleted', 400: 'Invalid fields', 401: 'Unauthenticated', 403: 'Customer token', 404: 'active:false and no matching invoice', 409: 'invoiceNumber or externalId already used' },
    async handler({ em, orgId, body }) {
      if (body.active === false) {
        const match =
          (body.externalId ? await em.findOne(Invoice, { organization: orgId, externalId: body.externalId, active: true }) : null) ??
          (body.invoiceNumber ? await em.findOne(Invoice, { organization: orgId, invoiceNumber: body.invoiceNumber, active: true }) : null);
        if (!match) throw AppError.notFound('Invoice');
        match.active = false;
        await em.flush();
        return noContent();
      }
      const inv = await createInvoice(em, orgId, body);
      return created(await reload(em, orgId, inv.id));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/bulk',
    summary: `Create or update up to ${MAX_BULK} invoices (idempotent by externalId, then invoiceNumber; active:false soft-deletes the match)`,
    tag: 'Invoices',
    auth: WRITE,
    body: yup.object({ invoices: yup.array(createSchema).required().min(1, '${path} must have at least one invoice.').max(MAX_BULK, `\${path} must have at most ${MAX_BULK} invoices (use /api/imports for more).`) }),
    idempotent: true,
    responses: { 201: 'Array of { data: { id, invoiceNumber }, links: [{ rel, href }] }, one per invoice in order', 400: 'Invalid fields (named invoices[i].field) or more than 1000 invoices', 401: 'Unauthenticated', 403: 'Customer token', 409: 'An invoiceNumber or externalId clashes with another invoice' },
    async handler({ em, orgId, body }) {
      const out = [];
      for (const input of body.invoices) {
        const r = await upsertInvoice(em, orgId, input);
        out.push({ data: r, links: links(r.id) });
      }
      return created(out);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/invoices/:invoiceId',
    summary: 'Get an invoice with items and payments (Customer tokens: their own only)',
    tag: 'Invoices',
    auth: READ,
    responses: { 200: invoiceDoc, 401: 'Unauthenticated', 404: 'No such invoice in the organization (or not the customer’s)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await viewOf(em, await findInvoice(em, orgId, params.invoiceId, auth)));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/invoices/:invoiceId',
    summary: 'Update an invoice: any subset of the create fields while Draft; only notes and poNumber after; nothing once Voided or Cancelled',
    tag: 'Invoices',
    auth: WRITE,
    body: updateSchema,
    responses: { 200: invoiceDoc, 400: 'Invalid fields, or the field cannot change in this state', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice', 409: 'invoiceNumber or externalId already used' },
    async handler({ em, orgId, params, body }) {
      const fields = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
      try {
        await em.fork().transactional(async (tx) => {
          const inv = await findInvoice(tx, orgId, params.invoiceId, undefined, true);
          must(inv.status, { type: 'edit', fields });
          if (body.invoiceNumber && body.invoiceNumber !== inv.invoiceNumber && (await tx.count(Invoice, { organization: orgId, invoiceNumber: body.invoiceNumber }))) throw dupNumber(body.invoiceNumber);
          if (body.externalId && body.externalId !== inv.externalId && (await tx.count(Invoice, { organization: orgId, externalId: body.externalId }))) throw dupExternal(body.externalId);
          apply(inv, body);
          if (inv.status === 'Draft') recompute(inv);
          await tx.flush();
        });
      } catch (e) {
        translateUnique(e, body);
      }
      if (body.active === false) return ok(await viewOf(em.fork(), await em.fork().findOneOrFail(Invoice, { id: params.invoiceId }, { populate: ['organization'] })));
      return ok(await reload(em, orgId, params.invoiceId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/issue',
    summary: 'Issue a Draft invoice: Draft -> Issued, then the issueInvoice workflow renders the PDF, e-mails the customer and reminds on the due date',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: `${invoiceDoc} (status Issued)`, 400: 'The invoice is not Draft', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, params }) {
      const inv = await em.fork().transactional(async (tx) => {
        const i = await findInvoice(tx, orgId, params.invoiceId, undefined, true);
        i.status = must(i.status, { type: 'issue' });
        await tx.flush();
        return i;
      });
      await startOnce(deps.temporal, deps.config, {
        workflowType: 'issueInvoice',
        workflowId: invoiceWorkflowId(inv.id),
        args: [{ organizationId: orgId, invoiceId: inv.id, reminderDelaySeconds: deps.config.invoiceReminderDelayOverrideSeconds }],
        keys: { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber },
      });
      return ok(await reload(em, orgId, inv.id));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/invoices/:invoiceId/pdf',
    summary: 'Download the invoice PDF (available once the issuance workflow stored it)',
    tag: 'Invoices',
    auth: READ,
    responses: { 200: 'application/pdf (attachment)', 401: 'Unauthenticated', 404: 'No such invoice, or its PDF is not rendered yet' },
    async handler({ em, deps, orgId, auth, params }) {
      const inv = await findInvoice(em, orgId, params.invoiceId, auth);
      const data = inv.pdfKey ? await deps.storage.get(inv.pdfKey) : null;
      if (!data) throw new AppError('not_found', 'The invoice PDF is not available yet; it is rendered when the invoice is issued.');
      const file = `invoice-${inv.invoiceNumber.replace(/[^A-Za-z0-9._-]/g, '_')}.pdf`;
      return { status: 200, raw: { contentType: 'application/pdf', data }, headers: { 'Content-Disposition': `attachment; filename="${file}"` } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/payments',
    summary: 'Record a payment (offline EFT/Check/Wire/Cash, or a card on file by paymentProfileId charged through the provider); Idempotency-Key header supported',
    tag: 'Invoices',
    auth: WRITE,
    body: paymentSchema,
    responses: { 200: `${invoiceDoc}: the updated invoice (PartiallyPaid or Paid)`, 400: 'Invalid fields, amount not in (0, balance], currency mismatch, or the invoice is not payable', 401: 'Unauthenticated', 402: 'Card declined', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, params, body, ctx }) {
      const inv = await findInvoice(em, orgId, params.invoiceId);
      const amount = new Decimal(body.amount).toFixed();
      const status = body.status ?? 'Completed';
      if (body.paymentProfileId && status === 'Completed') {
        // Card money moves only in the payInvoiceByCard workflow (charge, then record, crash-safe).
        // Without an Idempotency-Key the key is derived from the invoice, the amount and what was paid so far.
        const key = idempotencyKey(ctx.get('Idempotency-Key'), `invoice-payment:${inv.id}`, `${amount}:${new Decimal(inv.amountPaid).toFixed()}`);
        if (!(await em.findOne(InvoicePayment, { organizationId: orgId, idempotencyKey: key }))) checkPayment(inv, { amount, currencyCode: body.currencyCode });
        const input: InvoiceCardPaymentInput = {
          organizationId: orgId,
          invoiceId: inv.id,
          amount,
          currencyCode: body.currencyCode,
          paymentProfileId: body.paymentProfileId,
          paymentDate: new Date(body.paymentDate).toISOString(),
          reference: body.reference ?? null,
          notes: body.notes ?? null,
          cardType: body.cardType ?? null,
          last4Digits: body.last4Digits ?? null,
          idempotencyKey: key,
        };
        await runWorkflow(deps.temporal, deps.config, {
          workflowType: 'payInvoiceByCard',
          workflowId: `invoice-payment-${key}`,
          args: [input],
          keys: { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber },
          waitMs: deps.config.checkoutWaitMs,
          what: 'The card payment',
        });
        return ok(await reload(em, orgId, inv.id));
      }
      const key = idempotencyKey(ctx.get('Idempotency-Key'), `invoice-payment:${inv.id}`);
      const result = await recordInvoicePayment(em, {
        organizationId: orgId,
        invoiceId: inv.id,
        amount,
        currencyCode: body.currencyCode,
        method: body.paymentProfileId ? 'Card' : body.method,
        paymentDate: new Date(body.paymentDate),
        reference: body.reference ?? null,
        notes: body.notes ?? null,
        paymentProfileId: body.paymentProfileId ?? null,
        cardType: body.cardType ?? null,
        last4Digits: body.last4Digits ?? null,
        idempotencyKey: key,
        status,
      });
      if (result.status === 'Paid') await signalInvoiceClosed(deps.temporal, inv.id);
      return ok(await reload(em, orgId, inv.id));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/refunds',
    summary: 'Refund up to the paid amount (a card payment through its provider); amountPaid, balance and status adjust',
    tag: 'Invoices',
    auth: ['Admin'],
    body: refundSchema,
    responses: { 200: `${invoiceDoc}: the updated invoice`, 400: 'Invalid amount, payment not refundable, or the invoice state forbids it', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such invoice or payment' },
    async handler({ em, deps, orgId, params, body, ctx }) {
      const inv = await findInvoice(em, orgId, params.invoiceId);
      const amount = new Decimal(body.amount);
      const payment = await refundTarget(em, inv, body.paymentId, amount);
      const refunded = payment ? payment.refundedAmount : inv.amountPaid;
      const refundKey = idempotencyKey(ctx.get('Idempotency-Key'), `invoice-refund:${inv.id}`, `${payment?.id ?? 'invoice'}:${amount.toFixed()}:${new Decimal(refunded).toFixed()}`);
      if (refundRecorded(inv, refundKey)) return ok(await reload(em, orgId, inv.id));
      checkRefund(inv, payment, amount);
      const refund: RefundInput = { organizationId: orgId, invoiceId: inv.id, paymentId: payment?.id ?? null, amount: amount.toFixed(), reason: body.reason ?? null, refundKey, providerRefunded: false };
      if (payment?.providerChargeId) {
        // Card money goes back through the provider in the refundInvoicePayment workflow (refund, then record).
        await runWorkflow(deps.temporal, deps.config, {
          workflowType: 'refundInvoicePayment',
          workflowId: `invoice-refund-${refundKey}`,
          args: [{ ...refund, chargeId: payment.providerChargeId }],
          keys: { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber },
          waitMs: deps.config.checkoutWaitMs,
          what: 'The refund',
        });
      } else {
        await applyInvoiceRefund(em, refund);
      }
      return ok(await reload(em, orgId, inv.id));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/discount',
    summary: 'Apply (replace) the discount of a Draft invoice: { code, type Percentage|Amount, value, description }',
    tag: 'Invoices',
    auth: WRITE,
    body: discountBody,
    responses: { 200: `${invoiceDoc}: totals recomputed`, 400: 'Invalid fields or the invoice is not Draft', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, orgId, params, body }) {
      await em.fork().transactional(async (tx) => {
        const inv = await findInvoice(tx, orgId, params.invoiceId, undefined, true);
        must(inv.status, { type: 'discount' });
        inv.discount = toDiscount(body);
        recompute(inv);
        await tx.flush();
      });
      return ok(await reload(em, orgId, params.invoiceId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/void',
    summary: 'Void a Draft or Issued invoice (irreversible; removed from receivables)',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: `${invoiceDoc} (status Voided)`, 400: 'The invoice is not Draft or Issued', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, params }) {
      return move(em, deps, orgId, params.invoiceId, { type: 'void' });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/cancel',
    summary: 'Cancel an invoice in any state except Voided or Cancelled (irreversible; record and payments kept)',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: `${invoiceDoc} (status Cancelled)`, 400: 'The invoice is already Voided or Cancelled', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, params }) {
      return move(em, deps, orgId, params.invoiceId, { type: 'cancel' });
    },
  }),
];

// Hosted payments set up for an invoice (invoiceId or invoiceNumber) resolve here: only this
// organization's active, payable invoices (Issued or PartiallyPaid) can be paid on the hosted page.
registerHostedInvoiceResolver(async (em, orgId, ref) => {
  if (ref.invoiceId && !UUID_RE.test(ref.invoiceId)) return null;
  const where = ref.invoiceId ? { id: ref.invoiceId } : { invoiceNumber: ref.invoiceNumber ?? '' };
  const inv = await em.findOne(Invoice, { organization: orgId, active: true, ...where });
  if (!inv) return null;
  if (inv.status !== 'Issued' && inv.status !== 'PartiallyPaid')
    throw AppError.field(ref.invoiceId ? 'invoiceId' : 'invoiceNumber', `The invoice is ${inv.status}; only Issued or PartiallyPaid invoices can be paid.`);
  return { invoiceId: inv.id, invoiceNumber: inv.invoiceNumber, customerNumber: inv.customerNumber, currencyCode: inv.currencyCode };
});
