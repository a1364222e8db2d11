/**
 * Cart endpoints (SPEC "Cart endpoints", "Cart states"): routes and their schemas. The rules
 * (one PENDING cart per customer, tier prices with quantity breaks, who sees which cart) live in
 * src/services/carts/carts.ts; complete-checkout is ./checkout.ts.
 */
import * as yup from 'yup';
import { created, defineRoute, json, ok } from '../http/route.js';
import {
  activeCartsOf,
  addCartItem,
  cartListSpec,
  cartView,
  createCart,
  listCarts,
  readCartView,
  removeCartItem,
  setCartItemQuantity,
  setCartPoNumber,
  setCartShipping,
  updateCart,
} from '../services/carts/carts.js';
import { countryCode, uuid } from './schemas.js';
import * as out from '../domain/contract.js';
import { cart, cartPage } from '../domain/resources.js';

const qty = () => yup.number().typeError('${path} must be a whole number.').integer('${path} must be a whole number.');

export const CART_FIELDS =
  'Cart: shoppingCartId, customerNumber, organizationId, companyName, status, pricingTier, currencyCode, orderType, items[itemId, sku, name, quantity, unitPrice, lineTotal], subtotal, specialInstructions, poNumber, shippingAddress, createdAt, updatedAt';

/** The cart named by the path /api/carts/{customerNumber}/{shoppingCartId}[/items/{sku}]. */
const cartRef = (params: Record<string, string>) => ({ customerNumber: params.customerNumber, shoppingCartId: params.shoppingCartId });
const lineRef = (params: Record<string, string>) => ({ ...cartRef(params), sku: params.sku });

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

const ROLES = ['Admin', 'SalesRep', 'Customer'] as const;
const CART_PATH = '/api/carts/:customerNumber/:shoppingCartId';

