/**
 * Cart endpoints (SPEC "Cart endpoints", "Cart states"). One PENDING cart per customer is
 * enforced by the partial unique index `cart_one_pending_per_customer`; a concurrent second
 * create hits it and answers 400. Line prices come from the customer's tier with quantity
 * breaks and are recomputed whenever a line's quantity changes. Customer tokens reach only
 * their own carts, sales reps only their customers' carts (404 otherwise).
 * complete-checkout lives in ./checkout.ts.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import * as yup from 'yup';
import { moneyNumber } from '../domain/pricing/index.js';
import { Cart, CartItem } from '../entities/index.js';
import type { CartAddress } from '../entities/Cart.js';
import { AppError, isUniqueViolation } from '../errors.js';
import type { Principal } from '../http/auth.js';
import { dataEnvelope, parseList, type ListSpec } from '../http/paging.js';
import { created, defineRoute, ok } from '../http/route.js';
import { findPriceTier, priceLine } from '../services/catalog/pricing.js';
import { byVisibleCustomer, findVisibleCustomer } from '../services/customers/visibility.js';
import { countryCode, UUID_RE, uuid } from './schemas.js';

const qty = () => yup.number().typeError('${path} must be a whole number.').integer('${path} must be a whole number.');

export const CART_FIELDS =
  'Cart: shoppingCartId, customerNumber, organizationId, companyName, status, pricingTier, currencyCode, orderType, items[itemId, sku, name, quantity, unitPrice, lineTotal], subtotal, specialInstructions, poNumber, shippingAddress, createdAt, updatedAt';

export function cartView(c: Cart) {
  const items = [...c.items.getItems()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.sku.localeCompare(b.sku));
  const subtotal = items.reduce((s, i) => s.plus(i.lineTotal), new Decimal(0));
  return {
    shoppingCartId: c.id,
    customerNumber: c.customerNumber,
    organizationId: c.organization.id,
    companyName: c.companyName,
    status: c.status,
    pricingTier: c.pricingTier,
    currencyCode: c.currencyCode,
    orderType: c.orderType,
    items: items.map((i) => ({
      itemId: i.id,
      sku: i.sku,
      name: i.name,
      quantity: i.quantity,
      unitPrice: moneyNumber(i.unitPrice, c.currencyCode),
      lineTotal: moneyNumber(i.lineTotal, c.currencyCode),
    })),
    subtotal: moneyNumber(subtotal, c.currencyCode),
    specialInstructions: c.specialInstructions ?? null,
    poNumber: c.poNumber ?? null,
    shippingAddress: c.shippingAddress ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export async function findCart(em: EntityManager, orgId: string, auth: Principal, cartId: string, customerNumber?: string): Promise<Cart> {
  if (!UUID_RE.test(cartId)) throw AppError.notFound('Cart');
  const where: FilterQuery<Cart> = { organization: orgId, id: cartId, ...(customerNumber !== undefined ? { customerNumber } : {}) };
  const cart = await em.findOne(Cart, { $and: [where, await byVisibleCustomer(em, orgId, auth)] }, { populate: ['items'] });
  if (!cart) throw AppError.notFound('Cart');
  return cart;
}

function assertOpen(cart: Cart): void {
  if (cart.status !== 'PENDING') throw AppError.badRequest('The cart is closed (checked out) and can no longer be modified.');
}

function bodyCustomerMatches(bodyValue: string | undefined, path: string): void {
  if (bodyValue !== undefined && bodyValue !== path) throw AppError.field('customerNumber', 'customerNumber must match the customer number in the path.');
}

async function setLine(em: EntityManager, orgId: string, cart: Cart, sku: string, quantity: number): Promise<void> {
  const existing = cart.items.getItems().find((i) => i.sku.toLowerCase() === sku.toLowerCase());
  if (quantity === 0) {
    if (!existing) throw AppError.notFound('Cart item');
    cart.items.remove(existing);
    cart.updatedAt = new Date();
    return;
  }
  const { product, unitPrice } = await priceLine(em, orgId, cart.pricingTier, existing?.sku ?? sku, quantity);
  const lineTotal = unitPrice.times(quantity);
  if (existing) {
    existing.quantity = quantity;
    existing.unitPrice = unitPrice.toString();
    existing.lineTotal = lineTotal.toString();
    existing.name = product.name;
  } else {
    cart.items.add(em.create(CartItem, { cart, sku: product.sku, name: product.name, quantity, unitPrice: unitPrice.toString(), lineTotal: lineTotal.toString() }));
  }
  cart.updatedAt = new Date();
}

async function flushCart(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (e) {
    if (isUniqueViolation(e, 'cart_one_pending_per_customer')) throw AppError.badRequest('The customer already has an active cart.');
    throw e;
  }
}

const createSchema = yup.object({
  customerNumber: yup.string().trim().max(50),
  sku: yup.string().trim().min(1).max(100),
  quantity: qty(),
  orderType: yup.string().trim().min(1).max(50),
  organizationId: uuid(),
  userId: yup.string().trim().max(100),
});

const cartAddressSchema = yup
  .object({
    line1: yup.string().trim().max(200).required(),
    line2: yup.string().trim().max(200).nullable(),
    city: yup.string().trim().max(100).required(),
    state: yup.string().trim().max(100).nullable(),
    postalCode: yup.string().trim().max(20).nullable(),
    country: countryCode().required(),
    phone: yup.string().trim().max(40).nullable(),
    addressType: yup.string().trim().max(20).nullable(),
    isPrimary: yup.boolean().nullable(),
  })
  .noUnknown(false);

const cartListSpec: ListSpec = {
  filters: {
    customerNumber: { prop: 'customerNumber', type: 'string' },
    companyName: { prop: 'companyName', type: 'string' },
    status: { prop: 'status', type: 'string' },
  },
  sorts: { CompanyName: 'companyName', CustomerNumber: 'customerNumber', Status: 'status' },
  defaultSort: 'CompanyName',
};

const ROLES = ['Admin', 'SalesRep', 'Customer'] as const;
const CART_PATH = '/api/carts/:customerNumber/:shoppingCartId';

export const cartRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/carts',
    summary: 'List carts (paged; sortOn CompanyName (default), CustomerNumber, Status; filters on CustomerNumber, CompanyName, Status)',
    tag: 'Carts',
    auth: ['Admin'],
    responses: { 200: 'data, totalRecords, currentPage, totalPages', 400: 'Bad paging, sorting or filter', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      const q = parseList(query, cartListSpec);
      const [rows, total] = await em.findAndCount(
        Cart,
        { $and: [{ organization: orgId }, q.where as FilterQuery<Cart>] },
        { populate: ['items'], orderBy: [q.orderBy, { createdAt: 'asc' }, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
      );
      return ok(dataEnvelope(rows.map(cartView), total, q));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/carts/:customerNumber',
    summary:
      'Create the active cart of a customer: {customerNumber, sku, quantity, orderType} with a first item, or {organizationId, orderType, userId} empty; 400 when an active cart exists',
    tag: 'Carts',
    auth: ROLES,
    body: createSchema,
    responses: { 201: CART_FIELDS, 400: 'Invalid input, quantity rules, unknown SKU, or an active cart exists', 401: 'Unauthenticated', 403: 'organizationId is not the token organization', 404: 'No such customer (or not visible)' },
    async handler({ em, orgId, auth, body, params }) {
      const withItem = body.sku !== undefined || body.quantity !== undefined;
      const errors: Record<string, string[]> = {};
      if (withItem) {
        if (!body.customerNumber) errors.customerNumber = ['customerNumber is required.'];
        if (!body.sku) errors.sku = ['sku is required.'];
        if (body.quantity === undefined) errors.quantity = ['quantity is required.'];
      } else {
        if (!body.organizationId) errors.organizationId = ['organizationId is required (or give customerNumber, sku and quantity).'];
        if (!body.userId) errors.userId = ['userId is required (or give customerNumber, sku and quantity).'];
      }
      if (!body.orderType) errors.orderType = ['orderType is required.'];
      const customer = await findVisibleCustomer(em, orgId, auth, params.customerNumber, ['addresses']);
      if (Object.keys(errors).length) throw AppError.validation(errors);
      bodyCustomerMatches(body.customerNumber, params.customerNumber);
      if (body.organizationId && body.organizationId.toLowerCase() !== orgId.toLowerCase() && !auth.isSuper)
        throw AppError.forbidden('organizationId must be the organization of the token.');
      const existing = await em.count(Cart, { organization: orgId, customerNumber: customer.customerNumber, status: 'PENDING' });
      if (existing) throw AppError.badRequest('The customer already has an active cart.');
      const tier = await findPriceTier(em, orgId, customer.pricing);
      const cart = em.create(Cart, {
        organization: orgId,
        customerNumber: customer.customerNumber,
        companyName: customer.companyName,
        status: 'PENDING',
        pricingTier: tier?.name ?? customer.pricing,
        currencyCode: tier?.currencyCode ?? 'USD',
        orderType: body.orderType!,
        userId: body.userId ?? auth.userId ?? null,
      });
      if (withItem) await setLine(em, orgId, cart, body.sku!, body.quantity!);
      await flushCart(em);
      return created(cartView(cart));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/carts/customer/:customerNumber',
    summary: 'The active (PENDING) carts of a customer',
    tag: 'Carts',
    auth: ROLES,
    responses: { 200: `array of ${CART_FIELDS}`, 401: 'Unauthenticated', 404: 'No such customer (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      const customer = await findVisibleCustomer(em, orgId, auth, params.customerNumber, ['addresses']);
      const carts = await em.find(Cart, { organization: orgId, customerNumber: customer.customerNumber, status: 'PENDING' }, { populate: ['items'], orderBy: { createdAt: 'asc' } });
      return ok(carts.map(cartView));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/carts/:cartId',
    summary: 'Read a cart by id (SPEC path /api/carts/{id})',
    tag: 'Carts',
    auth: ROLES,
    responses: { 200: CART_FIELDS, 401: 'Unauthenticated', 404: 'No such cart (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(cartView(await findCart(em, orgId, auth, params.cartId)));
    },
  }),

  defineRoute({
    method: 'put',
    path: CART_PATH,
    summary: 'Update cart fields: body { cart: { orderType?, specialInstructions?, poNumber? } }; answers the cart',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({
      cart: yup
        .object({
          orderType: yup.string().trim().min(1).max(50),
          specialInstructions: yup.string().max(4000).nullable(),
          poNumber: yup.string().trim().max(100).nullable(),
        })
        .required(),
    }),
    responses: { 200: CART_FIELDS, 400: 'Invalid input or closed cart', 401: 'Unauthenticated', 404: 'No such cart' },
    async handler({ em, orgId, auth, body, params }) {
      const cart = await findCart(em, orgId, auth, params.shoppingCartId, params.customerNumber);
      assertOpen(cart);
      const c = body.cart;
      if (c.orderType !== undefined) cart.orderType = c.orderType;
      if (c.specialInstructions !== undefined) cart.specialInstructions = c.specialInstructions;
      if (c.poNumber !== undefined) cart.poNumber = c.poNumber;
      cart.updatedAt = new Date();
      await flushCart(em);
      return ok(cartView(cart));
    },
  }),

  defineRoute({
    method: 'post',
    path: `${CART_PATH}/items`,
    summary: 'Add an item; an existing SKU gets its quantity increased (price re-resolved for the new quantity)',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ sku: yup.string().trim().min(1).max(100).required(), quantity: qty().required(), customerNumber: yup.string().trim().max(50).required() }),
    responses: { 200: CART_FIELDS, 400: 'Invalid input, quantity rules, unknown SKU, closed cart', 401: 'Unauthenticated', 404: 'No such cart' },
    async handler({ em, orgId, auth, body, params }) {
      const cart = await findCart(em, orgId, auth, params.shoppingCartId, params.customerNumber);
      bodyCustomerMatches(body.customerNumber, params.customerNumber);
      assertOpen(cart);
      if (body.quantity < 1) throw AppError.field('quantity', 'quantity must be a whole number of at least 1.');
      const existing = cart.items.getItems().find((i) => i.sku.toLowerCase() === body.sku.toLowerCase());
      await setLine(em, orgId, cart, body.sku, (existing?.quantity ?? 0) + body.quantity);
      await flushCart(em);
      return ok(cartView(cart));
    },
  }),

  defineRoute({
    method: 'put',
    path: `${CART_PATH}/items/:sku`,
    summary: 'Set the quantity of a line (0 removes it); price re-resolved for the new quantity',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ quantity: qty().min(0, '${path} must be at least 0.').required(), customerNumber: yup.string().trim().max(50) }),
    responses: { 200: CART_FIELDS, 400: 'Invalid input, quantity rules, closed cart', 401: 'Unauthenticated', 404: 'No such cart or line' },
    async handler({ em, orgId, auth, body, params }) {
      const cart = await findCart(em, orgId, auth, params.shoppingCartId, params.customerNumber);
      bodyCustomerMatches(body.customerNumber, params.customerNumber);
      assertOpen(cart);
      if (!cart.items.getItems().some((i) => i.sku.toLowerCase() === params.sku.toLowerCase())) throw AppError.notFound('Cart item');
      await setLine(em, orgId, cart, params.sku, body.quantity);
      await flushCart(em);
      return ok(cartView(cart));
    },
  }),

  defineRoute({
    method: 'delete',
    path: `${CART_PATH}/items/:sku`,
    summary: 'Remove a line; answers the cart without it',
    tag: 'Carts',
    auth: ROLES,
    responses: { 200: CART_FIELDS, 400: 'Closed cart', 401: 'Unauthenticated', 404: 'No such cart or line' },
    async handler({ em, orgId, auth, params }) {
      const cart = await findCart(em, orgId, auth, params.shoppingCartId, params.customerNumber);
      assertOpen(cart);
      await setLine(em, orgId, cart, params.sku, 0);
      await flushCart(em);
      return ok(cartView(cart));
    },
  }),

  defineRoute({
    method: 'put',
    path: `${CART_PATH}/shipping`,
    summary: 'Set the shipping address: { shippingAddress, customerNumber }; answers the cart',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ shippingAddress: cartAddressSchema.required(), customerNumber: yup.string().trim().max(50).required() }),
    responses: { 200: CART_FIELDS, 400: 'Invalid address or closed cart', 401: 'Unauthenticated', 404: 'No such cart' },
    async handler({ em, orgId, auth, body, params }) {
      const cart = await findCart(em, orgId, auth, params.shoppingCartId, params.customerNumber);
      bodyCustomerMatches(body.customerNumber, params.customerNumber);
      assertOpen(cart);
      const a = body.shippingAddress;
      const address: CartAddress = {
        line1: a.line1,
        line2: a.line2 ?? null,
        city: a.city,
        state: a.state ?? null,
        postalCode: a.postalCode ?? null,
        country: a.country,
        phone: a.phone ?? null,
        addressType: a.addressType ?? 'Shipping',
        isPrimary: a.isPrimary ?? false,
      };
      cart.shippingAddress = address;
      cart.updatedAt = new Date();
      await flushCart(em);
      return ok(cartView(cart));
    },
  }),

  defineRoute({
    method: 'put',
    path: `${CART_PATH}/po-number`,
    summary: 'Set the PO number (carried to the order and invoice): { poNumber, customerNumber }; answers the cart',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ poNumber: yup.string().trim().min(1).max(100).required(), customerNumber: yup.string().trim().max(50).required() }),
    responses: { 200: CART_FIELDS, 400: 'Invalid input or closed cart', 401: 'Unauthenticated', 404: 'No such cart' },
    async handler({ em, orgId, auth, body, params }) {
      const cart = await findCart(em, orgId, auth, params.shoppingCartId, params.customerNumber);
      bodyCustomerMatches(body.customerNumber, params.customerNumber);
      assertOpen(cart);
      cart.poNumber = body.poNumber;
      cart.updatedAt = new Date();
      await flushCart(em);
      return ok(cartView(cart));
    },
  }),
];
