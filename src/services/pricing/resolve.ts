/**
 * The one price resolver (docs/pricing.md "Which price applies"): every place that prices a line
 * for a customer (product reads for a customer token, carts, checkout, quotes' list prices, rep and
 * customer orders and invoices) asks it. Among the Active price lists valid at `at`
 * (`validFrom <= at < validTo`) in the buyer's currency, assigned to the customer directly or to
 * its tier, that price the SKU at the quantity (a quantity below a list's first break falls
 * through): the lowest `priority`; at equal priority a direct assignment before a tier's, then the
 * lower price. Else the tier's price with its quantity breaks.
 *
 * The same statement answers each line's quantity rules in force (docs/pricing.md "Quantity rules"):
 * the overrides of the entry of the list that ranks first among the lists in force with an entry
 * for the SKU (`bestListRulesSql`, whatever the quantity), each null override the product's rule.
 *
 * Set-based: one statement prices every line of a request (a 1,000-line cart is one statement).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { boundRows } from '../../db/orm-sql.js';
import type { Sql } from '../../db/sql.js';
import { rulesInForce, type QuantityRules } from '../../domain/pricing/quantity-rules.js';

/** Who is buying: the customer record (null: none stored), its price tier and currency. */
export interface Buyer {
  customerId: string | null;
  tier: string;
  currency: string;
}

/** What the resolver answers for one requested line. */
export interface ResolvedLine {
  /** The product (active, by exact sku), or null when the catalog has none. */
  product: { id: string; sku: string; name: string } | null;
  /** The quantity rules in force for the buyer (null when there is no product). */
  rules: QuantityRules | null;
  /** The unit price at the line's quantity, or null when neither a list nor the tier prices it. */
  unitPrice: Decimal | null;
  /** The price list that priced the line; null: the tier (or no price). */
  priceListId: string | null;
}

/**
 * The price lists in force for a buyer, as a subquery with columns (id, priority, direct): `org`,
 * `customerId`, `tier`, `currency` and `at` are SQL expressions (placeholders) of the caller's statement.
 */
export function listsInForceSql(org: string, customerId: string, tier: string, currency: string, at: string): string {
  return `(select pl.id, pl.priority, bool_or(a.customer_id is not null) as direct
     from price_list_assignment a
     join price_list pl on pl.organization_id = a.organization_id and pl.id = a.price_list_id
    where a.organization_id = ${org}
      and (a.customer_id = (${customerId})::uuid
           or a.price_tier_id = (select t.id from price_tier t where t.organization_id = ${org} and lower(t.name) = lower((${tier})::text)))
      and pl.status = 'Active' and pl.currency_code = (${currency})::text
      and (pl.valid_from is null or pl.valid_from <= (${at})::timestamptz) and (pl.valid_to is null or (${at})::timestamptz < pl.valid_to)
    group by pl.id, pl.priority)`;
}

/**
 * The winning list price of product sku `sku` at quantity `qty` among `lists` (a name bound by the
 * caller's statement to listsInForceSql): a row (price_list_id, price), or none.
 */
export function bestListPriceSql(org: string, lists: string, sku: string, qty: string): string {
  return `(select e.price_list_id, e.price from ${lists} ls
      cross join lateral (select x.price_list_id, x.price from price_list_price x
                           where x.organization_id = ${org} and x.price_list_id = ls.id and x.sku = ${sku} and x.at_quantity <= ${qty}
                           order by x.at_quantity desc limit 1) e
     order by ls.priority, ls.direct desc, e.price limit 1)`;
}

/**
 * The quantity rule overrides of the SKU `sku` for the buyer, among `lists` (as bestListPriceSql):
 * the entry of the list that ranks first among those with an entry for the SKU at any quantity
 * (lowest priority, direct before tier, then the lower first-break price), so the rules do not
 * depend on the quantity asked. A row (minimum_order_quantity, maximum_order_quantity,
 * quantity_increment), or none (no list has the SKU).
 */
export function bestListRulesSql(org: string, lists: string, sku: string): string {
  return `(select e.minimum_order_quantity, e.maximum_order_quantity, e.quantity_increment from ${lists} ls
      cross join lateral (select x.price, x.minimum_order_quantity, x.maximum_order_quantity, x.quantity_increment from price_list_price x
                           where x.organization_id = ${org} and x.price_list_id = ls.id and x.sku = ${sku}
                           order by x.at_quantity limit 1) e
     order by ls.priority, ls.direct desc, e.price, ls.id limit 1)`;
}

const RESOLVE_SQL = `with l as (select x.sku, x.quantity, x.n from unnest($2::text[], $3::int[]) with ordinality as x(sku, quantity, n)),
  lists as ${listsInForceSql('$1', '$4::uuid', '$5::text', '$6::text', '$7::timestamptz')}
  select l.n::int as n, p.id, p.sku, p.name, p.minimum_order_quantity as "minimumOrderQuantity", p.maximum_order_quantity as "maximumOrderQuantity",
         p.quantity_increment as "quantityIncrement", rules.minimum_order_quantity as "entryMinimum", rules.maximum_order_quantity as "entryMaximum",
         rules.quantity_increment as "entryIncrement", best.price_list_id as "priceListId", coalesce(best.price, tierp.price)::text as price
    from l
    left join product p on p.organization_id = $1 and p.sku = l.sku and p.active
    left join lateral ${bestListPriceSql('$1', 'lists', 'p.sku', 'l.quantity')} best on p.id is not null
    left join lateral ${bestListRulesSql('$1', 'lists', 'p.sku')} rules on p.id is not null
    left join lateral (select pp.price from product_price pp
                        where pp.organization_id = $1 and pp.product_id = p.id and lower(pp.tier) = lower($5::text) and pp.at_quantity <= l.quantity
                        order by pp.at_quantity desc limit 1) tierp on p.id is not null
   order by l.n`;