export const cartRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/carts',
    operationId: 'listCarts',
    summary: 'List carts (paged; sortOn CompanyName (default), CustomerNumber, Status; filters on CustomerNumber, CompanyName, Status)',
    tag: 'Carts',
    auth: ['Admin'],
    paged: cartListSpec,
    responses: { 200: json(cartPage, 'A page of carts'), 400: 'Bad paging, sorting or filter', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      return ok(await listCarts(em, orgId, query));
    },
  }),

  defineRoute({
    method: 'post',
    // One template with GET /api/carts/{cartId}: OpenAPI treats both as the same path (docs/decisions.md).
    path: '/api/carts/:customerNumberOrCartId',
    operationId: 'createCart',
    summary:
      'Create the active cart of a customer: {customerNumber, sku, quantity, orderType} with a first item, or {organizationId, orderType, userId} empty; 400 when an active cart exists',
    tag: 'Carts',
    auth: ROLES,
    body: createSchema,
    responses: { 201: json(cart, 'The new cart'), 400: 'Invalid input, quantity rules, unknown SKU, or an active cart exists', 401: 'Unauthenticated', 403: 'organizationId is not the token organization', 404: 'No such customer (or not visible)' },
    async handler({ em, orgId, auth, body, params }) {
      const view = cartView(await createCart(em, orgId, auth, params.customerNumberOrCartId, body));
      return created(view, `/api/carts/${view.shoppingCartId}`);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/carts/customer/:customerNumber',
    operationId: 'listActiveCartsOfCustomer',
    summary: 'The active (PENDING) carts of a customer',
    tag: 'Carts',
    auth: ROLES,
    responses: { 200: json(out.arr(cart), 'The active carts of the customer'), 401: 'Unauthenticated', 404: 'No such customer (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok((await activeCartsOf(em, orgId, auth, params.customerNumber)).map(cartView));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/carts/:customerNumberOrCartId',
    operationId: 'getCart',
    summary: 'Read a cart by id (SPEC path /api/carts/{id})',
    tag: 'Carts',
    auth: ROLES,
    responses: { 200: json(cart, 'The cart'), 401: 'Unauthenticated', 404: 'No such cart (or not visible)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readCartView(em, orgId, auth, params.customerNumberOrCartId));
    },
  }),

  defineRoute({
    method: 'put',
    path: CART_PATH,
    operationId: 'updateCart',
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
    responses: { 200: json(cart, 'The cart'), 400: 'Invalid input or closed cart', 401: 'Unauthenticated', 404: 'No such cart', 409: 'The cart is held by a Pending approval request (the detail names it): an approval is for exactly these lines and prices' },
    async handler({ em, orgId, auth, body, params }) {
      return ok(cartView(await updateCart(em, orgId, auth, cartRef(params), body.cart)));
    },
  }),

  defineRoute({
    method: 'post',
    path: `${CART_PATH}/items`,
    operationId: 'addCartItem',
    summary: 'Add an item; an existing SKU gets its quantity increased (price re-resolved for the new quantity)',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ sku: yup.string().trim().min(1).max(100).required(), quantity: qty().required(), customerNumber: yup.string().trim().max(50).required() }),
    responses: { 200: json(cart, 'The cart'), 400: 'Invalid input, quantity rules, unknown SKU, closed cart', 401: 'Unauthenticated', 404: 'No such cart', 409: 'The cart is held by a Pending approval request (the detail names it): an approval is for exactly these lines and prices' },
    async handler({ em, orgId, auth, body, params }) {
      return ok(cartView(await addCartItem(em, orgId, auth, cartRef(params), body)));
    },
  }),

  defineRoute({
    method: 'put',
    path: `${CART_PATH}/items/:sku`,
    operationId: 'setCartItemQuantity',
    summary: 'Set the quantity of a line (0 removes it); price re-resolved for the new quantity',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ quantity: qty().min(0, '${path} must be at least 0.').required(), customerNumber: yup.string().trim().max(50) }),
    responses: { 200: json(cart, 'The cart'), 400: 'Invalid input, quantity rules, closed cart', 401: 'Unauthenticated', 404: 'No such cart or line', 409: 'The cart is held by a Pending approval request (the detail names it): an approval is for exactly these lines and prices' },
    async handler({ em, orgId, auth, body, params }) {
      return ok(cartView(await setCartItemQuantity(em, orgId, auth, lineRef(params), body)));
    },
  }),

  defineRoute({
    method: 'delete',
    path: `${CART_PATH}/items/:sku`,
    operationId: 'removeCartItem',
    summary: 'Remove a line; answers the cart without it',
    tag: 'Carts',
    auth: ROLES,
    responses: { 200: json(cart, 'The cart'), 400: 'Closed cart', 401: 'Unauthenticated', 404: 'No such cart or line', 409: 'The cart is held by a Pending approval request (the detail names it): an approval is for exactly these lines and prices' },
    async handler({ em, orgId, auth, params }) {
      return ok(cartView(await removeCartItem(em, orgId, auth, lineRef(params))));
    },
  }),

  defineRoute({
    method: 'put',
    path: `${CART_PATH}/shipping`,
    operationId: 'setCartShipping',
    summary: 'Set the shipping address: { shippingAddress, customerNumber }; answers the cart',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ shippingAddress: cartAddressSchema.required(), customerNumber: yup.string().trim().max(50).required() }),
    responses: { 200: json(cart, 'The cart'), 400: 'Invalid address or closed cart', 401: 'Unauthenticated', 404: 'No such cart', 409: 'The cart is held by a Pending approval request (the detail names it): an approval is for exactly these lines and prices' },
    async handler({ em, orgId, auth, body, params }) {
      return ok(cartView(await setCartShipping(em, orgId, auth, cartRef(params), body)));
    },
  }),

  defineRoute({
    method: 'put',
    path: `${CART_PATH}/po-number`,
    operationId: 'setCartPoNumber',
    summary: 'Set the PO number (carried to the order and invoice): { poNumber, customerNumber }; answers the cart',
    tag: 'Carts',
    auth: ROLES,
    body: yup.object({ poNumber: yup.string().trim().min(1).max(100).required(), customerNumber: yup.string().trim().max(50).required() }),
    responses: { 200: json(cart, 'The cart'), 400: 'Invalid input or closed cart', 401: 'Unauthenticated', 404: 'No such cart', 409: 'The cart is held by a Pending approval request (the detail names it): an approval is for exactly these lines and prices' },
    async handler({ em, orgId, auth, body, params }) {
      return ok(cartView(await setCartPoNumber(em, orgId, auth, cartRef(params), body)));
    },
  }),
];
