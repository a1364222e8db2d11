/**
 * Buyer approvals (docs/approvals.md): buyer roles and spending limits per customer, and the
 * approval requests of checkouts held above a limit (workflow approvePurchase). Use cases:
 * src/services/approvals/.
 */
import * as yup from 'yup';
import { defineRoute, empty, json, noContent, ok } from '../http/route.js';
import { approval, approvalPage, customerBuyer, customerBuyerPage } from '../domain/resources.js';
import { approvalListSpec, decideApproval, listApprovals, readApproval, withdrawApproval } from '../services/approvals/approvals.js';
import { buyerListSpec, deleteBuyer, listBuyers, putBuyer } from '../services/approvals/buyers.js';

const limit = () => yup.number().min(0).max(1e12).nullable();
const buyerSchema = yup.object({ role: yup.string().oneOf(['Buyer', 'Approver'], '${path} must be Buyer or Approver.').required(), orderLimit: limit(), monthlyLimit: limit() });
const paged = {
  pageNumber: yup.number().integer().min(1),
  pageSize: yup.number().integer().min(1).max(500),
  sortOn: yup.string(),
  sortDirection: yup.string(),
  filters: yup.mixed().meta({ openapi: { type: 'string', maxLength: 4000, description: 'JSON array of { field, operator, value } (or the qs bracket form filters[0][field]=...), all must hold' } }),
};
const approvalListQuery = yup.object({ ...paged, status: yup.string(), customerNumber: yup.string().max(100) });
const buyerListQuery = yup.object(paged);
const rejectSchema = yup.object({ reason: yup.string().trim().min(1, '${path} must not be empty.').max(1000).required() });
const withdrawSchema = yup.object({ reason: yup.string().trim().max(1000).nullable() });

const APPROVAL = json(approval, 'The approval request: cart lines, totals, requester and the chain so far');
const DECIDE = { 200: APPROVAL, 400: 'Invalid fields', 401: 'Unauthenticated', 403: "Not an admin, not asked, or the requester's own checkout; for an approve, an Approver whose own orderLimit is below the request's total (errors name orderLimit)", 404: 'No such approval (or not visible)', 409: 'Already decided (or Superseded), another decision in flight, the cart closed, or the cart total changed at current prices: the request is Superseded and the detail names the requested and the current total and the new approval asking for it' };

export const approvalRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/customers/:customerNumber/buyers',
    operationId: 'listCustomerBuyers',
    summary: "The customer's buyers with their roles, limits and what each spent this month (Admin, or one of the customer's Approvers)",
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    query: buyerListQuery,
    paged: buyerListSpec,
    responses: { 200: json(customerBuyerPage, "The customer's buyers (generic envelope)"), 401: 'Unauthenticated', 403: 'Not an admin or an Approver of the customer', 404: 'No such customer (or not visible)' },
    async handler({ em, orgId, auth, params, query }) {
      return ok(await listBuyers(em, orgId, auth, params.customerNumber, query as Record<string, unknown>));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/customers/:customerNumber/buyers/:userId',
    operationId: 'setCustomerBuyer',
    summary:
      "Set a user's buyer role (Buyer, Approver) and spending limits per order and per calendar month, in the customer's currency (null: no limit). The user must be associated with the customer. Nobody sets their own row; admins set any other; an Approver sets plain Buyers only, within its own limits",
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    body: buyerSchema,
    responses: {
      200: json(customerBuyer, 'The buyer with its role and limits'),
      400: 'Invalid fields',
      401: 'Unauthenticated',
      403: "Not an admin or an Approver of the customer; the caller's own row (nobody changes their own); an Approver's row (admins only); or, for an Approver, role Approver or a limit above its own or none where it has one (errors name role, orderLimit, monthlyLimit)",
      404: 'No such customer, or the user is not associated with it',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await putBuyer(em, deps.temporal, orgId, auth, params.customerNumber, params.userId, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/customers/:customerNumber/buyers/:userId',
    operationId: 'removeCustomerBuyer',
    summary: "Remove a user's buyer role and limits (their checkouts are no longer limited)",
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    responses: {
      204: empty('Removed'),
      401: 'Unauthenticated',
      403: "Not an admin or an Approver of the customer; the caller's own row; an Approver's row (admins only); or an Approver with limits (removing the row lifts the buyer's limits)",
      404: 'No such customer or buyer',
    },
    async handler({ em, deps, orgId, auth, params }) {
      await deleteBuyer(em, deps.temporal, orgId, auth, params.customerNumber, params.userId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/approvals',
    operationId: 'listApprovals',
    summary: "Approval requests: all for admins; a customer user's own and, for an Approver, the customer's (pageNumber, pageSize, sortOn, filters on status, customerNumber, createdAt; shortcuts ?status=, ?customerNumber=)",
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    query: approvalListQuery,
    paged: approvalListSpec,
    responses: { 200: json(approvalPage, 'A page of approval requests (generic envelope)'), 400: 'Bad paging, sorting or filter', 401: 'Unauthenticated', 403: 'Role not allowed' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listApprovals(em, orgId, auth, query as Record<string, unknown>));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/approvals/:approvalId',
    operationId: 'getApproval',
    summary: 'An approval request: cart lines, totals, requester and the chain so far',
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    responses: { 200: APPROVAL, 401: 'Unauthenticated', 403: 'Role not allowed', 404: 'No such approval (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readApproval(em, orgId, auth, params.approvalId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/approvals/:approvalId/approve',
    operationId: 'approvePurchase',
    summary:
      'Approve: re-prices the cart at current catalog/tier prices; a total different from the requested one supersedes the request (409 naming both totals and the new approval that asks for the new total; nothing is charged). Otherwise continues the held checkout exactly once (workflow checkout-<cartId>) and answers the approval with its orderNumber. Admins, or an Approver who was asked',
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    responses: DECIDE,
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await decideApproval({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.approvalId, { action: 'approve' }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/approvals/:approvalId/reject',
    operationId: 'rejectPurchase',
    summary: 'Reject with a reason: nothing is charged, the cart stays open for the buyer, who is e-mailed the reason',
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    body: rejectSchema,
    responses: DECIDE,
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await decideApproval({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.approvalId, { action: 'reject', reason: body.reason }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/approvals/:approvalId/withdraw',
    operationId: 'withdrawPurchase',
    summary:
      'Withdraw a Pending request (the buyer who asked it, or an admin; optional reason): the request ends as Withdrawn, nothing is charged or placed; a held cart can be edited and checked out again, a held quote stays open, a held order is Cancelled. Webhook approval.withdrawn',
    tag: 'Approvals',
    auth: ['Admin', 'Customer'],
    body: withdrawSchema,
    responses: {
      200: APPROVAL,
      400: 'Invalid fields',
      401: 'Unauthenticated',
      403: 'Not the buyer who requested it and not an admin (an Approver of the customer who can see it)',
      404: 'No such approval (or not visible)',
      409: 'The request is no longer Pending (approved, rejected, expired, superseded or withdrawn), or a decision on it is being recorded',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await withdrawApproval({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.approvalId, body.reason ?? null));
    },
  }),
];
