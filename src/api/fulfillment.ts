/**
 * Shipments of an order (issue 41 item 4, docs/fulfillment.md): ship lines (Admin, or the sales rep
 * of the order's customer), list and read them (the order's readers: Admin, its rep, its customer),
 * confirm a delivery. The order's status follows its shipments; its fulfillOrder workflow sends the
 * shipment e-mails and completes the order after the last delivery or its auto-complete timer.
 */
import * as yup from 'yup';
import { created, defineRoute, json, LOCATION, ok } from '../http/route.js';
import { shipment, shipmentPage } from '../domain/fulfillment/responses.js';
import { confirmDelivery, createShipment, listShipments, readShipment, shipmentListSpec } from '../services/fulfillment/shipments.js';

const TAG = 'Fulfillment';
const text = (max: number) => yup.string().trim().max(max, `\${path} must be at most ${max} characters.`).nullable();

const shipmentSchema = yup.object({
  lines: yup
    .array(
      yup.object({
        sku: yup.string().trim().min(1).max(100).required(),
        quantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').required(),
      }),
    )
    .min(1, '${path} must have at least one line.')
    .max(1000)
    .required(),
  locationId: yup.string().uuid('${path} must be a UUID.').nullable(),
  carrier: text(100),
  trackingNumber: text(200),
  trackingUrl: yup
    .string()
    .trim()
    .max(2000)
    .matches(/^https?:\/\/[^\s]+$/i, { message: '${path} must be an http(s) URL.', excludeEmptyString: true })
    .nullable(),
});

const listQuery = yup.object({
  pageNumber: yup.number().integer().min(1),
  pageSize: yup.number().integer().min(1).max(500),
  sortOn: yup.string(),
  sortDirection: yup.string(),
});

export const fulfillmentRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/orders/:orderId/shipments',
    operationId: 'createShipment',
    summary:
      'Ship lines of an order (partial shipments allowed): lines [{ sku, quantity }], optional locationId, carrier, trackingNumber, trackingUrl. Numbers the shipment SH-000001 per organization, adds to each line\'s shippedQuantity and moves the order to Processing, or Shipped once every unit left; starts workflow fulfillment-<orderId> (search attributes OrganizationId, CustomerNumber, OrderNumber, BusinessKeys); webhooks shipment.created and order.shipped; e-mail with tracking to the customer',
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    body: shipmentSchema,
    responses: {
      201: json(shipment, 'The shipment, with the order\'s status after it', { headers: LOCATION }),
      400: 'Invalid fields; a line whose SKU is not on the order or whose quantity is above what remains to ship (named lines[i].sku / lines[i].quantity)',
      401: 'Unauthenticated',
      403: 'Not Admin or SalesRep',
      404: 'No such order (or not visible)',
      409: 'The order cannot ship (Cancelled, PendingApproval, or every line shipped)',
    },
    async handler({ em, deps, orgId, auth, body, params }) {
      const s = await createShipment({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.orderId, body);
      return created(s, `/api/orders/${s.orderId}/shipments/${s.id}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/orders/:orderId/shipments',
    operationId: 'listShipments',
    summary: "The order's shipments, oldest first (pageNumber, pageSize, sortOn ShippedAt|ShipmentNumber, sortDirection)",
    tag: TAG,
    auth: ['Admin', 'SalesRep', 'Customer'],
    query: listQuery,
    paged: shipmentListSpec,
    responses: { 200: json(shipmentPage, 'A page of shipments (generic envelope)'), 400: 'Bad paging or sorting', 401: 'Unauthenticated', 404: 'No such order (or not visible)' },
    async handler({ em, orgId, auth, params, ctx }) {
      return ok(await listShipments(em, orgId, auth, params.orderId, ctx.query as Record<string, unknown>));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/orders/:orderId/shipments/:shipmentId',
    operationId: 'getShipment',
    summary: 'Read one shipment of an order',
    tag: TAG,
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: json(shipment, 'The shipment'), 401: 'Unauthenticated', 404: 'No such order or shipment (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readShipment(em, orgId, auth, params.orderId, params.shipmentId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/orders/:orderId/shipments/:shipmentId/delivered',
    operationId: 'confirmShipmentDelivery',
    summary:
      "Confirm a shipment's delivery (Admin, the customer's rep, or the customer). Once the order is Shipped and every shipment's delivery is confirmed, the fulfillment workflow completes it (webhook order.completed); repeating it changes nothing",
    tag: TAG,
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: json(shipment, "The shipment (Delivered) with the order's status after the confirmation"), 401: 'Unauthenticated', 404: 'No such order or shipment (or not visible)' },
    async handler({ em, deps, orgId, auth, params }) {
      return ok(await confirmDelivery({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, params.orderId, params.shipmentId));
    },
  }),
];
