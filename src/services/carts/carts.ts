/**
 * Carts (SPEC "Cart endpoints", "Cart states"): the view, who may see which cart, creating a
 * customer's active cart, and every edit of an open cart. One PENDING cart per customer is
 * enforced by the partial unique index `cart_one_pending_per_customer`; a concurrent second
 * create hits it and answers 400. Line prices come from the customer's tier with quantity
 * breaks (src/services/catalog/pricing.ts) and are recomputed whenever a line's quantity
 * changes. Customer tokens reach only their own carts, sales reps only their customers' carts
 * (404 otherwise). Checkout is src/services/carts/checkout.ts.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { UUID_RE } from '../../domain/schemas.js';
import { moneyNumber } from '../../domain/money.js';
import { Cart, CartItem } from '../../entities/index.js';
import type { CartAddress } from '../../entities/Cart.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { dataEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { findPriceTier, priceLine, type Buyer } from '../catalog/pricing.js';
import { assertLinesInCatalog } from '../catalog/catalog-visibility.js';
import { byVisibleCustomer, customerNumberFiltersById, findVisibleCustomer, liveCustomerId, readVisibleRow, visibleCustomerSql } from '../customers/visibility.js';
import { boundRows } from '../../db/orm-sql.js';
import type { Out } from '../../domain/contract.js';
import type { cart } from '../../domain/resources.js';

/** A cart as the path names it: /api/carts/{customerNumber}/{shoppingCartId}. */
export interface CartRef {
  customerNumber: string;
  shoppingCartId: string;
}

/** A cart as the view needs it: the entity's stored fields with its lines (from the ORM or one SQL row). */
export type CartRow = Pick<
  Cart,
  'id' | 'customerNumber' | 'companyName' | 'status' | 'pricingTier' | 'currencyCode' | 'orderType' | 'specialInstructions' | 'poNumber' | 'shippingAddress' | 'createdAt' | 'updatedAt'
> & { organizationId: string; items: readonly (Pick<CartItem, 'id' | 'sku' | 'name' | 'quantity' | 'unitPrice' | 'lineTotal' | 'createdAt'> &
    Partial<Pick<CartItem, 'priceListId' | 'previousUnitPrice'>>)[] };

export function cartView(c: Cart): Out<typeof cart> {
  return cartRowView({ ...c, organizationId: c.organization.id, items: c.items.getItems() });
}

export function cartRowView(c: CartRow): Out<typeof cart> {
  const items = [...c.items].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.sku.localeCompare(b.sku));
  const subtotal = items.reduce((s, i) => s.plus(i.lineTotal), new Decimal(0));
  return {
    shoppingCartId: c.id,
    customerNumber: c.customerNumber,
    organizationId: c.organizationId,
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
      // Tier-priced lines keep the SPEC shape: these appear only for lines a price list or a re-pricing concerns.
      ...(i.priceListId ? { priceListId: i.priceListId } : {}),
      ...(i.previousUnitPrice !== null && i.previousUnitPrice !== undefined
        ? { repriced: true, previousUnitPrice: moneyNumber(i.previousUnitPrice, c.currencyCode) }
        : {}),
    })),
    subtotal: moneyNumber(subtotal, c.currencyCode),
    specialInstructions: c.specialInstructions ?? null,
    poNumber: c.poNumber ?? null,
    shippingAddress: c.shippingAddress ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/**
 * GET /api/carts/{id} in one statement with bound parameters (issue 18): the cart, its lines and the
 * visibility rule of findCart, without hydrating entities. 404 when absent or not visible.
 */
const CART_VIEW_SQL = `select k.id, k.organization_id as "organizationId", k.customer_number as "customerNumber", k.company_name as "companyName",
    k.status, k.pricing_tier as "pricingTier", k.currency_code as "currencyCode", k.order_type as "orderType",
    k.special_instructions as "specialInstructions", k.po_number as "poNumber", k.shipping_address as "shippingAddress",
    k.created_at as "createdAt", k.updated_at as "updatedAt",
    coalesce((select json_agg(json_build_object('id', i.id, 'sku', i.sku, 'name', i.name, 'quantity', i.quantity,
                                                'unitPrice', i.unit_price::text, 'lineTotal', i.line_total::text, 'createdAt', i.created_at,
                                                'priceListId', i.price_list_id, 'previousUnitPrice', i.previous_unit_price::text))
                from cart_item i where i.organization_id = k.organization_id and i.cart_id = k.id), '[]') as items
  from cart k
 where k.organization_id = $1 and k.id = $2
   and ${visibleCustomerSql('k.customer_id', '$1', '$3', '$4')}`;

