/**
 * Quotes (docs/quotes.md): a buyer (Customer user, or a rep/admin for a customer) requests a
 * quote, the seller (the customer's rep or an admin) answers with offers, the buyer counters,
 * accepts (an order at the quoted prices) or rejects. Every step is an update of workflow
 * negotiateQuote (`quote-<quoteId>`) answering the quote as it now stands; a step the state rules
 * out is a 409. Use cases: src/services/quotes/quotes.ts.
 */
import * as yup from 'yup';
import { accepted, defineRoute, created, json, LOCATION, ok } from '../http/route.js';
import * as out from '../domain/contract.js';
import { quote, quotePage } from '../domain/resources.js';
import { acceptQuote, counterQuote, listQuotes, offerQuote, quoteListSpec, readQuote, rejectQuote, requestQuote } from '../services/quotes/quotes.js';
import { paymentChoice, uuid } from './schemas.js';

const TAG = 'Quotes';
const sku = () => yup.string().trim().min(1).max(100).required();
const quantity = () => yup.number().integer().min(1).max(1_000_000).required();
const price = () => yup.number().min(0).max(1e12).nullable();
const text = (max: number) => yup.string().trim().max(max).nullable();
const isoTime = () => yup.string().test('iso', '${path} must be an ISO 8601 date-time.', (v) => v === undefined || v === null || (/^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v))));

/** A buyer's line: what and how many, optionally the price it hopes for; never a price of its own (unknown fields are refused). */
const buyerLine = yup.object({ sku: sku(), quantity: quantity(), targetPrice: price() }).noUnknown('${path} has fields a buyer cannot set: ${unknown}.');
const requestSchema = yup.object({
  customerNumber: yup.string().trim().min(1).max(100).required(),
  items: yup.array(buyerLine.required()).max(200),
  notes: text(2000),
  cartId: uuid().nullable(),
});
const offerSchema = yup.object({
  items: yup.array(yup.object({ sku: sku(), quantity: quantity(), unitPrice: price() }).required()).max(200).nullable(),
  discountPercent: yup.number().min(0).max(100).nullable(),
  expiresAt: isoTime().nullable(),
  message: text(2000),
});
const counterSchema = yup.object({ items: yup.array(buyerLine.required()).min(1).max(200).required(), message: text(2000) });
/** The accept takes complete-checkout's payment choices: on account (the default), a saved card, or card details. */
const acceptSchema = yup.object({ poNumber: text(100), paymentProfileId: yup.string().trim().max(200).nullable(), payment: paymentChoice() });
const rejectSchema = yup.object({ reason: yup.string().trim().min(1, '${path} must not be empty.').max(1000).required() });
const listQuery = yup.object({
  pageNumber: yup.number().integer().min(1),
  pageSize: yup.number().integer().min(1).max(500),
  sortOn: yup.string(),
  sortDirection: yup.string(),
  filters: yup.mixed().meta({ openapi: { type: 'string', maxLength: 4000, description: 'JSON array of { field, operator, value } (or the qs bracket form filters[0][field]=...), all must hold' } }),
  status: yup.string(),
  customerNumber: yup.string().max(100),
});

const QUOTE = json(quote, 'The quote as it now stands, with every version');
const STEP = { 200: QUOTE, 400: 'Invalid fields', 401: 'Unauthenticated', 403: 'Role not allowed for this step', 404: 'No such quote (or not visible)', 409: 'The quote is not in a state that allows this step (or another step is being recorded)' };

