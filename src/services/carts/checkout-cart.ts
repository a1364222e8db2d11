/**
 * The cart as checkout reads it: one SQL text for every read of a checkout, the API's
 * (complete-checkout, under the caller's visibility) and the worker's (the reservation, under the
 * cart's row lock; the order, before and after the lock), and the one function for what the cart
 * comes to (`cartAmountDue`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { amountDue } from '../../domain/orders/totals.js';
import type { Cart } from '../../entities/index.js';
import type { CartAddress } from '../../entities/Cart.js';
import type { CustomerFacts } from '../orders/create.js';
import { boundRows } from '../../db/orm-sql.js';
import { rowsOf } from '../../db/sql.js';
import { visibleCustomerSql } from '../customers/visibility.js';
import { catalogAdmitsSql } from '../catalog/catalog-visibility.js';

/**
 * The cart, its lines in the order they were added (each with whether its SKU is still active in
 * the catalog and held by the customer's catalogs, if it has any), its customer record (by id: a customer who took a deleted customer's number is
 * another record) with its addresses, and the order already written for it (a finished checkout
 * re-run, or an order posted or imported naming this cart), whatever the cart's status.
 * $1 organization, $2 cart id, $3 and $4 the visibility (visibleCustomerSql; `all` and null for the
 * worker), $5 the customer number the cart must belong to (null: any).
 */
const CHECKOUT_CART_SQL = `select k.id, k.status, k.customer_number as "customerNumber", k.customer_id as "customerId", k.company_name as "companyName",
    k.pricing_tier as "pricingTier", k.currency_code as "currencyCode", k.order_type as "orderType",
    k.special_instructions as "specialInstructions", k.po_number as "poNumber", k.shipping_address as "shippingAddress",
    k.reserved_order_number as "reservedOrderNumber", o.id as "existingOrderId", o.order_number as "existingOrderNumber",
    coalesce((select json_agg(json_build_object('sku', i.sku, 'name', i.name, 'quantity', i.quantity, 'unitPrice', i.unit_price::text,
                                                'lineTotal', i.line_total::text, 'priceListId', i.price_list_id,
                                                'inCatalog', exists (select 1 from product p where p.organization_id = i.organization_id and p.sku = i.sku and p.active
                                                                     and ${catalogAdmitsSql('p', 'k.customer_id')}))
                              order by i.created_at, i.id)
                from cart_item i where i.organization_id = k.organization_id and i.cart_id = k.id), '[]') as items,
    (select json_build_object('id', c.id, 'customerNumber', c.customer_number, 'companyName', c.company_name, 'companyEmail', c.company_email,
                              'companyPhone', c.company_phone, 'companyFax', c.company_fax, 'terms', c.terms, 'repNumber', c.rep_number,
                              'addresses', coalesce((select json_agg(json_build_object('addressType', a.address_type, 'isPrimary', a.is_primary, 'line1', a.line1,
                                                                                       'line2', a.line2, 'city', a.city, 'state', a.state, 'postalCode', a.postal_code,
                                                                                       'country', a.country) order by a.position, a.id)
                                                       from customer_address a where a.organization_id = c.organization_id and a.customer_id = c.id), '[]'))
       from customer c where c.organization_id = k.organization_id and c.id = k.customer_id) as customer
  from cart k
  left join lateral (select s.id, s.order_number from sales_order s
                      where s.organization_id = k.organization_id and s.origination_cart_id = k.id) o on true
 where k.organization_id = $1 and k.id = $2
   and ($5::text is null or exists (select 1 from customer c where c.organization_id = $1 and c.id = k.customer_id and c.customer_number = $5))
   and ${visibleCustomerSql('k.customer_id', '$1', '$3', '$4')}`;

/**
 * The reservation's copy: the same read holding the cart's row lock for the transaction (a
 * concurrent reservation waits, so one number is allocated per cart).
 */
const LOCKED_CHECKOUT_CART_SQL = `${CHECKOUT_CART_SQL}
   for update of k`;

export interface CheckoutCartLine {
  sku: string;
  name: string;
  quantity: number;
  unitPrice: string;
  lineTotal: string;
  /** The price list that priced the line; null: the tier. */
  priceListId: string | null;
  inCatalog: boolean;
}

export interface CheckoutCart {
  id: string;
  status: Cart['status'];
  customerNumber: string;
  customerId: string | null;
  companyName: string;
  pricingTier: string;
  currencyCode: string;
  orderType: string;
  specialInstructions: string | null;
  poNumber: string | null;
  shippingAddress: CartAddress | null;
  reservedOrderNumber: string | null;
  existingOrderId: string | null;
  existingOrderNumber: string | null;
  items: CheckoutCartLine[];
  customer: (CustomerFacts & { id: string; terms: string | null; repNumber: string | null }) | null;
}

/** What the cart's lines come to as a checkout charges them (src/domain/orders/totals.ts amountDue): `25.00`. */
export const cartAmountDue = (cart: Pick<CheckoutCart, 'items' | 'currencyCode'>): string =>
  amountDue(
    cart.items.map((i) => ({ price: i.unitPrice, quantity: i.quantity })),
    cart.currencyCode,
  );

/**
 * complete-checkout's read, on the read pool: the cart of the stored customer with `customerNumber`
 * (by the customer's id, never by the number) under the caller's visibility (`visible`, from
 * visibilityArgs). Null when absent or not visible.
 */
export async function readVisibleCheckoutCart(
  em: EntityManager,
  orgId: string,
  cartId: string,
  visible: readonly [string, string | null],
  customerNumber: string,
): Promise<CheckoutCart | null> {
  const [cart] = await rowsOf<CheckoutCart>(em, CHECKOUT_CART_SQL, [orgId, cartId, ...visible, customerNumber]);
  return cart ?? null;
}

/**
 * The worker's read, on the ORM's connection (inside a transaction: its snapshot and locks).
 * `lock`: the cart's row is locked for the rest of the transaction. Null when the cart is gone.
 */
export async function readCartForCheckout(em: EntityManager, orgId: string, cartId: string, opts: { lock?: boolean } = {}): Promise<CheckoutCart | null> {
  const [cart] = await boundRows<CheckoutCart>(em, opts.lock ? LOCKED_CHECKOUT_CART_SQL : CHECKOUT_CART_SQL, [orgId, cartId, 'all', null, null]);
  return cart ?? null;
}
