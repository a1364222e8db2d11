/**
 * The Product resource as a caller sees it (pure): which tier and currency price it, which
 * `prices` it may see. The reader hands in plain fields, so one SQL row with its prices and
 * images aggregated serves as well as an entity.
 *
 * Price visibility (DESIGN "Decisions" leaves the Admin case open; this is the choice):
 * - Customer tokens see only active products, `prices` only of their own tier, and `price` /
 *   `currencyCode` for their tier at quantity 1 (currency from the CurrencyCode claim, else the
 *   tier's configured currency).
 * - Admin and SalesRep tokens see every tier's `prices`. `price` / `currencyCode` use the token's
 *   PriceTier claim when present, else the organization's first price tier by name; both are null
 *   when the organization has no tiers (or the product no price in that tier). SalesRep tokens,
 *   like Customers, see only active products; Admin sees inactive ones too.
 * Every `prices` entry is formatted in its tier's configured currency.
 */
import { Decimal } from 'decimal.js';
import { formatMoney, moneyNumber } from '../money.js';
import { resolveUnitPrice } from '../pricing/price-breaks.js';
import { rulesInForce, type QuantityRuleOverrides } from '../pricing/quantity-rules.js';
import type { PriceRow } from './prices.js';
import type { Out } from '../contract.js';
import type { image, product } from '../resources.js';

/** The caller's price context: which tier, which currency, which products. */
export interface PriceContext {
  customer: boolean;
  tier: string | null;
  currency: string | null;
  /** lower(tier name) -> the tier's configured currency. */
  tierCurrency: Map<string, string>;
  activeOnly: boolean;
}

/** The token claims the price context depends on. */
export interface PriceCaller {
  role: string;
  isSuper: boolean;
  priceTier: string | null;
  currencyCode: string | null;
}

/** `tiers` ordered by name: the organization's price tiers. */
export function priceContext(tiers: readonly { name: string; currencyCode: string }[], caller: PriceCaller): PriceContext {
  const tierCurrency = new Map(tiers.map((t) => [t.name.toLowerCase(), t.currencyCode]));
  const customer = caller.role === 'Customer' && !caller.isSuper;
  let tier = caller.priceTier;
  if (!tier && !customer) tier = tiers[0]?.name ?? null;
  // Use the configured spelling of the tier when it exists.
  const configured = tier ? tiers.find((t) => t.name.toLowerCase() === tier!.toLowerCase()) : undefined;
  if (configured) tier = configured.name;
  const currency = caller.currencyCode ?? (tier ? tierCurrency.get(tier.toLowerCase()) ?? null : null);
  return { customer, tier, currency, tierCurrency, activeOnly: customer || (caller.role === 'SalesRep' && !caller.isSuper) };
}

/** The stored product fields the view shows. */
export interface ProductFields {
  id: string;
  organizationId: string;
  sku: string;
  name: string;
  description: string | null;
  categoryName: string | null;
  quantityOnHand: number;
  minimumOrderQuantity: number;
  maximumOrderQuantity: number | null;
  quantityIncrement: number;
  weight: string | number | null;
  weightUnit: string | null;
  dimensions: string | null;
  dimensionsUnit: string | null;
  upc: string | null;
  active: boolean;
  productAttributes: Record<string, unknown> | null;
  externalId: string | null;
  trackInventory: boolean;
  allowBackorder: boolean;
  leadTimeDays: number | null;
  /** Tracked products: on hand - reserved over all locations (read in the product's one statement); null otherwise. */
  available: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * `listPrice`: a customer token's price at quantity 1 from the price list in force for it
 * (src/services/pricing/resolve.ts); it replaces the tier's `price`, and `priceListId` names the list.
 * `listRules`: a customer token's quantity rule overrides from the entry of the list in force for it
 * (each null: the product's rule), so the answer carries the rules that customer's orders must meet.
 */
export function productView(
  p: ProductFields,
  prices: readonly PriceRow[],
  v: PriceContext,
  images: Out<typeof image>[] = [],
  listPrice: { priceListId: string; price: string } | null = null,
  listRules: QuantityRuleOverrides | null = null,
): Out<typeof product> {
  const rules = rulesInForce({ minimumOrderQuantity: p.minimumOrderQuantity, maximumOrderQuantity: p.maximumOrderQuantity ?? null, quantityIncrement: p.quantityIncrement }, listRules);
  const currencyFor = (tier: string) => (v.customer && v.currency ? v.currency : v.tierCurrency.get(tier.toLowerCase()) ?? v.currency ?? 'USD');
  const unit = listPrice ? new Decimal(listPrice.price) : v.tier ? resolveUnitPrice(prices, v.tier, 1) : null;
  const cur = v.currency ?? (v.tier ? currencyFor(v.tier) : null);
  const visible = (v.customer ? prices.filter((e) => v.tier && e.tier.toLowerCase() === v.tier.toLowerCase()) : prices)
    .slice()
    .sort((a, b) => a.tier.localeCompare(b.tier) || a.atQuantity - b.atQuantity);
  return {
    productId: p.id,
    organizationId: p.organizationId,
    sku: p.sku,
    name: p.name,
    description: p.description ?? null,
    category: p.categoryName ?? null,
    price: unit && cur ? moneyNumber(unit, cur) : null,
    priceFormatted: unit && cur ? formatMoney(unit, cur) : null,
    currencyCode: cur,
    ...(listPrice ? { priceListId: listPrice.priceListId } : {}),
    prices: visible.map((e) => ({ tier: e.tier, price: moneyNumber(e.price, currencyFor(e.tier)), priceFormatted: formatMoney(e.price, currencyFor(e.tier)), atQuantity: e.atQuantity })),
    quantityOnHand: p.quantityOnHand,
    trackInventory: p.trackInventory,
    allowBackorder: p.allowBackorder,
    leadTimeDays: p.leadTimeDays ?? null,
    available: p.trackInventory ? Math.max(0, p.available ?? 0) : null,
    backorder: p.trackInventory && p.allowBackorder && (p.available ?? 0) <= 0,
    minimumOrderQuantity: rules.minimumOrderQuantity,
    maximumOrderQuantity: rules.maximumOrderQuantity,
    quantityIncrement: rules.quantityIncrement,
    weight: p.weight === null || p.weight === undefined ? null : Number(p.weight),
    weightUnit: p.weightUnit ?? null,
    dimensions: p.dimensions ?? null,
    dimensionsUnit: p.dimensionsUnit ?? null,
    upc: p.upc ?? null,
    active: p.active,
    images,
    productAttributes: p.productAttributes ?? {},
    externalId: p.externalId ?? null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export type ProductView = ReturnType<typeof productView>;
