/**
 * Process timelines (issue 20 item 4): the business steps of every workflow that touched a
 * record, read from Temporal history, each with time, outcome, workflow id and run id. The
 * record's own read rules apply (another organization, customer or rep: 404).
 */
import * as schema from '../domain/ops/timeline.js';
import { defineRoute, json, ok } from '../http/route.js';
import { importTimeline, invoiceTimeline, orderTimeline, statementTimeline } from '../services/ops/record-timelines.js';

const TAG = 'Operations';

export const timelineRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/orders/:orderId/timeline',
    operationId: 'getOrderTimeline',
    summary: "An order's story: Records (checkout, invoices, shipments, returns, cancellations, credit notes) and the process timeline: checkout (number, charge, order, invoice), its invoice's issuance and reminders, the confirmation e-mail, its fulfillment workflow (each syncFulfillment step, the auto-complete timer, deliveryConfirmed updates, shipmentsChanged signals) and the shipment e-mails, cancellation refunds, and each return's workflow (requested, reminder, approved or rejected, received, refunded or credited, closed)",
    tag: TAG,
    reads: 'replica',
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: json(schema.orderTimeline, "The order's workflow steps, oldest first"), 401: 'Unauthenticated', 404: 'No such order (or not visible)' },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await orderTimeline(em, deps.temporal, orgId, auth, params.orderId));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/invoices/:invoiceId/timeline',
    operationId: 'getInvoiceTimeline',
    summary: "An invoice's process timeline: issuance, e-mails, reminders, card and hosted payments, refunds",
    tag: TAG,
    reads: 'replica',
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: json(schema.invoiceTimeline, "The invoice's workflow steps, oldest first"), 401: 'Unauthenticated', 404: 'No such invoice (or not visible)' },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await invoiceTimeline(em, deps.temporal, orgId, auth, params.invoiceId));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/imports/:importJobId/timeline',
    operationId: 'getImportJobTimeline',
    summary: "An import job's process timeline: slot, preparation, each chunk, continue-as-new runs, the completion e-mail",
    tag: TAG,
    reads: 'replica',
    auth: ['Admin'],
    responses: { 200: json(schema.importJobTimeline, "The import job's workflow steps, oldest first"), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such import job in the organization' },
    async handler({ em, deps, orgId, params }) {
      return ok(await importTimeline(em, deps.temporal, orgId, params.importJobId));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/statements/:statementId/timeline',
    operationId: 'getCommissionStatementTimeline',
    summary: "A commission statement's process timeline: generation, reminders, approval updates, payment",
    tag: TAG,
    reads: 'replica',
    auth: ['Admin', 'SalesRep'],
    responses: { 200: json(schema.statementTimeline, "The statement's workflow steps, oldest first"), 401: 'Unauthenticated', 403: 'Customer token', 404: "No such statement (or another rep's)" },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await statementTimeline(em, deps.temporal, orgId, auth, params.statementId));
    },
  }),
];
