/**
 * Credit note endpoints (issue 42 item 3; docs/returns.md "Credit notes"): issue for an invoice
 * (Admin), apply available credit (Admin, the customer's SalesRep), list and read (Admin, the
 * customer's SalesRep, the customer's own users), the PDF.
 */
import * as yup from 'yup';
import { created, defineRoute, file, json, ok } from '../http/route.js';
import { applyCreditNote, creditNoteListSpec, creditNotePdf, issueCreditNote, listCreditNotes, readCreditNote } from '../services/credit-notes/credit-notes.js';
import { creditNote, creditNotePage } from '../domain/credit-notes/resources.js';
import { uuid } from './schemas.js';

const APPLY_MODES = ['OldestFirst', 'Chosen', 'None'] as const;
const applyTo = yup
  .array(yup.object({ invoiceId: uuid().required(), amount: yup.number().required().moreThan(0, '${path} must be greater than 0.') }))
  .max(200, '${path} must have at most 200 entries.')
  .nullable();
const applyFields = {
  apply: yup.string<(typeof APPLY_MODES)[number]>().oneOf([...APPLY_MODES], '${path} must be one of OldestFirst, Chosen, None.'),
  applyTo,
};
const issueSchema = yup.object({
  invoiceId: uuid().required(),
  amount: yup.number().moreThan(0, '${path} must be greater than 0.').nullable(),
  lines: yup
    .array(yup.object({ sku: yup.string().trim().max(100).required(), quantity: yup.number().integer('${path} must be a whole number.').moreThan(0, '${path} must be greater than 0.').required() }))
    .max(500, '${path} must have at most 500 lines.')
    .nullable(),
  reason: yup.string().trim().min(1).max(1000).required(),
  ...applyFields,
});
const applySchema = yup.object(applyFields);

const READ = ['Admin', 'SalesRep', 'Customer'] as const;

export const creditNoteRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/credit-notes',
    operationId: 'listCreditNotes',
    summary: 'List credit notes (filters creditNoteNumber, customerNumber, invoiceNumber, orderNumber, currencyCode, createdAt; shortcuts invoiceId, orderId, customerNumber); Customer tokens see their own',
    tag: 'Credit notes',
    auth: READ,
    paged: creditNoteListSpec,
    queryParams: {
      invoiceId: { description: 'Only credit notes of this invoice', schema: { type: 'string', format: 'uuid' } },
      orderId: { description: 'Only credit notes of this order', schema: { type: 'string', format: 'uuid' } },
      customerNumber: { description: 'Only credit notes of this customer', schema: { type: 'string', maxLength: 100 } },
    },
    responses: { 200: json(creditNotePage, 'A page of credit notes'), 400: 'Bad filters, ids or paging', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listCreditNotes(em, orgId, auth, query));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/credit-notes',
    operationId: 'issueCreditNote',
    summary: 'Issue a credit note for an invoice (lines or an amount, a reason; never above what is still creditable) and apply it to the customer’s open invoices oldest due first (default), as chosen (applyTo), or not at all (apply None: available credit)',
    tag: 'Credit notes',
    auth: ['Admin'],
    body: issueSchema,
    requestExample: { invoiceId: '3f1c2a9e-1111-4c3b-9a57-6f1f0c8e2a10', lines: [{ sku: 'WIDGET-1', quantity: 2 }], reason: 'Two units damaged in transit' },
    responses: {
      201: json(creditNote, 'The credit note with its applications'),
      400: 'Invalid fields: neither lines nor amount, a line not on the invoice or over what is left, an amount above what is creditable, applyTo over a balance or an unknown invoice (errors name the field)',
      401: 'Unauthenticated',
      403: 'Not Admin',
      404: 'No invoice you may see has this id',
      409: 'The invoice is Draft, Voided or Cancelled',
    },
    async handler({ em, deps, orgId, auth, body }) {
      const cn = await issueCreditNote(em, deps, orgId, auth, body);
      return created(cn, `/api/credit-notes/${cn.creditNoteId}`);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/credit-notes/:creditNoteId',
    operationId: 'getCreditNote',
    summary: 'Read a credit note with its lines and applications (Customer tokens: their own only)',
    tag: 'Credit notes',
    auth: READ,
    responses: { 200: json(creditNote, 'The credit note'), 401: 'Unauthenticated', 404: 'No such credit note (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readCreditNote(em, orgId, auth, params.creditNoteId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/credit-notes/:creditNoteId/apply',
    operationId: 'applyCreditNote',
    summary: "Apply a credit note's available credit to the customer's open invoices: oldest due first (default) or as chosen (applyTo)",
    tag: 'Credit notes',
    auth: ['Admin', 'SalesRep'],
    body: applySchema,
    responses: {
      200: json(creditNote, 'The credit note with its applications'),
      400: 'Invalid fields: apply None, applyTo over a balance, over the available credit or naming an invoice that is not open (errors name the field)',
      401: 'Unauthenticated',
      403: 'Customer token, or a SalesRep of another customer',
      404: 'No such credit note (or not visible)',
      409: 'Nothing left to apply, or no open invoice to apply it to',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await applyCreditNote(em, deps, orgId, auth, params.creditNoteId, body));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/credit-notes/:creditNoteId/pdf',
    operationId: 'getCreditNotePdf',
    summary: 'Download the credit note PDF (stored in object storage)',
    tag: 'Credit notes',
    auth: READ,
    responses: { 200: file('application/pdf', 'The credit note PDF (attachment)'), 401: 'Unauthenticated', 404: 'No such credit note (or not visible)' },
    async handler({ em, deps, orgId, auth, params }) {
      const pdf = await creditNotePdf(em, deps.storage, orgId, auth, params.creditNoteId);
      return { status: 200, raw: { contentType: 'application/pdf', data: pdf.data }, headers: { 'Content-Disposition': `attachment; filename="${pdf.fileName}"` } };
    },
  }),
];
