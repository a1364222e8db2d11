/**
 * Return (RMA) endpoints (issue 42 item 2; docs/returns.md "Returns"): request (a buyer of the
 * order's customer, Admin, the customer's SalesRep), list and read (the same), approve, reject and
 * receive (Admin, the customer's SalesRep), and the organization's return settings (Admin).
 */
import * as yup from 'yup';
import { returnPage, returnResource, returnSettings } from '../domain/returns/resources.js';
import { created, defineRoute, json, ok } from '../http/route.js';
import { approveReturn, listReturns, readReturn, readReturnSettings, receiveReturn, rejectReturn, requestReturn, returnListSpec, setReturnSettings } from '../services/returns/returns.js';
import { uuid } from './schemas.js';

const METHODS = ['card', 'credit'] as const;
const refundMethod = () => yup.string<(typeof METHODS)[number]>().oneOf([...METHODS], '${path} must be card or credit.').nullable();
const requestSchema = yup.object({
  orderId: uuid().required(),
  lines: yup
    .array(
      yup.object({
        sku: yup.string().trim().min(1).max(100).required(),
        quantity: yup.number().integer('${path} must be a whole number.').moreThan(0, '${path} must be greater than 0.').required(),
        reason: yup.string().trim().min(1).max(1000).required(),
      }),
    )
    .min(1, '${path} must name at least one line.')
    .max(500, '${path} must have at most 500 lines.')
    .required(),
});
const approveSchema = yup.object({ message: yup.string().trim().max(2000).nullable(), refundMethod: refundMethod() });
const rejectSchema = yup.object({ message: yup.string().trim().min(1).max(2000).required() });
const receiveSchema = yup.object({
  lines: yup
    .array(
      yup.object({
        sku: yup.string().trim().min(1).max(100).required(),
        disposition: yup.string<'restock' | 'scrap'>().oneOf(['restock', 'scrap'], '${path} must be restock or scrap.').required(),
        locationId: uuid().nullable(),
      }),
    )
    .min(1, '${path} must name every line of the return.')
    .max(500, '${path} must have at most 500 lines.')
    .required(),
  refundMethod: refundMethod(),
});

const READ = ['Admin', 'SalesRep', 'Customer'] as const;
const STAFF = ['Admin', 'SalesRep'] as const;
const TAG = 'Returns';

