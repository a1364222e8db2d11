/**
 * Invoice endpoints (SPEC "Invoice endpoints", DESIGN "Decisions"): create, bulk create
 * (idempotent by externalId / invoiceNumber, active:false soft-deletes), list, read, update
 * (Draft; notes/poNumber later), issue (starts the issueInvoice workflow), PDF download,
 * payments (offline, or a card on file through the payment gateway), refunds, discount,
 * void and cancel. Status moves go through src/domain/invoices/state.ts; money through
 * src/domain/invoices/money.ts. Decisions are written down in docs/invoices.md.
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import * as yup from 'yup';
import { InvoicePayment } from '../entities/index.js';
import type { PaymentStatus } from '../entities/Invoice.js';
import { AppError } from '../errors.js';
import { created, defineRoute, noContent, ok } from '../http/route.js';
import { startOnce } from '../integrations/temporal.js';
import type { InvoiceCardPaymentInput } from '../workflows/invoice-payments.js';
import { applyInvoiceRefund, checkRefund, refundRecorded, refundTarget, type RefundInput } from '../services/invoices/card-payments.js';
import { runWorkflow } from '../workflow-runs.js';
import {
  createInvoiceFor,
  findInvoice,
  listInvoices,
  markIssued,
  move,
  must,
  recompute,
  reload,
  softDeleteMatching,
  toDiscount,
  updateInvoice,
  viewOf,
} from '../services/invoices/invoices.js';
import { upsertInvoicesFor } from '../services/invoices/bulk.js';
import { checkPayment, recordInvoicePayment } from '../services/invoices/record-payment.js';
import { invoiceWorkflowId, signalInvoiceClosed } from '../services/invoices/signal.js';
import { findActivePaymentMethod } from '../services/payments/methods.js';
import { createSchema, discountFields, isoDate, str, updateSchema } from '../domain/invoices/schemas.js';
import { currencyCode, uuid } from './schemas.js';

const MAX_BULK = 1000;
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
  status: yup.string<PaymentStatus>().oneOf(['Completed', 'Pending', 'Failed'] as const, '${path} must be one of Completed, Pending, Failed.'),
});
const refundSchema = yup.object({ amount: yup.number().required(), paymentId: uuid().nullable(), reason: yup.string().trim().max(500).nullable() });
const discountBody = yup.object(discountFields);

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
      return ok(await listInvoices(em, orgId, auth, query));
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
    responses: { 201: invoiceDoc, 204: 'active:false: the matching invoice was soft-deleted', 400: 'Invalid fields (a SalesRep\'s lines: items[i].sku or .quantity not in the catalog)', 401: 'Unauthenticated', 403: 'Customer token; a SalesRep\'s unassigned customer, or importedInvoiceTotal/importedBalance from a SalesRep (errors name the field)', 404: 'active:false and no matching invoice', 409: 'invoiceNumber or externalId already used' },
    async handler({ em, orgId, auth, body }) {
      if (body.active === false) {
        await softDeleteMatching(em, orgId, auth, body);
        return noContent();
      }
      return created(await createInvoiceFor(em, orgId, auth, body));
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
    responses: { 201: 'Array of { data: { id, invoiceNumber }, links: [{ rel, href }] }, one per invoice in order', 400: 'Invalid fields (named invoices[i].field) or more than 1000 invoices', 401: 'Unauthenticated', 403: 'Customer token; a SalesRep\'s entry for an unassigned customer or with importedInvoiceTotal/importedBalance (errors name invoices[i].field)', 404: 'A SalesRep\'s entry whose externalId or invoiceNumber names an invoice it may not see (errors name invoices[i].field); nothing changes', 409: 'An invoiceNumber or externalId clashes with another invoice' },
    async handler({ em, orgId, auth, body, deps }) {
      return created(await upsertInvoicesFor(em, deps.config.databaseUrl, orgId, auth, body.invoices));
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
    responses: { 200: invoiceDoc, 400: 'Invalid fields, or the field cannot change in this state', 401: 'Unauthenticated', 403: 'Customer token; importedInvoiceTotal/importedBalance changed by a SalesRep (errors name the field)', 404: 'No such invoice', 409: 'invoiceNumber or externalId already used' },
    async handler({ em, orgId, auth, params, body }) {
      return ok(await updateInvoice(em, orgId, auth, params.invoiceId, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/issue',
    summary: 'Issue a Draft invoice: Draft -> Issued, then the issueInvoice workflow renders the PDF, e-mails the customer and reminds on the due date',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: `${invoiceDoc} (status Issued)`, 400: 'The invoice is not Draft', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, auth, params }) {
      const inv = await markIssued(em, orgId, auth, params.invoiceId);
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
    async handler({ em, deps, orgId, auth, params, body, ctx }) {
      const inv = await findInvoice(em, orgId, params.invoiceId, auth);
      if (body.paymentProfileId) await findActivePaymentMethod(em, orgId, inv.customerNumber, body.paymentProfileId);
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
    async handler({ em, deps, orgId, auth, params, body, ctx }) {
      const inv = await findInvoice(em, orgId, params.invoiceId, auth);
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
    async handler({ em, orgId, auth, params, body }) {
      await em.fork().transactional(async (tx) => {
        const inv = await findInvoice(tx, orgId, params.invoiceId, auth, true);
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
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await move(em, deps.temporal, orgId, auth, params.invoiceId, { type: 'void' }));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/cancel',
    summary: 'Cancel an invoice in any state except Voided or Cancelled (irreversible; record and payments kept)',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: `${invoiceDoc} (status Cancelled)`, 400: 'The invoice is already Voided or Cancelled', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await move(em, deps.temporal, orgId, auth, params.invoiceId, { type: 'cancel' }));
    },
  }),
];
