import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/** Shipping address of a cart, in the SPEC's cart address shape. */
export interface CartAddress {
  line1?: string | null;
  line2?: string | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  country?: string | null;
  phone?: string | null;
  addressType?: string | null;
  isPrimary?: boolean | null;
}

/**
 * A shopping cart of a customer. At most one PENDING cart per (organization, customer) is
 * enforced by the partial unique index `cart_one_pending_per_customer`. `reservedOrderNumber`
 * is written by checkout's reserveOrderNumber activity so a retried checkout reuses it.
 */
export const Cart = defineEntity({
  name: 'Cart',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    customerNumber: p.string(),
    /** The customer record this row belongs to (DESIGN "Security decisions"); null once that customer is deleted. FK (organization_id, customer_id) in the migration. */
    customerId: p.uuid().nullable(),
    companyName: p.string(),
    status: p.string().length(20).$type<'PENDING' | 'CLOSED'>().default('PENDING'),
    pricingTier: p.string(),
    currencyCode: p.string().length(3),
    orderType: p.string().length(50),
    specialInstructions: p.text().nullable(),
    poNumber: p.string().length(100).nullable(),
    shippingAddress: p.json<CartAddress>().nullable(),
    userId: p.string().length(100).nullable(),
    reservedOrderNumber: p.string().length(50).nullable(),
    /** Checkout runs that reserved this cart; the provider key of a run's charge names its attempt (reserveOrderNumber). */
    checkoutAttempts: p.integer().default(0),
    items: () => p.oneToMany(CartItem).mappedBy('cart').orphanRemoval(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [
    {
      name: 'cart_one_pending_per_customer',
      expression: `create unique index "cart_one_pending_per_customer" on "cart" ("organization_id", "customer_id") where "status" = 'PENDING'`,
    },
  ],
  indexes: [
    { name: 'cart_org_customer_index', properties: ['organization', 'customerNumber'] },
    { name: 'cart_org_customer_id_index', properties: ['organization', 'customerId'] },
  ],
  checks: [{ name: 'cart_status_check', expression: `status in ('PENDING', 'CLOSED')` }],
});
export type Cart = InferEntity<typeof Cart>;

/** One line of a cart; one line per SKU. */
export const CartItem = defineEntity({
  name: 'CartItem',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    /** The cart's organization (DESIGN "Scale-out"; FK (organization_id, cart_id) in the migration). */
    organization: () => p.manyToOne(Organization).deleteRule('cascade').onCreate((x: { cart: { organization: unknown } }) => x.cart.organization as never),
    cart: () => p.manyToOne(Cart).deleteRule('cascade').index('cart_item_cart_id_index'),
    sku: p.string().length(100),
    name: p.string().length(300),
    quantity: p.integer(),
    unitPrice: p.decimal().precision(19).scale(4),
    lineTotal: p.decimal().precision(19).scale(4),
    /** The price list that priced the line (null: the tier); docs/pricing.md. */
    priceListId: p.uuid().nullable(),
    /** The unit price before the checkout re-priced the line (null: not re-priced). */
    previousUnitPrice: p.decimal().precision(19).scale(4).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'cart_item_cart_sku_unique', properties: ['organization', 'cart', 'sku'] }],
  checks: [{ name: 'cart_item_quantity_check', expression: 'quantity >= 1' }],
});
export type CartItem = InferEntity<typeof CartItem>;
