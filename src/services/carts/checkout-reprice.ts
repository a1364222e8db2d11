/**
 * Re-pricing at checkout (docs/pricing.md "Scheduled prices"): a cart priced before a price list
 * took effect (or expired) is charged at the prices in force when it is checked out. Each line whose
 * price changed takes the new one and keeps the one it had (`previousUnitPrice`; the cart answers
 * `repriced: true` on it). One statement prices every line (src/services/pricing/resolve.ts), one
 * updates the changed ones under the cart's row lock. A cart held by a Pending approval is left as it
 * is: the approval is for exactly its lines and prices (its decision re-prices it). The same
 * statement re-checks each line's quantity rules in force now (a list or product rule changed since
 * the line was added): a line breaking one is a 400 naming `items[i].quantity` and the rule.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { boundRows } from '../../db/orm-sql.js';
import { checkOrderQuantity } from '../../domain/pricing/quantity-rules.js';
import { AppError, type FieldErrors } from '../../errors.js';
import { resolvePrices } from '../pricing/resolve.js';
import type { CheckoutCart } from './checkout-cart.js';

/** The cart with its lines at the prices in force now (changed lines stored as re-priced); the cart as given when nothing changed. */
export async function repriceAtCheckout<C extends Pick<CheckoutCart, 'id' | 'customerId' | 'pricingTier' | 'currencyCode' | 'items'>>(
  em: EntityManager,
  orgId: string,
  cart: C,
): Promise<C> {
  if (!cart.items.length) return cart;
  const resolved = await resolvePrices(em, orgId, { customerId: cart.customerId, tier: cart.pricingTier, currency: cart.currencyCode }, cart.items);
  const errors: FieldErrors = {};
  resolved.forEach((r, i) => {
    const why = r.rules ? checkOrderQuantity(cart.items[i].quantity, r.rules) : null;
    if (why) errors[`items[${i}].quantity`] = [`${cart.items[i].sku}: ${why}`];
  });
  if (Object.keys(errors).length) throw AppError.validation(errors, 'The cart cannot be checked out.');
  const changed = cart.items
    .map((item, i) => ({ item, r: resolved[i] }))
    .filter(({ item, r }) => r.product && r.unitPrice && !r.unitPrice.eq(item.unitPrice))
    .map(({ item, r }) => ({ sku: item.sku, price: r.unitPrice!.toFixed(), price_list_id: r.priceListId }));
  if (!changed.length) return cart;
  const updated = await em.transactional(async (tem) => {
    const [row] = await boundRows<{ status: string }>(tem, 'select status from cart where organization_id = $1 and id = $2 for update', [orgId, cart.id]);
    if (row?.status !== 'PENDING') return null;
    const [held] = await boundRows(tem, `select id from approval_request where organization_id = $1 and cart_id = $2 and status = 'Pending' limit 1`, [orgId, cart.id]);
    if (held) return null;
    const rows = await boundRows<{ sku: string; unitPrice: string; lineTotal: string }>(
      tem,
      `update cart_item i set previous_unit_price = i.unit_price, unit_price = r.price, line_total = r.price * i.quantity, price_list_id = r.price_list_id
         from jsonb_to_recordset($3::jsonb) as r(sku text, price numeric, price_list_id uuid)
        where i.organization_id = $1 and i.cart_id = $2 and i.sku = r.sku and i.unit_price <> r.price
        returning i.sku, i.unit_price::text as "unitPrice", i.line_total::text as "lineTotal"`,
      [orgId, cart.id, JSON.stringify(changed)],
    );
    if (rows.length) await boundRows(tem, 'update cart set updated_at = $3 where organization_id = $1 and id = $2', [orgId, cart.id, new Date()]);
    return rows;
  });
  if (!updated?.length) return cart;
  const bySku = new Map(updated.map((u) => [u.sku, u]));
  return {
    ...cart,
    items: cart.items.map((i) => {
      const u = bySku.get(i.sku);
      return u ? { ...i, unitPrice: new Decimal(u.unitPrice).toFixed(), lineTotal: new Decimal(u.lineTotal).toFixed() } : i;
    }),
  };
}
