/**
 * Order endpoints: create (201 { data: { id, orderNumber }, links }), bulk import (idempotent
 * by externalId, then orderNumber; active:false soft-deletes), read, search, update (status
 * moves per src/domain/orders/status.ts) and shipping update. Customer tokens see only their
 * orders; sales reps only orders of customers with their repNumber; another org is 404.
 */
import * as yup from 'yup';
import { cancelOrder } from '../services/orders/cancel.js';
import { orderCancellation } from '../domain/credit-notes/resources.js';
import { addressSchema, bulkOrderSchema, orderSchema, statusSchema, str } from '../domain/orders/schemas.js';
import { accepted, created, defineRoute, json, ok } from '../http/route.js';
import { upsertOrdersInBulk } from '../services/imports/sync.js';
import { placeOrder } from '../services/orders/create.js';
import { listOrders, orderListSpec, orderView, readOrderView, updateOrder, updateShipping } from '../services/orders/orders.js';
import * as out from '../domain/contract.js';
import { createdOrder, order, orderPage } from '../domain/resources.js';

type OrderRef = { id: string; orderNumber: string };
const links = (o: OrderRef) => [{ rel: 'self', href: `/api/orders/${o.id}` }];
const ref = (o: OrderRef) => ({ data: { id: o.id, orderNumber: o.orderNumber }, links: links(o) });

const ORDER = 'Order with items (sku, productName, quantity, price, priceFormatted, subTotal, subTotalFormatted) and subtotal, discountAmount, tax, shippingTotal, total (+Formatted)';
const ROLES = ['Admin', 'SalesRep', 'Customer'] as const;

export const orderRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/orders',
    operationId: 'createOrder',
    summary: 'Create an order (orderNumber generated per organization)',
    tag: 'Orders',
    auth: ROLES,
    body: orderSchema,
    responses: {
      201: json(createdOrder, 'The new order\'s id and number, and its link'),
      202: json(
        out.component(
          'OrderPendingApproval',
          out.obj({
            status: out.doc(out.str(), 'PendingApproval'),
            approvalId: out.str(),
            data: out.obj({ id: out.str(), orderNumber: out.str() }),
            links: out.arr(out.obj({ rel: out.str(), href: out.str() })),
          }),
        ),
        "A customer user's order above their spending limits: stored with orderStatus PendingApproval (neither fulfilled nor invoiced) until its approval request is decided: approved -> Pending, rejected or expired -> Cancelled (docs/approvals.md)",
      ),
      400: 'Invalid input',
      401: 'Unauthenticated',
      403: 'Not allowed for this customer',
      409: 'Duplicate externalId',
    },
    async handler({ em, deps, orgId, auth, body }) {
      const placed = await placeOrder({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, body);
      const order = ref(placed.order);
      if (placed.approvalId) return { ...accepted({ status: 'PendingApproval', approvalId: placed.approvalId, ...order }), headers: { Location: order.links[0].href } };
      return created(order, order.links[0].href);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/orders/bulk',
    operationId: 'createOrdersInBulk',
    summary: 'Import orders: an existing externalId, else orderNumber, updates that order; active:false soft-deletes it',
    tag: 'Orders',
    auth: ['Admin'],
    body: yup.object({ orders: yup.array(bulkOrderSchema.required()).min(1).max(1000).required() }),
    responses: { 201: json(out.arr(createdOrder), 'One entry per order, in input order'), 400: 'Invalid input', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'Conflicting keys' },
    async handler({ orgId, body, deps }) {
      const out = await upsertOrdersInBulk(deps.config.databaseUrl, orgId, body.orders);
      return created(out.map((o) => ({ data: { id: o.id, orderNumber: o.number }, links: [{ rel: 'self', href: `/api/orders/${o.id}` }] })), '/api/orders');
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/orders',
    operationId: 'listOrders',
    summary: 'Search orders (paged; filters orderNumber, customerNumber, orderStatus, poNumber, orderDate with gte/lte; sortOn OrderDate (default), OrderNumber, CustomerNumber, OrderStatus, Total)',
    tag: 'Orders',
    auth: ROLES,
    paged: orderListSpec,
    responses: { 200: json(orderPage, 'A page of orders'), 400: 'Bad paging, sorting or filter', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listOrders(em, orgId, auth, query));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/orders/:orderId',
    operationId: 'getOrder',
    summary: 'Read an order',
    tag: 'Orders',
    auth: ROLES,
    responses: { 200: json(order, ORDER), 401: 'Unauthenticated', 404: 'No such order (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readOrderView(em, orgId, auth, params.orderId));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/orders/:orderId',
    operationId: 'updateOrder',
    summary: 'Update an order: orderStatus (Pending -> Processing -> Shipped -> Complete; Pending/Processing -> Cancelled), poNumber, notes, terms, channel, orderType',
    tag: 'Orders',
    auth: ['Admin', 'SalesRep'],
    body: yup.object({ orderStatus: statusSchema, poNumber: str(100).nullable(), notes: str(4000).nullable(), terms: str(50).nullable(), channel: str(50).nullable(), orderType: str(50).min(1) }),
    responses: { 200: json(order, ORDER), 400: 'Invalid input or status move', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such order' },
    async handler({ em, orgId, auth, body, params }) {
      return ok(orderView(await updateOrder(em, orgId, auth, params.orderId, body)));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/orders/:orderId/cancel',
    operationId: 'cancelOrder',
    summary: 'Cancel the whole order (no lines) or unshipped lines and quantities, with a reason: a card order is refunded the cancelled amount once; an invoiced on-account order gets a credit note; the credit (and the refund) is capped at what the invoice can still absorb when it was refunded or credited already (uncreditedAmount names the rest); webhook order.cancelled',
    tag: 'Orders',
    auth: ['Admin', 'SalesRep', 'Customer'],
    body: yup.object({
      lines: yup
        .array(yup.object({ sku: yup.string().trim().max(100).required(), quantity: yup.number().integer('${path} must be a whole number.').moreThan(0, '${path} must be greater than 0.').required() }))
        .max(500, '${path} must have at most 500 lines.')
        .nullable(),
      reason: yup.string().trim().min(1).max(1000).required(),
    }),
    responses: {
      200: json(orderCancellation, 'The cancellation (refund Refunded once the provider refunded)'),
      400: 'Invalid fields: a line not on the order, more than is left (errors name lines[i])',
      401: 'Unauthenticated',
      403: 'A buyer when the organization does not let buyers cancel (buyersMayCancel), or a SalesRep of another customer',
      404: 'No such order (or not visible)',
      409: 'Shipped quantities (errors name them), the order already cancelled or waiting for approval, nothing left to cancel',
      503: 'The refund is still in progress: repeat the request with the same Idempotency-Key',
    },
    async handler({ em, deps, orgId, auth, params, body }) {
      return ok(await cancelOrder(em, deps, orgId, auth, params.orderId, body));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/orders/:orderId/shipping',
    operationId: 'setOrderShipping',
    summary: 'Update shipping: { method, total } and/or shippingAddress; totals are recomputed',
    tag: 'Orders',
    auth: ['Admin', 'SalesRep'],
    body: yup.object({ method: str(100).nullable(), total: yup.number().min(0, '${path} must be at least 0.'), shippingAddress: addressSchema.nullable().default(undefined) }),
    responses: { 200: json(order, ORDER), 400: 'Invalid input, or the order is Shipped/Complete/Cancelled', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such order' },
    async handler({ em, orgId, auth, body, params }) {
      return ok(orderView(await updateShipping(em, orgId, auth, params.orderId, body)));
    },
  }),
];
