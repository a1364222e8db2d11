/**
 * Order endpoints: create (201 { data: { id, orderNumber }, links }), bulk import (idempotent
 * by externalId, then orderNumber; active:false soft-deletes), read, search, update (status
 * moves per src/domain/orders/status.ts) and shipping update. Customer tokens see only their
 * orders; sales reps only orders of customers with their repNumber; another org is 404.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import * as yup from 'yup';
import { checkStatusTransition, ORDER_STATUSES, parseOrderStatus } from '../domain/orders/status.js';
import { formatMoney, moneyNumber, roundMoney } from '../domain/pricing/index.js';
import { Customer, Order, OrderItem } from '../entities/index.js';
import { AppError, isUniqueViolation } from '../errors.js';
import type { Principal } from '../http/auth.js';
import { dataEnvelope, parseList, type ListSpec } from '../http/paging.js';
import { created, defineRoute, ok } from '../http/route.js';
import { nextOrderNumber } from '../services/orders/numbers.js';
import { currencyCode, UUID_RE } from './schemas.js';

const str = (max: number) => yup.string().trim().max(max);
const addressSchema = yup.object({
  address1: str(200).nullable(),
  address2: str(200).nullable(),
  city: str(100).nullable(),
  stateProvince: str(100).nullable(),
  zipPostalCode: str(20).nullable(),
  country: str(2).nullable(),
});
const repSchema = yup.object({
  repNumber: str(50).nullable(),
  firstName: str(100).nullable(),
  lastName: str(100).nullable(),
  fullName: str(200).nullable(),
  email: str(254).nullable(),
  phoneNumber: str(40).nullable(),
});
const itemSchema = yup.object({
  sku: str(100).min(1).required(),
  productName: str(300).min(1).required(),
  quantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').required(),
  price: yup.number().min(0, '${path} must be at least 0.').required(),
});
const shippingSchema = yup.object({ method: str(100).nullable(), total: yup.number().min(0, '${path} must be at least 0.').default(0) });
const statusSchema = yup.string().test('status', '${path} must be one of: ' + ORDER_STATUSES.join(', ') + '.', (v) => v === undefined || v === null || !!parseOrderStatus(v));

const orderFields = {
  customer: yup
    .object({
      customerNumber: str(50).min(1).required(),
      companyName: str(200).min(1).required(),
      companyEmail: str(254).nullable(),
      companyPhone: str(40).nullable(),
      companyFax: str(40).nullable(),
      billingAddress: addressSchema.nullable().default(undefined),
      shippingAddress: addressSchema.nullable().default(undefined),
    })
    .required(),
  orderType: str(50).min(1).required(),
  poNumber: str(100).required(),
  priceTier: str(100).min(1).required(),
  currencyCode: currencyCode().required(),
  primarySalesRep: repSchema.required(),
  items: yup.array(itemSchema.required()).min(1, '${path} must have at least one item.').max(1000).required(),
  user: yup.object({ userId: str(100).nullable(), userType: str(50).nullable() }).required(),
  shippingDetails: shippingSchema.nullable().default(undefined),
  takenBySalesRep: repSchema.nullable().default(undefined),
  terms: str(50).nullable(),
  notes: str(4000).nullable(),
  orderStatus: statusSchema,
  channel: str(50).nullable(),
  externalId: str(200).nullable(),
  tax: yup.number().min(0, '${path} must be at least 0.').nullable(),
  originationCartId: yup.string().matches(UUID_RE, '${path} must be a valid id (UUID).').nullable(),
};
const orderSchema = yup.object(orderFields);
type OrderInput = yup.InferType<typeof orderSchema> & { orderNumber?: string | null; orderDate?: string | null; active?: boolean | null };
const bulkOrderSchema = yup.object({ ...orderFields, orderNumber: str(50).min(1).nullable(), orderDate: yup.string().test('iso', '${path} must be an ISO 8601 date.', (v) => v === undefined || v === null || (/^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)))).nullable(), active: yup.boolean().nullable() });

const fmt = (v: string | number | Decimal, cur: string) => ({ n: moneyNumber(v, cur), f: formatMoney(v, cur) });

export function orderView(o: Order) {
  const cur = o.currencyCode;
  const items = [...o.items.getItems()].sort((a, b) => a.position - b.position);
  const m = (v: string | number | Decimal) => fmt(v, cur);
  return {
    id: o.id,
    organizationId: o.organization.id,
    orderNumber: o.orderNumber,
    orderDate: o.orderDate.toISOString(),
    orderStatus: o.orderStatus,
    orderType: o.orderType,
    poNumber: o.poNumber ?? null,
    priceTier: o.priceTier ?? null,
    currencyCode: cur,
    terms: o.terms ?? null,
    channel: o.channel ?? null,
    externalId: o.externalId ?? null,
    notes: o.notes ?? null,
    originationCartId: o.originationCartId ?? null,
    active: o.active,
    customer: o.customer,
    primarySalesRep: o.primarySalesRep ?? null,
    takenBySalesRep: o.takenBySalesRep ?? null,
    shippingDetails: o.shippingDetails ?? null,
    items: items.map((i) => ({
      sku: i.sku,
      productName: i.productName,
      quantity: i.quantity,
      price: m(i.price).n,
      priceFormatted: m(i.price).f,
      subTotal: m(i.subTotal).n,
      subTotalFormatted: m(i.subTotal).f,
    })),
    subtotal: m(o.subtotal).n,
    subtotalFormatted: m(o.subtotal).f,
    discountAmount: m(o.discountAmount).n,
    discountAmountFormatted: m(o.discountAmount).f,
    tax: m(o.tax).n,
    taxFormatted: m(o.tax).f,
    shippingTotal: m(o.shippingTotal).n,
    shippingTotalFormatted: m(o.shippingTotal).f,
    total: m(o.total).n,
    totalFormatted: m(o.total).f,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

/** Orders the principal may see. */
async function orderVisibility(em: EntityManager, orgId: string, auth: Principal): Promise<FilterQuery<Order>> {
  if (auth.isSuper || auth.role === 'Admin') return {};
  if (auth.role === 'Customer') return auth.customerNumber ? { customerNumber: auth.customerNumber } : { id: { $in: [] } };
  if (!auth.repNumber) return { id: { $in: [] } };
  const rows = await em.find(Customer, { organization: orgId, repNumber: auth.repNumber }, { fields: ['customerNumber'] });
  return { customerNumber: { $in: rows.map((r) => r.customerNumber) } };
}