interface Row {
  n: number;
  id: string | null;
  sku: string | null;
  name: string | null;
  minimumOrderQuantity: number | null;
  maximumOrderQuantity: number | null;
  quantityIncrement: number | null;
  entryMinimum: number | null;
  entryMaximum: number | null;
  entryIncrement: number | null;
  priceListId: string | null;
  price: string | null;
}

/**
 * Prices every line in one statement, in the order given; on the EntityManager's connection (inside
 * its transaction when there is one). `at`: the instant the prices are for (now by default).
 */
export async function resolvePrices(
  em: EntityManager,
  orgId: string,
  buyer: Buyer,
  lines: readonly { sku: string; quantity: number }[],
  at: Date = new Date(),
): Promise<ResolvedLine[]> {
  if (!lines.length) return [];
  const rows = await boundRows<Row>(em, RESOLVE_SQL, [
    orgId,
    lines.map((l) => l.sku),
    // A quantity that is not a whole number of at least 1 is refused by the callers' rules; price it at 1 meanwhile.
    lines.map((l) => (Number.isInteger(l.quantity) && l.quantity >= 1 ? l.quantity : 1)),
    buyer.customerId,
    buyer.tier,
    buyer.currency,
    at,
  ]);
  return rows.map((r) => ({
    product: r.id ? { id: r.id, sku: r.sku!, name: r.name! } : null,
    rules: r.id
      ? rulesInForce(
          { minimumOrderQuantity: r.minimumOrderQuantity!, maximumOrderQuantity: r.maximumOrderQuantity, quantityIncrement: r.quantityIncrement! },
          { minimumOrderQuantity: r.entryMinimum, maximumOrderQuantity: r.entryMaximum, quantityIncrement: r.entryIncrement },
        )
      : null,
    unitPrice: r.price === null ? null : new Decimal(r.price),
    priceListId: r.priceListId,
  }));
}

const BUYER_LINES_SQL = `select l.n::int as n, p.minimum_order_quantity as "minimumOrderQuantity", p.maximum_order_quantity as "maximumOrderQuantity",
         p.quantity_increment as "quantityIncrement", r.minimum_order_quantity as "entryMinimum", r.maximum_order_quantity as "entryMaximum",
         r.quantity_increment as "entryIncrement", best.price_list_id as "priceListId", coalesce(best.price, tierp.price)::text as price
    from unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[]) with ordinality as l(customer_id, tier, currency, sku, quantity, n)
    join product p on p.organization_id = $1 and p.sku = l.sku
    left join lateral ${bestListRulesSql('$1', listsInForceSql('$1', 'l.customer_id', 'l.tier', 'l.currency', '$7::timestamptz'), 'p.sku')} r on true
    left join lateral ${bestListPriceSql('$1', listsInForceSql('$1', 'l.customer_id', 'l.tier', 'l.currency', '$7::timestamptz'), 'p.sku', 'l.quantity')} best on p.active
    left join lateral (select pp.price from product_price pp
                        where pp.organization_id = $1 and pp.product_id = p.id and lower(pp.tier) = lower(l.tier) and pp.at_quantity <= l.quantity
                        order by pp.at_quantity desc limit 1) tierp on p.active`;

/** A line of lines of several buyers as the resolver answers it (resolveLinesOfBuyers). */
export interface BuyerLine {
  rules: QuantityRules;
  /** The unit price at the line's quantity (null: the product is inactive, or neither a list nor the tier prices it). */
  unitPrice: Decimal | null;
  /** The price list that priced the line; null: the tier (or no price). */
  priceListId: string | null;
}

/**
 * The quantity rules in force and the price (with the list that set it) of lines of several buyers
 * at once (an import chunk's order lines), by the resolver's rules: one statement for any number of
 * lines. Lines whose SKU is no product are absent from the answer (position -> line).
 */
export async function resolveLinesOfBuyers(
  run: Sql,
  orgId: string,
  lines: readonly { customerId: string | null; tier: string; currency: string; sku: string; quantity: number }[],
  at: Date = new Date(),
): Promise<Map<number, BuyerLine>> {
  if (!lines.length) return new Map();
  const rows = await run<Row>(BUYER_LINES_SQL, [
    orgId,
    lines.map((l) => l.customerId),
    lines.map((l) => l.tier),
    lines.map((l) => l.currency),
    lines.map((l) => l.sku),
    // A quantity that is not a whole number of at least 1 is refused by the callers' rules; price it at 1 meanwhile.
    lines.map((l) => (Number.isInteger(l.quantity) && l.quantity >= 1 ? l.quantity : 1)),
    at,
  ]);
  return new Map(
    rows.map((r) => [
      r.n - 1,
      {
        rules: rulesInForce(
          { minimumOrderQuantity: r.minimumOrderQuantity!, maximumOrderQuantity: r.maximumOrderQuantity, quantityIncrement: r.quantityIncrement! },
          { minimumOrderQuantity: r.entryMinimum, maximumOrderQuantity: r.entryMaximum, quantityIncrement: r.entryIncrement },
        ),
        unitPrice: r.price === null ? null : new Decimal(r.price),
        priceListId: r.price === null ? null : r.priceListId,
      },
    ]),
  );
}
