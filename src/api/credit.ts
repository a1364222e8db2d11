/**
 * Credit routes (docs/credit.md): payment terms of the organization (Admin, PascalCase like the
 * other organization endpoints), a customer's credit account (terms, limit, balance, hold; Admin
 * changes it, reps and the customer's own users read it), and its statement of account (JSON and
 * PDF, same readers).
 */
import * as yup from 'yup';
import { dayOf } from '../domain/dates.js';
import { creditAccount, paymentTerm, paymentTermPage, statement } from '../domain/credit/resources.js';
import { TERM_TYPES } from '../domain/credit/terms.js';
import { created, defineRoute, empty, file, json, LOCATION, noContent, ok } from '../http/route.js';
import { readCreditAccount, setCreditAccount } from '../services/credit/accounts.js';
import { readStatement, statementPdf } from '../services/credit/statement.js';
import { createPaymentTerm, deletePaymentTerm, findPaymentTerm, listPaymentTerms, paymentTermListSpec, paymentTermView, updatePaymentTerm } from '../services/credit/terms.js';
import { dayInput, uuid } from './schemas.js';

const termBody = yup.object({
  Name: yup.string().trim().min(1).max(100).required(),
  Type: yup.string().oneOf(TERM_TYPES).required(),
  Days: yup.number().integer().min(0).max(365).nullable(),
});
const TERM = json(paymentTerm, 'The payment term');
const ACCOUNT = json(creditAccount, "The customer's credit account");
/** The statement's day: a date (2026-01-31) or a date-time at midnight UTC (src/domain/dates.ts); today (UTC) when absent. */
const statementQuery = yup.object({ asOf: dayInput().meta({ description: 'The day to age the invoices to (YYYY-MM-DD, UTC); today when absent' }) });
const asOfDay = (q: { asOf?: string }) => (q.asOf ? (dayOf(q.asOf) ?? q.asOf) : undefined);

export const creditRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/organizations/payment-terms',
    operationId: 'listPaymentTerms',
    summary: 'List the payment terms of the organization (page, size, sort Name|Days, direction, filters on Name, Type)',
    tag: 'Credit',
    auth: ['Admin'],
    paged: paymentTermListSpec,
    responses: { 200: json(paymentTermPage, 'A page of payment terms'), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      return ok(await listPaymentTerms(em, orgId, query));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/organizations/payment-terms',
    operationId: 'createPaymentTerm',
    summary: 'Create payment terms: Net N days, DueOnReceipt, or EndOfMonth + N days',
    tag: 'Credit',
    auth: ['Admin'],
    body: termBody,
    responses: { 201: json(paymentTerm, 'The created payment term', { headers: LOCATION }), 400: 'Missing or invalid Name, Type or Days', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'The name is already used' },
    async handler({ em, orgId, body }) {
      const term = await createPaymentTerm(em, orgId, body);
      return created(term, `/api/organizations/payment-terms/${term.PaymentTermId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/organizations/payment-terms/:paymentTermId',
    operationId: 'getPaymentTerm',
    summary: 'One payment term',
    tag: 'Credit',
    auth: ['Admin'],
    responses: { 200: TERM, 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such payment term' },
    async handler({ em, orgId, params }) {
      return ok(paymentTermView(await findPaymentTerm(em, orgId, params.paymentTermId)));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/organizations/payment-terms/:paymentTermId',
    operationId: 'updatePaymentTerm',
    summary: 'Change payment terms (invoices already issued keep their due dates)',
    tag: 'Credit',
    auth: ['Admin'],
    body: termBody,
    responses: { 200: TERM, 400: 'Missing or invalid Name, Type or Days', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such payment term', 409: 'The name is already used' },
    async handler({ em, orgId, params, body }) {
      return ok(await updatePaymentTerm(em, orgId, params.paymentTermId, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/organizations/payment-terms/:paymentTermId',
    operationId: 'deletePaymentTerm',
    summary: 'Delete payment terms no customer uses',
    tag: 'Credit',
    auth: ['Admin'],
    responses: { 204: empty('Deleted'), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such payment term', 409: 'A customer uses it as its default terms' },
    async handler({ em, orgId, params }) {
      await deletePaymentTerm(em, orgId, params.paymentTermId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/customers/:customerNumber/credit',
    operationId: 'getCustomerCredit',
    summary: "A customer's credit account: default payment terms, credit limit, open balance (unpaid invoices and uninvoiced on-account orders), available credit, credit hold",
    tag: 'Credit',
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: ACCOUNT, 401: 'Unauthenticated', 404: 'No such customer (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readCreditAccount(em, orgId, auth, params.customerNumber));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/customers/:customerNumber/credit',
    operationId: 'setCustomerCredit',
    summary: "Set a customer's default payment terms (paymentTermId, null for none) and credit limit (decimal in the customer's currency; null: no on-account buying). Admin only",
    tag: 'Credit',
    auth: ['Admin'],
    body: yup.object({ paymentTermId: uuid().nullable(), creditLimit: yup.number().min(0).max(1e13).nullable() }),
    responses: { 200: ACCOUNT, 400: 'A negative or malformed limit', 401: 'Unauthenticated', 403: 'Not Admin (reps cannot change terms or limits)', 404: 'No such customer, or no such payment term' },
    async handler({ em, orgId, auth, params, body }) {
      return ok(await setCreditAccount(em, orgId, auth, params.customerNumber, body));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/customers/:customerNumber/statement',
    operationId: 'getCustomerStatement',
    reads: 'replica',
    summary: 'Statement of account as of a day: open invoices with days overdue and aging bucket, aging (current, 1-30, 31-60, 61-90, 90+ days past due), credit limit, open balance, available credit and hold',
    description:
      'Invoices dated after `asOf` are left out; each open invoice is aged by whole UTC days from its due day to `asOf`. Balances, the credit position and the hold are the current ones (docs/credit.md "Statement of account"). The PDF variant is `GET /api/customers/{customerNumber}/statement/pdf`.',
    tag: 'Credit',
    auth: ['Admin', 'SalesRep', 'Customer'],
    query: statementQuery,
    responses: { 200: json(statement, 'The statement of account'), 400: 'asOf is not a day', 401: 'Unauthenticated', 404: 'No such customer (or not visible)' },
    async handler({ em, orgId, auth, params, query }) {
      return ok(await readStatement(em, orgId, auth, params.customerNumber, asOfDay(query)));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/customers/:customerNumber/statement/pdf',
    operationId: 'getCustomerStatementPdf',
    summary: 'The statement of account as a PDF (rendered on request and stored in object storage under documents/statements/)',
    tag: 'Credit',
    auth: ['Admin', 'SalesRep', 'Customer'],
    query: statementQuery,
    responses: { 200: file('application/pdf', 'The statement PDF (attachment)'), 400: 'asOf is not a day', 401: 'Unauthenticated', 404: 'No such customer (or not visible)' },
    async handler({ em, deps, orgId, auth, params, query }) {
      const pdf = await statementPdf(em, deps.storage, orgId, auth, params.customerNumber, asOfDay(query));
      return { status: 200, raw: { contentType: 'application/pdf', data: pdf.data }, headers: { 'Content-Disposition': `attachment; filename="${pdf.fileName}"` } };
    },
  }),
];