async function findOrder(em: EntityManager, orgId: string, auth: Principal, orderId: string): Promise<Order> {
  if (!UUID_RE.test(orderId)) throw AppError.notFound('Order');
  const o = await em.findOne(Order, { $and: [{ organization: orgId, id: orderId }, await orderVisibility(em, orgId, auth)] }, { populate: ['items'] });
  if (!o) throw AppError.notFound('Order');
  return o;
}

/** Customers may order only for themselves; reps only for their customers. */
async function assertMayWriteFor(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<void> {
  if (auth.isSuper || auth.role === 'Admin') return;
  if (auth.role === 'Customer') {
    if (auth.customerNumber !== customerNumber) throw AppError.forbidden('A customer can only place orders for itself.');
    return;
  }
  const c = await em.findOne(Customer, { organization: orgId, customerNumber, repNumber: auth.repNumber ?? '\u0000' });
  if (!c) throw AppError.forbidden('This customer is not assigned to your rep number.');
}

function totals(input: OrderInput) {
  const cur = input.currencyCode;
  const lines = input.items.map((i) => {
    const price = new Decimal(String(i.price));
    return { ...i, price, subTotal: roundMoney(price.times(i.quantity), cur) };
  });
  const subtotal = lines.reduce((s, l) => s.plus(l.subTotal), new Decimal(0));
  const tax = roundMoney(input.tax ?? 0, cur);
  const shipping = roundMoney(input.shippingDetails?.total ?? 0, cur);
  return { lines, subtotal, tax, shipping, total: subtotal.plus(tax).plus(shipping) };
}

function applyInput(em: EntityManager, o: Order, input: OrderInput, repNumber: string | null): void {
  const t = totals(input);
  em.assign(o, {
    orderType: input.orderType,
    poNumber: input.poNumber ?? null,
    priceTier: input.priceTier,
    currencyCode: input.currencyCode,
    terms: input.terms ?? null,
    channel: input.channel ?? null,
    externalId: input.externalId ?? o.externalId ?? null,
    notes: input.notes ?? null,
    originationCartId: input.originationCartId ?? o.originationCartId ?? null,
    customerNumber: input.customer.customerNumber,
    customer: input.customer as Order['customer'],
    primarySalesRep: input.primarySalesRep as Order['primarySalesRep'],
    takenBySalesRep: (input.takenBySalesRep ?? null) as Order['takenBySalesRep'],
    repNumber: repNumber ?? input.primarySalesRep.repNumber ?? null,
    shippingDetails: input.shippingDetails ? { method: input.shippingDetails.method ?? null, total: Number(t.shipping) } : null,
    subtotal: t.subtotal.toString(),
    tax: t.tax.toString(),
    shippingTotal: t.shipping.toString(),
    total: t.total.toString(),
    createdByUserId: input.user.userId ?? null,
    createdByUserType: input.user.userType ?? null,
  });
  if (input.orderStatus) o.orderStatus = parseOrderStatus(input.orderStatus)!;
  if (input.orderDate) o.orderDate = new Date(input.orderDate);
  if (input.active !== undefined && input.active !== null) o.active = input.active;
  o.items.removeAll();
  t.lines.forEach((l, position) =>
    o.items.add(em.create(OrderItem, { order: o, position, sku: l.sku, productName: l.productName, quantity: l.quantity, price: l.price.toString(), subTotal: l.subTotal.toString() })),
  );
}

async function flushOrder(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    if (isUniqueViolation(e, 'order_org_number_unique')) throw AppError.conflict('An order with this orderNumber already exists.');
    if (isUniqueViolation(e, 'order_org_external_id_unique')) throw AppError.conflict('Another order already has this externalId.');
    if (isUniqueViolation(e, 'order_org_cart_unique')) throw AppError.conflict('An order for this originationCartId already exists.');
    throw e;
  }
}