export async function readCartView(em: EntityManager, orgId: string, auth: Principal, cartId: string): Promise<Out<typeof cart>> {
  type Row = Omit<CartRow, 'items'> & { items: (Omit<CartRow['items'][number], 'createdAt'> & { createdAt: string })[] };
  const row = await readVisibleRow<Row>(em, CART_VIEW_SQL, orgId, auth, cartId, 'Cart');
  return cartRowView({ ...row, items: row.items.map((i) => ({ ...i, createdAt: new Date(i.createdAt) })) });
}

/** The cart with this id the principal may see (and of this customer when given), items loaded; 404 otherwise. */
export async function findCart(em: EntityManager, orgId: string, auth: Principal, cartId: string, customerNumber?: string): Promise<Cart> {
  if (!UUID_RE.test(cartId)) throw AppError.notFound('Cart');
  // With a customerNumber, only a cart of the stored customer with that number (by its id, never by the number).
  const owner = customerNumber !== undefined ? await liveCustomerId(em, orgId, customerNumber) : undefined;
  if (owner === null) throw AppError.notFound('Cart');
  const where: FilterQuery<Cart> = { organization: orgId, id: cartId, ...(owner !== undefined ? { customerId: owner } : {}) };
  const cart = await em.findOne(Cart, { $and: [where, await byVisibleCustomer(em, orgId, auth)] }, { populate: ['items'] });
  if (!cart) throw AppError.notFound('Cart');
  return cart;
}

const closedCart = () => AppError.badRequest('The cart is closed (checked out) and can no longer be modified.');

function assertOpen(cart: Cart): void {
  if (cart.status !== 'PENDING') throw closedCart();
}

/** A customerNumber in a body must be the one in the path. */
export function assertBodyCustomer(bodyValue: string | undefined, path: string): void {
  if (bodyValue !== undefined && bodyValue !== path) throw AppError.field('customerNumber', 'customerNumber must match the customer number in the path.');
}

/** Who a cart prices for: its customer, tier and currency (src/services/pricing/resolve.ts). */
export const cartBuyer = (cart: Pick<Cart, 'customerId' | 'pricingTier' | 'currencyCode'>): Buyer => ({
  customerId: cart.customerId ?? null,
  tier: cart.pricingTier,
  currency: cart.currencyCode,
});

