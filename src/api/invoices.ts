/**
 * Invoice endpoints (SPEC "Invoice endpoints", DESIGN "Decisions"): create, bulk create
 * (idempotent by externalId / invoiceNumber, active:false soft-deletes), list, read, update
 * (Draft; notes/poNumber later), issue (starts the issueInvoice workflow), PDF download,
 * payments (offline, or a card on file through the payment gateway), refunds, discount,
 * void and cancel. Status moves go through src/domain/invoices/state.ts; money through
 * src/domain/invoices/money.ts. Decisions are written down in docs/invoices.md.
 */
import * as yup from 'yup';
import { created, defineRoute, empty, file, json, noContent, ok } from '../http/route.js';
import {
  createInvoiceFor,
  invoiceListSpec,
  listInvoices,
  move,
  softDeleteMatching,
  updateInvoice,
} from '../services/invoices/invoices.js';
import { applyDiscount, invoicePdf, issueDraftInvoice, readInvoice } from '../services/invoices/lifecycle.js';
import { upsertInvoicesFor } from '../services/imports/sync.js';
import { payInvoice, refundInvoice, type PaymentStatus } from '../services/payments/invoice-payments.js';
import { createSchema, discountFields, isoDate, str, updateSchema } from '../domain/invoices/schemas.js';
import { currencyCode, uuid } from './schemas.js';
import * as out from '../domain/contract.js';
import { INVOICE_STATUSES } from '../domain/invoices/state.js';
import { invoice, invoicePage, link } from '../domain/resources.js';

const createdInvoice = out.component('CreatedInvoice', out.obj({ data: out.obj({ id: out.uuid(), invoiceNumber: out.str() }), links: out.arr(link) }));

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

const WRITE = ['Admin', 'SalesRep'] as const;
const READ = ['Admin', 'SalesRep', 'Customer'] as const;