const links = (o: Order) => [{ rel: 'self', href: `/api/orders/${o.id}` }];
const ref = (o: Order) => ({ data: { id: o.id, orderNumber: o.orderNumber }, links: links(o) });

async function repOf(em: EntityManager, orgId: string, customerNumber: string): Promise<string | null> {
  const c = await em.findOne(Customer, { organization: orgId, customerNumber }, { fields: ['repNumber'] });
  return c?.repNumber ?? null;
}

/** Creates one order in its own transaction (order number drawn inside it, so no gaps). */
async function createOrder(em: EntityManager, orgId: string, input: OrderInput): Promise<Order> {
  const repNumber = await repOf(em, orgId, input.customer.customerNumber);
  return em.transactional(async (tem) => {
    const o = tem.create(Order, {
      organization: orgId,
      orderNumber: input.orderNumber ?? (await nextOrderNumber(tem, orgId)),
      orderDate: new Date(),
      orderStatus: 'Pending',
      orderType: input.orderType,
      currencyCode: input.currencyCode,
      customerNumber: input.customer.customerNumber,
      customer: input.customer as Order['customer'],
      subtotal: '0',
      total: '0',
    });
    applyInput(tem, o, input, repNumber);
    await flushOrder(tem);
    return o;
  });
}

const orderListSpec: ListSpec = {
  filters: {
    orderNumber: { prop: 'orderNumber', type: 'string' },
    customerNumber: { prop: 'customerNumber', type: 'string' },
    orderStatus: { prop: 'orderStatus', type: 'string' },
    poNumber: { prop: 'poNumber', type: 'string' },
    orderDate: { prop: 'orderDate', type: 'date' },
  },
  sorts: { OrderDate: 'orderDate', OrderNumber: 'orderNumber', CustomerNumber: 'customerNumber', OrderStatus: 'orderStatus', Total: 'total' },
  defaultSort: 'OrderDate',
  comparisons: true,
};

const ORDER = 'Order with items (sku, productName, quantity, price, priceFormatted, subTotal, subTotalFormatted) and subtotal, discountAmount, tax, shippingTotal, total (+Formatted)';
const ROLES = ['Admin', 'SalesRep', 'Customer'] as const;