/** Sets the quantity of the line with `sku` (0 removes it), priced for the new quantity in the cart's tier. */
async function setLine(em: EntityManager, orgId: string, cart: Cart, sku: string, quantity: number): Promise<void> {
  const existing = cart.items.getItems().find((i) => i.sku.toLowerCase() === sku.toLowerCase());
  if (quantity === 0) {
    if (!existing) throw AppError.notFound('Cart item');
    cart.items.remove(existing);
    cart.updatedAt = new Date();
    return;
  }
  await assertLinesInCatalog(em, orgId, cart.customerId ?? null, [{ sku: existing?.sku ?? sku }], () => 'sku');
  const { product, unitPrice, priceListId } = await priceLine(em, orgId, cartBuyer(cart), existing?.sku ?? sku, quantity);
  const lineTotal = unitPrice.times(quantity);
  if (existing) {
    existing.quantity = quantity;
    existing.unitPrice = unitPrice.toString();
    existing.lineTotal = lineTotal.toString();
    existing.name = product.name;
    existing.priceListId = priceListId;
    // An edit prices the line anew: it is no longer a line re-priced by a checkout.
    existing.previousUnitPrice = null;
  } else {
    cart.items.add(
      em.create(CartItem, { cart, sku: product.sku, name: product.name, quantity, unitPrice: unitPrice.toString(), lineTotal: lineTotal.toString(), priceListId }),
    );
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

/**
 * The cart held by a Pending approval request (docs/approvals.md "A held cart cannot be edited"):
 * the approver approves exactly these lines and prices, so nothing of the cart changes until the
 * request is decided. Read under the cart's row lock, which the admission (src/services/orders/admission.ts) takes too.
 */
const HELD_SQL = `select id from approval_request where organization_id = $1 and cart_id = $2 and status = 'Pending' limit 1`;

export const heldCart = (approvalId: string) =>
  AppError.conflict(
    `The cart is held for approval ${approvalId}: an approval is for exactly these lines and prices, so the cart cannot be changed while the request is pending. ` +
      'Edit it once the request is rejected or has expired, then check out again to ask for a new approval.',
  );

/**
 * Stores an edit of an open cart under the cart's row lock, and refuses it (400) when the cart was
 * closed since it was read: a checkout's order takes the same lock (src/services/carts/checkout-steps.ts), so
 * an edit lands either before the order, which then sees it (and is refused when it no longer
 * matches the charge), or not at all. A cart held by a Pending approval is refused (409 naming it).
 */
async function storeOpenCartEdit(em: EntityManager, cart: Cart): Promise<void> {
  await em.begin();
  try {
    const [row] = await boundRows<{ status: string }>(em, 'select status from cart where organization_id = $1 and id = $2 for update', [cart.organization.id, cart.id]);
    if (row?.status !== 'PENDING') throw closedCart();
    const [held] = await boundRows<{ id: string }>(em, HELD_SQL, [cart.organization.id, cart.id]);
    if (held) throw heldCart(held.id);
    await flushCart(em);
    await em.commit();
  } catch (e) {
    await em.rollback();
    throw e;
  }
}

/**
 * The one way an open cart changes: find it (404), check a customerNumber given in the body
 * against the path (400), refuse a closed cart (400), apply `edit`, stamp and store it.
 */
async function editOpenCart(
  em: EntityManager,
  orgId: string,
  auth: Principal,
  ref: CartRef,
  bodyCustomerNumber: string | undefined,
  edit: (cart: Cart) => Promise<void> | void,
): Promise<Cart> {
  const cart = await findCart(em, orgId, auth, ref.shoppingCartId, ref.customerNumber);
  assertBodyCustomer(bodyCustomerNumber, ref.customerNumber);
  assertOpen(cart);
  await edit(cart);
  cart.updatedAt = new Date();
  await storeOpenCartEdit(em, cart);
  return cart;
}

export const cartListSpec: ListSpec = {
  filters: {
    customerNumber: { prop: 'customerNumber', type: 'string' },
    companyName: { prop: 'companyName', type: 'string' },
    status: { prop: 'status', type: 'string' },
  },
  sorts: { CompanyName: 'companyName', CustomerNumber: 'customerNumber', Status: 'status' },
  defaultSort: 'CompanyName',
};

/** GET /api/carts: the organization's carts, paged. */
export async function listCarts(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, cartListSpec);
  const [rows, total] = await em.findAndCount(
    Cart,
    { $and: [{ organization: orgId }, (await customerNumberFiltersById(em, orgId, q.where)) as FilterQuery<Cart>] },
    { populate: ['items'], orderBy: [q.orderBy, { createdAt: 'asc' }, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return dataEnvelope(rows.map(cartView), total, q);
}

export interface NewCart {
  customerNumber?: string;
  sku?: string;
  quantity?: number;
  orderType?: string;
  organizationId?: string;
  userId?: string;
}

/** Which fields a create body lacks: {customerNumber, sku, quantity, orderType} with a first item, or {organizationId, orderType, userId} empty. */
function missingCreateFields(body: NewCart, withItem: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (withItem) {
    if (!body.customerNumber) errors.customerNumber = ['customerNumber is required.'];
    if (!body.sku) errors.sku = ['sku is required.'];
    if (body.quantity === undefined) errors.quantity = ['quantity is required.'];
  } else {
    if (!body.organizationId) errors.organizationId = ['organizationId is required (or give customerNumber, sku and quantity).'];
    if (!body.userId) errors.userId = ['userId is required (or give customerNumber, sku and quantity).'];
  }
  if (!body.orderType) errors.orderType = ['orderType is required.'];
  return errors;
}

/** POST /api/carts/{customerNumber}: the customer's active cart, with a first item or empty; 400 when one exists. */
export async function createCart(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, body: NewCart): Promise<Cart> {
  const withItem = body.sku !== undefined || body.quantity !== undefined;
  const errors = missingCreateFields(body, withItem);
  const customer = await findVisibleCustomer(em, orgId, auth, customerNumber, ['addresses']);
  if (Object.keys(errors).length) throw AppError.validation(errors);
  assertBodyCustomer(body.customerNumber, customerNumber);
  if (body.organizationId && body.organizationId.toLowerCase() !== orgId.toLowerCase() && !auth.isSuper)
    throw AppError.forbidden('organizationId must be the organization of the token.');
  // A second PENDING cart of the customer is refused by the unique index cart_one_pending_per_customer (flushCart: 400).
  const tier = await findPriceTier(em, orgId, customer.pricing);
  const cart = em.create(Cart, {
    organization: orgId,
    customerNumber: customer.customerNumber,
    customerId: customer.id,
    companyName: customer.companyName,
    status: 'PENDING',
    pricingTier: tier?.name ?? customer.pricing,
    currencyCode: tier?.currencyCode ?? 'USD',
    orderType: body.orderType!,
    userId: body.userId ?? auth.userId ?? null,
  });
  if (withItem) await setLine(em, orgId, cart, body.sku!, body.quantity!);
  await flushCart(em);
  return cart;
}

/** GET /api/carts/customer/{customerNumber}: the customer's PENDING carts. */
export async function activeCartsOf(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<Cart[]> {
  const customer = await findVisibleCustomer(em, orgId, auth, customerNumber, ['addresses']);
  return em.find(Cart, { organization: orgId, customerId: customer.id, status: 'PENDING' }, { populate: ['items'], orderBy: { createdAt: 'asc' } });
}

/** PUT the cart: orderType, specialInstructions, poNumber (each when given). */
export function updateCart(
  em: EntityManager,
  orgId: string,
  auth: Principal,
  ref: CartRef,
  fields: { orderType?: string; specialInstructions?: string | null; poNumber?: string | null },
): Promise<Cart> {
  return editOpenCart(em, orgId, auth, ref, undefined, (cart) => {
    if (fields.orderType !== undefined) cart.orderType = fields.orderType;
    if (fields.specialInstructions !== undefined) cart.specialInstructions = fields.specialInstructions;
    if (fields.poNumber !== undefined) cart.poNumber = fields.poNumber;
  });
}

/** POST .../items: adds the quantity to the SKU's line (a new line when absent), re-priced for the new quantity. */
export function addCartItem(em: EntityManager, orgId: string, auth: Principal, ref: CartRef, body: { sku: string; quantity: number; customerNumber: string }): Promise<Cart> {
  return editOpenCart(em, orgId, auth, ref, body.customerNumber, async (cart) => {
    if (body.quantity < 1) throw AppError.field('quantity', 'quantity must be a whole number of at least 1.');
    const existing = cart.items.getItems().find((i) => i.sku.toLowerCase() === body.sku.toLowerCase());
    await setLine(em, orgId, cart, body.sku, (existing?.quantity ?? 0) + body.quantity);
  });
}

/** PUT .../items/{sku}: sets the line's quantity (0 removes it); 404 when the cart has no such line. */
export function setCartItemQuantity(
  em: EntityManager,
  orgId: string,
  auth: Principal,
  ref: CartRef & { sku: string },
  body: { quantity: number; customerNumber?: string },
): Promise<Cart> {
  return editOpenCart(em, orgId, auth, ref, body.customerNumber, async (cart) => {
    if (!cart.items.getItems().some((i) => i.sku.toLowerCase() === ref.sku.toLowerCase())) throw AppError.notFound('Cart item');
    await setLine(em, orgId, cart, ref.sku, body.quantity);
  });
}

/** DELETE .../items/{sku}. */
export function removeCartItem(em: EntityManager, orgId: string, auth: Principal, ref: CartRef & { sku: string }): Promise<Cart> {
  return editOpenCart(em, orgId, auth, ref, undefined, (cart) => setLine(em, orgId, cart, ref.sku, 0));
}

export interface CartAddressInput {
  line1: string;
  line2?: string | null;
  city: string;
  state?: string | null;
  postalCode?: string | null;
  country: string;
  phone?: string | null;
  addressType?: string | null;
  isPrimary?: boolean | null;
}

/** PUT .../shipping: the cart's shipping address (addressType Shipping unless given). */
export function setCartShipping(em: EntityManager, orgId: string, auth: Principal, ref: CartRef, body: { shippingAddress: CartAddressInput; customerNumber: string }): Promise<Cart> {
  return editOpenCart(em, orgId, auth, ref, body.customerNumber, (cart) => {
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
  });
}

/** PUT .../po-number: the PO number carried to the order and invoice. */
export function setCartPoNumber(em: EntityManager, orgId: string, auth: Principal, ref: CartRef, body: { poNumber: string; customerNumber: string }): Promise<Cart> {
  return editOpenCart(em, orgId, auth, ref, body.customerNumber, (cart) => {
    cart.poNumber = body.poNumber;
  });
}