export const quoteRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/quotes',
    operationId: 'requestQuote',
    summary:
      'Request a quote for a customer: items (sku, quantity, optional targetPrice), notes, or a cartId to start from. Customers for themselves, reps for their customers, admins for any. Starts workflow quote-<quoteId> (search attributes OrganizationId, CustomerNumber, QuoteNumber); webhook quote.requested',
    tag: TAG,
    auth: ['Admin', 'SalesRep', 'Customer'],
    body: requestSchema,
    responses: { 201: json(quote, 'The quote (Requested)', { headers: LOCATION }), 400: 'Invalid fields (unknown SKU, quantity rules, no lines)', 401: 'Unauthenticated', 403: 'Role not allowed', 404: 'No such customer or cart (or not visible)' },
    async handler({ em, deps, orgId, auth, body }) {
      const view = await requestQuote({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, body);
      return created(view, `/api/quotes/${view.quoteId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/quotes',
    operationId: 'listQuotes',
    summary: 'List the quotes the caller may see (pageNumber, pageSize, sortOn CreatedAt|QuoteNumber|Status|CustomerNumber|ExpiresAt, filters on status, customerNumber, quoteNumber, createdAt; shortcuts ?status= and ?customerNumber=)',
    tag: TAG,
    auth: ['Admin', 'SalesRep', 'Customer'],
    query: listQuery,
    paged: quoteListSpec,
    responses: { 200: json(quotePage, 'A page of quotes (generic envelope)'), 400: 'Bad paging, sorting or filter', 401: 'Unauthenticated', 403: 'Role not allowed' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listQuotes(em, orgId, auth, query as Record<string, unknown>));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/quotes/:quoteId',
    operationId: 'getQuote',
    summary: 'Read a quote with every version',
    tag: TAG,
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: QUOTE, 401: 'Unauthenticated', 403: 'Role not allowed', 404: 'No such quote (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readQuote(em, orgId, auth, params.quoteId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/quotes/:quoteId/offers',
    operationId: 'offerQuote',
    summary:
      "The seller's offer (Requested or Countered -> Quoted): per-line unitPrice (default: the customer's tier price at the quantity, quantity breaks applied; lines default to the buyer's latest), discountPercent, expiresAt (default QUOTE_VALIDITY), message. Webhook quote.updated",
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    body: offerSchema,
    responses: STEP,
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await offerQuote({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.quoteId, body));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/quotes/:quoteId/counter',
    operationId: 'counterQuote',
    summary: "The buyer's counter-offer (Quoted -> Countered): items with quantities and target prices (a buyer never sets unitPrice), message. Webhook quote.updated",
    tag: TAG,
    auth: ['Admin', 'Customer'],
    body: counterSchema,
    responses: STEP,
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await counterQuote({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.quoteId, body));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/quotes/:quoteId/accept',
    operationId: 'acceptQuote',
    summary:
      "Accept the current offer (Quoted, before expiresAt): creates the order at the quoted net unit prices (channel Quote, linked by quoteId), then its invoice (Issued) and the confirmation e-mail. Payment as complete-checkout takes it: on account against the customer's credit limit (the default, or payment.method OnAccount), a saved card (paymentProfileId) or card details (payment.creditCard, tokenized first), charged once by the quote's workflow. Above the buyer's spending limits the accept is held for an approval (202; the quote stays Quoted until the decision). Once only: a second accept is a 409. Webhook quote.accepted",
    tag: TAG,
    auth: ['Admin', 'Customer'],
    body: acceptSchema,
    responses: {
      ...STEP,
      202: json(
        out.component('AcceptPendingApproval', out.obj({ status: out.doc(out.str(), 'PendingApproval'), approvalId: out.str() })),
        "The offer's total exceeds the buyer's spending limits: nothing was charged or ordered; the quote stays Quoted and is accepted once the approval is approved (docs/approvals.md)",
      ),
      402: "On account beyond the customer's available credit or without a credit limit (docs/credit.md), or the card was declined; the quote stays Quoted",
      404: 'No such quote (or not visible), or a paymentProfileId that is not a saved card of the customer',
      409: 'Not Quoted, past expiresAt, already accepted, another step in flight, or the customer is on credit hold',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      const r = await acceptQuote({ em, temporal: deps.temporal, config: deps.config, readCache: deps.readCache }, orgId, auth, params.quoteId, body);
      if ('approvalId' in r && r.status === 'PendingApproval') return accepted({ status: r.status, approvalId: r.approvalId }, `/api/approvals/${r.approvalId}`);
      return ok(r);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/quotes/:quoteId/reject',
    operationId: 'rejectQuote',
    summary: 'Reject: the buyer an offer (Quoted), the seller a request or counter (Requested, Countered); reason required. Webhook quote.updated',
    tag: TAG,
    auth: ['Admin', 'SalesRep', 'Customer'],
    body: rejectSchema,
    responses: STEP,
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await rejectQuote({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.quoteId, body));
    },
  }),
];