export const invoiceRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/invoices',
    operationId: 'listInvoices',
    summary: 'List invoices (query customerId = customer number, orderId, status, page, pageSize, sortOn, sortDirection); Customer tokens see their own',
    tag: 'Invoices',
    auth: READ,
    paged: invoiceListSpec,
    queryParams: {
      customerId: { description: 'A customer number: only that customer\'s invoices', schema: { type: 'string', maxLength: 50 } },
      orderId: { description: 'Only invoices of this order', schema: { type: 'string', format: 'uuid' } },
      status: { description: 'Only invoices in this status', schema: { type: 'string', enum: [...INVOICE_STATUSES] } },
    },
    responses: { 200: json(invoicePage, 'A page of invoices'), 400: 'Bad status, orderId or paging', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listInvoices(em, orgId, auth, query));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices',
    operationId: 'createInvoice',
    summary: 'Create an invoice in Draft (number generated when omitted). active:false soft-deletes the invoice matching externalId or invoiceNumber (204)',
    tag: 'Invoices',
    auth: WRITE,
    body: createSchema,
    responses: { 201: json(invoice, 'The created invoice (Draft)'), 204: empty('active:false: the matching invoice was soft-deleted'), 400: 'Invalid fields (a SalesRep\'s lines: items[i].sku or .quantity not in the catalog)', 401: 'Unauthenticated', 403: 'Customer token; a SalesRep\'s unassigned customer, or importedInvoiceTotal/importedBalance from a SalesRep (errors name the field)', 404: 'active:false and no matching invoice', 409: 'invoiceNumber or externalId already used' },
    async handler({ em, orgId, auth, body }) {
      if (body.active === false) {
        await softDeleteMatching(em, orgId, auth, body);
        return noContent();
      }
      const invoice = await createInvoiceFor(em, orgId, auth, body);
      return created(invoice, `/api/invoices/${invoice.id}`);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/bulk',
    operationId: 'createInvoicesInBulk',
    summary: `Create or update up to ${MAX_BULK} invoices (idempotent by externalId, then invoiceNumber; active:false soft-deletes the match)`,
    tag: 'Invoices',
    auth: WRITE,
    body: yup.object({ invoices: yup.array(createSchema).required().min(1, '${path} must have at least one invoice.').max(MAX_BULK, `\${path} must have at most ${MAX_BULK} invoices (use /api/imports for more).`) }),
    responses: { 201: json(out.arr(createdInvoice), 'One entry per invoice, in input order'), 400: 'Invalid fields (named invoices[i].field) or more than 1000 invoices', 401: 'Unauthenticated', 403: 'Customer token; a SalesRep\'s entry for an unassigned customer or with importedInvoiceTotal/importedBalance (errors name invoices[i].field)', 404: 'A SalesRep\'s entry whose externalId or invoiceNumber names an invoice it may not see (errors name invoices[i].field); nothing changes', 409: 'An invoiceNumber or externalId clashes with another invoice' },
    async handler({ em, orgId, auth, body, deps }) {
      return created(await upsertInvoicesFor(em, deps.config.databaseUrl, orgId, auth, body.invoices), '/api/invoices');
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/invoices/:invoiceId',
    operationId: 'getInvoice',
    summary: 'Get an invoice with items and payments (Customer tokens: their own only)',
    tag: 'Invoices',
    auth: READ,
    responses: { 200: json(invoice, 'The invoice'), 401: 'Unauthenticated', 404: 'No such invoice in the organization (or not the customer’s)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readInvoice(em, orgId, auth, params.invoiceId));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/invoices/:invoiceId',
    operationId: 'updateInvoice',
    summary: 'Update an invoice: any subset of the create fields while Draft; only notes and poNumber after; nothing once Voided or Cancelled',
    tag: 'Invoices',
    auth: WRITE,
    body: updateSchema,
    responses: { 200: json(invoice, 'The invoice'), 400: 'Invalid fields, or the field cannot change in this state', 401: 'Unauthenticated', 403: 'Customer token; importedInvoiceTotal/importedBalance changed by a SalesRep (errors name the field)', 404: 'No such invoice', 409: 'invoiceNumber or externalId already used' },
    async handler({ em, orgId, auth, params, body }) {
      return ok(await updateInvoice(em, orgId, auth, params.invoiceId, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/issue',
    operationId: 'issueInvoice',
    summary: 'Issue a Draft invoice: Draft -> Issued, then the issueInvoice workflow renders the PDF, e-mails the customer and reminds on the due date',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: json(invoice, 'The invoice (status Issued)'), 400: 'The invoice is not Draft', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await issueDraftInvoice(em, deps, orgId, auth, params.invoiceId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/invoices/:invoiceId/pdf',
    operationId: 'getInvoicePdf',
    summary: 'Download the invoice PDF (available once the issuance workflow stored it)',
    tag: 'Invoices',
    auth: READ,
    responses: { 200: file('application/pdf', 'The invoice PDF (attachment)'), 401: 'Unauthenticated', 404: 'No such invoice, or its PDF is not rendered yet' },
    async handler({ em, deps, orgId, auth, params }) {
      const pdf = await invoicePdf(em, deps, orgId, auth, params.invoiceId);
      return { status: 200, raw: { contentType: 'application/pdf', data: pdf.data }, headers: { 'Content-Disposition': `attachment; filename="${pdf.fileName}"` } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/payments',
    operationId: 'recordInvoicePayment',
    summary: 'Record a payment (offline EFT/Check/Wire/Cash, or a card on file by paymentProfileId charged through the provider); Idempotency-Key header supported',
    tag: 'Invoices',
    auth: WRITE,
    body: paymentSchema,
    responses: { 200: json(invoice, 'The invoice: the updated invoice (PartiallyPaid or Paid)'), 400: 'Invalid fields, amount not in (0, balance], currency mismatch, or the invoice is not payable', 401: 'Unauthenticated', 402: 'Card declined', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, auth, params, body, ctx }) {
      return ok(await payInvoice(em, deps, orgId, auth, params.invoiceId, body, ctx.get('Idempotency-Key')));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/refunds',
    operationId: 'refundInvoicePayment',
    summary: 'Refund up to the paid amount (a card payment through its provider); amountPaid, balance and status adjust',
    tag: 'Invoices',
    auth: ['Admin'],
    body: refundSchema,
    responses: { 200: json(invoice, 'The invoice: the updated invoice'), 400: 'Invalid amount, payment not refundable, or the invoice state forbids it', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such invoice or payment' },
    async handler({ em, deps, orgId, auth, params, body, ctx }) {
      return ok(await refundInvoice(em, deps, orgId, auth, params.invoiceId, body, ctx.get('Idempotency-Key')));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/discount',
    operationId: 'applyInvoiceDiscount',
    summary: 'Apply (replace) the discount of a Draft invoice: { code, type Percentage|Amount, value, description }',
    tag: 'Invoices',
    auth: WRITE,
    body: discountBody,
    responses: { 200: json(invoice, 'The invoice: totals recomputed'), 400: 'Invalid fields or the invoice is not Draft', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, orgId, auth, params, body }) {
      return ok(await applyDiscount(em, orgId, auth, params.invoiceId, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/void',
    operationId: 'voidInvoice',
    summary: 'Void a Draft or Issued invoice (irreversible; removed from receivables)',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: json(invoice, 'The invoice (status Voided)'), 400: 'The invoice is not Draft or Issued', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await move(em, deps.temporal, orgId, auth, params.invoiceId, { type: 'void' }));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/invoices/:invoiceId/cancel',
    operationId: 'cancelInvoice',
    summary: 'Cancel an invoice in any state except Voided or Cancelled (irreversible; record and payments kept)',
    tag: 'Invoices',
    auth: WRITE,
    responses: { 200: json(invoice, 'The invoice (status Cancelled)'), 400: 'The invoice is already Voided or Cancelled', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such invoice' },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await move(em, deps.temporal, orgId, auth, params.invoiceId, { type: 'cancel' }));
    },
  }),
];