export const returnRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/returns',
    operationId: 'listReturns',
    summary: 'List returns (RMA); Customer tokens see their own',
    description: 'Paged with the generic envelope; `filters` on rmaNumber, customerNumber, orderNumber, status, currencyCode, createdAt; shortcuts orderId, customerNumber, status.',
    tag: TAG,
    auth: READ,
    paged: returnListSpec,
    queryParams: {
      orderId: { description: 'Only returns of this order', schema: { type: 'string', format: 'uuid' } },
      customerNumber: { description: 'Only returns of this customer', schema: { type: 'string', maxLength: 100 } },
      status: { description: 'Only returns in this status', schema: { type: 'string', maxLength: 20 } },
    },
    responses: { 200: json(returnPage, 'A page of returns'), 400: 'Bad filters, ids or paging', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listReturns(em, orgId, auth, query));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/returns',
    operationId: 'requestReturn',
    summary: 'Request a return (RMA) of shipped units of one order, a reason per line',
    description:
      'A buyer of the order\'s customer within the return window (returnWindowDays after the order\'s last shipment), or staff (Admin, the customer\'s SalesRep) at any time. Each line at most the units shipped less those in earlier returns. Numbered RMA-000001; starts the returnOrder workflow (id return-<returnId>); webhook return.requested.',
    tag: TAG,
    auth: READ,
    body: requestSchema,
    requestExample: { orderId: '3f1c2a9e-1111-4c3b-9a57-6f1f0c8e2a10', lines: [{ sku: 'WIDGET-1', quantity: 2, reason: 'Damaged in transit' }] },
    responses: {
      201: json(returnResource, 'The return, Requested'),
      400: 'Invalid fields: a line not on the order, more than shipped less returned (errors name lines[i])',
      401: 'Unauthenticated',
      403: 'A buyer outside the return window',
      404: 'No order you may see has this id',
      409: 'Nothing shipped yet, or every shipped unit of the line is returned already (errors name lines[i])',
    },
    async handler({ em, deps, orgId, auth, body }) {
      const r = await requestReturn(em, deps, orgId, auth, body);
      return created(r, `/api/returns/${r.returnId}`);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/returns/:returnId',
    operationId: 'getReturn',
    summary: 'Read a return (RMA) with its lines and steps',
    description: 'Customer tokens read their own customer\'s returns only; a SalesRep those of its customers.',
    tag: TAG,
    auth: READ,
    responses: { 200: json(returnResource, 'The return'), 401: 'Unauthenticated', 404: 'No such return (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readReturn(em, orgId, auth, params.returnId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/returns/:returnId/approve',
    operationId: 'approveReturn',
    summary: 'Approve a Requested return, with an optional message and refund method',
    description: 'Requested -> Approved; the goods are expected within RETURN_EXPIRY_DAYS, else the return expires. refundMethod (card or credit) overrides the organization policy. Webhook return.approved.',
    tag: TAG,
    auth: STAFF,
    body: approveSchema,
    responses: {
      200: json(returnResource, 'The return, Approved'),
      400: 'Invalid fields',
      401: 'Unauthenticated',
      403: 'Customer token',
      404: 'No such return (or not visible)',
      409: 'The return is not Requested',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await approveReturn(em, deps, orgId, auth, params.returnId, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/returns/:returnId/reject',
    operationId: 'rejectReturn',
    summary: 'Reject a Requested return with a message',
    description: 'Requested -> Rejected; its units count as not returned. Webhook return.rejected.',
    tag: TAG,
    auth: STAFF,
    body: rejectSchema,
    responses: {
      200: json(returnResource, 'The return, Rejected'),
      400: 'Invalid fields: no message',
      401: 'Unauthenticated',
      403: 'Customer token',
      404: 'No such return (or not visible)',
      409: 'The return is not Requested',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await rejectReturn(em, deps, orgId, auth, params.returnId, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/returns/:returnId/receive',
    operationId: 'receiveReturn',
    summary: 'Receive an Approved return: restock or scrap each line, then refund or credit',
    description:
      'Every line of the return gets a disposition: restock (a stock receipt at locationId, the default location when omitted, for a tracked product) or scrap. Then the money step, exactly once: a refund of the amount to the order\'s card (provider key return-<returnId>), or a credit note on account applied to the customer\'s open invoices oldest first; then Closed. refundMethod overrides the approval\'s choice and the organization policy. Answers once the money step is done (at most CHECKOUT_WAIT_MS). Webhooks return.received, then return.refunded or return.credited.',
    tag: TAG,
    auth: STAFF,
    body: receiveSchema,
    responses: {
      200: json(returnResource, 'The return (Closed once refunded or credited)'),
      400: 'Invalid fields: a line not on the return, a line missing, an unknown location (errors name the field)',
      401: 'Unauthenticated',
      403: 'Customer token',
      404: 'No such return (or not visible)',
      409: 'The return is not Approved, or credit asked for an order without an issued invoice',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await receiveReturn(em, deps, orgId, auth, params.returnId, body));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/return-settings',
    operationId: 'getReturnSettings',
    summary: 'The organization\'s return window and refund policy',
    description: 'returnWindowDays (default 30) and returnRefundPolicy (default card) as in docs/returns.md "Returns".',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: json(returnSettings, 'The return settings'), 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      return ok(await readReturnSettings(em, orgId));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/return-settings',
    operationId: 'setReturnSettings',
    summary: 'Set the organization\'s return window and refund policy',
    description: 'returnWindowDays: days after the shipment a buyer may request a return (0-3650). returnRefundPolicy: card (refund to the order\'s card; on-account orders are credited) or credit (a credit note on account).',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({
      returnWindowDays: yup.number().integer('${path} must be a whole number.').min(0).max(3650).nullable(),
      returnRefundPolicy: refundMethod(),
    }),
    responses: { 200: json(returnSettings, 'The return settings'), 400: 'Invalid fields', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, body }) {
      return ok(await setReturnSettings(em, orgId, body));
    },
  }),
];