export const orderRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/orders',
    summary: 'Create an order (orderNumber generated per organization)',
    tag: 'Orders',
    auth: ROLES,
    idempotent: true,
    body: orderSchema,
    responses: { 201: '{ data: { id, orderNumber }, links: [{ rel, href }] }', 400: 'Invalid input', 401: 'Unauthenticated', 403: 'Not allowed for this customer', 409: 'Duplicate externalId' },
    async handler({ em, orgId, auth, body }) {
      await assertMayWriteFor(em, orgId, auth, body.customer.customerNumber);
      const o = await createOrder(em, orgId, body as OrderInput);
      return created(ref(o));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/orders/bulk',
    summary: 'Import orders: an existing externalId, else orderNumber, updates that order; active:false soft-deletes it',
    tag: 'Orders',
    auth: ['Admin'],
    idempotent: true,
    body: yup.object({ orders: yup.array(bulkOrderSchema.required()).min(1).max(1000).required() }),
    responses: { 201: 'array of { data: { id, orderNumber }, links }', 400: 'Invalid input', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'Conflicting keys' },
    async handler({ em, orgId, body }) {
      const out = [];
      for (const raw of body.orders) {
        const input = raw as OrderInput;
        let existing: Order | null = null;
        if (input.externalId) existing = await em.findOne(Order, { organization: orgId, externalId: input.externalId }, { populate: ['items'] });
        if (!existing && input.orderNumber) existing = await em.findOne(Order, { organization: orgId, orderNumber: input.orderNumber }, { populate: ['items'] });
        if (existing) {
          if (input.orderNumber && input.orderNumber !== existing.orderNumber) existing.orderNumber = input.orderNumber;
          applyInput(em, existing, input, await repOf(em, orgId, input.customer.customerNumber));
          await flushOrder(em);
          out.push(ref(existing));
        } else {
          const o = await createOrder(em, orgId, input);
          out.push(ref(o));
        }
      }
      return created(out);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/orders',
    summary: 'Search orders (paged; filters orderNumber, customerNumber, orderStatus, poNumber, orderDate with gte/lte; sortOn OrderDate (default), OrderNumber, CustomerNumber, OrderStatus, Total)',
    tag: 'Orders',
    auth: ROLES,
    responses: { 200: 'data, totalRecords, currentPage, totalPages', 400: 'Bad paging, sorting or filter', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      const q = parseList(query as unknown as Record<string, unknown>, orderListSpec);
      const [rows, total] = await em.findAndCount(
        Order,
        { $and: [{ organization: orgId, active: true }, await orderVisibility(em, orgId, auth), q.where as FilterQuery<Order>] },
        { populate: ['items'], orderBy: [q.orderBy, { orderNumber: 'asc' }] as never, limit: q.pageSize, offset: q.offset },
      );
      return ok(dataEnvelope(rows.map(orderView), total, q));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/orders/:orderId',
    summary: 'Read an order',
    tag: 'Orders',
    auth: ROLES,
    responses: { 200: ORDER, 401: 'Unauthenticated', 404: 'No such order (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(orderView(await findOrder(em, orgId, auth, params.orderId)));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/orders/:orderId',
    summary: 'Update an order: orderStatus (Pending -> Processing -> Shipped -> Complete; Pending/Processing -> Cancelled), poNumber, notes, terms, channel, orderType',
    tag: 'Orders',
    auth: ['Admin', 'SalesRep'],
    body: yup.object({ orderStatus: statusSchema, poNumber: str(100).nullable(), notes: str(4000).nullable(), terms: str(50).nullable(), channel: str(50).nullable(), orderType: str(50).min(1) }),
    responses: { 200: ORDER, 400: 'Invalid input or status move', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such order' },
    async handler({ em, orgId, auth, body, params }) {
      const o = await findOrder(em, orgId, auth, params.orderId);
      if (body.orderStatus) {
        const why = checkStatusTransition(o.orderStatus, body.orderStatus);
        if (why) throw AppError.field('orderStatus', why);
        o.orderStatus = parseOrderStatus(body.orderStatus)!;
      }
      for (const k of ['poNumber', 'notes', 'terms', 'channel', 'orderType'] as const) if (body[k] !== undefined) (o as Record<string, unknown>)[k] = body[k];
      o.updatedAt = new Date();
      await flushOrder(em);
      return ok(orderView(o));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/orders/:orderId/shipping',
    summary: 'Update shipping: { method, total } and/or shippingAddress; totals are recomputed',
    tag: 'Orders',
    auth: ['Admin', 'SalesRep'],
    body: yup.object({ method: str(100).nullable(), total: yup.number().min(0, '${path} must be at least 0.'), shippingAddress: addressSchema.nullable().default(undefined) }),
    responses: { 200: ORDER, 400: 'Invalid input, or the order is Shipped/Complete/Cancelled', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such order' },
    async handler({ em, orgId, auth, body, params }) {
      const o = await findOrder(em, orgId, auth, params.orderId);
      if (!['Pending', 'Processing'].includes(o.orderStatus)) throw AppError.badRequest(`Shipping cannot change once the order is ${o.orderStatus}.`);
      const cur = o.currencyCode;
      const shipping = body.total !== undefined ? roundMoney(body.total, cur) : new Decimal(o.shippingTotal);
      o.shippingDetails = { method: body.method !== undefined ? (body.method ?? null) : (o.shippingDetails?.method ?? null), total: Number(shipping) };
      o.shippingTotal = shipping.toString();
      o.total = new Decimal(o.subtotal).minus(o.discountAmount).plus(o.tax).plus(shipping).toString();
      if (body.shippingAddress !== undefined) o.customer = { ...o.customer, shippingAddress: body.shippingAddress as never };
      o.updatedAt = new Date();
      await flushOrder(em);
      return ok(orderView(o));
    },
  }),
];
