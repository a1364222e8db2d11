/**
 * Catalog prices as the service charges them: a line's unit price for a buyer (the one resolver,
 * src/services/pricing/resolve.ts: a price list in force, else the tier with its quantity breaks)
 * after the quantity rules in force for the buyer (the winning list entry's overrides, else the product's).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Decimal } from 'decimal.js';
import { checkOrderQuantity } from '../../domain/pricing/quantity-rules.js';
import { Customer, PriceTier, ProductPrice } from '../../entities/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import { escapeLike } from '../../http/paging.js';
import { resolvePrices, type Buyer, type ResolvedLine } from '../pricing/resolve.js';

export type { Buyer };

/** A priced line: the product's sku and name as the catalog has them, the unit price and the list that set it (null: the tier). */
export interface PricedLine {
  product: NonNullable<ResolvedLine['product']>;
  unitPrice: Decimal;
  priceListId: string | null;
}

/** Why a resolved line cannot be sold at `quantity`, as field errors (`sku`, `quantity`); null when it can. */
function lineErrors(r: ResolvedLine, sku: string, quantity: number, buyer: Buyer): FieldErrors | null {
  if (!r.product) return { sku: [`No active product with sku "${sku}" exists in the catalog.`] };
  const why = checkOrderQuantity(quantity, r.rules!);
  if (why) return { quantity: [why] };
  if (!r.unitPrice) return { sku: [`The product "${sku}" has no price in tier "${buyer.tier}" for quantity ${quantity}.`] };
  return null;
}

/**
 * Every line priced for the buyer in one statement; a bad line is a field error named
 * `<prefix>[i].<field>` (all of them in one 400).
 */
export async function priceLines(em: EntityManager, orgId: string, buyer: Buyer, lines: readonly { sku: string; quantity: number }[], prefix = 'items'): Promise<PricedLine[]> {
  const resolved = await resolvePrices(em, orgId, buyer, lines);
  const errors: FieldErrors = {};
  const out: PricedLine[] = [];
  resolved.forEach((r, i) => {
    const bad = lineErrors(r, lines[i].sku, lines[i].quantity, buyer);
    if (bad) for (const [field, messages] of Object.entries(bad)) errors[`${prefix}[${i}].${field}`] = messages;
    else out.push({ product: r.product!, unitPrice: r.unitPrice!, priceListId: r.priceListId });
  });
  if (Object.keys(errors).length) throw AppError.validation(errors);
  return out;
}

/** One line priced for the buyer; field errors (`sku`, `quantity`) otherwise. */
export async function priceLine(em: EntityManager, orgId: string, buyer: Buyer, sku: string, quantity: number): Promise<PricedLine> {
  const [r] = await resolvePrices(em, orgId, buyer, [{ sku, quantity }]);
  const bad = lineErrors(r, sku, quantity, buyer);
  if (bad) throw AppError.validation(bad);
  return { product: r.product!, unitPrice: r.unitPrice!, priceListId: r.priceListId };
}

/**
 * The field errors (`<prefix>[i].quantity`) of lines whose quantity breaks the rules in force for the
 * buyer, for lines taken at given prices (an Admin's order, imported orders): one statement. Unknown
 * SKUs are left to the caller's own checks.
 */
export async function quantityRuleLineErrors(em: EntityManager, orgId: string, buyer: Buyer, lines: readonly { sku: string; quantity: number }[], prefix = 'items'): Promise<FieldErrors> {
  const resolved = await resolvePrices(em, orgId, buyer, lines);
  const errors: FieldErrors = {};
  resolved.forEach((r, i) => {
    const why = r.rules ? checkOrderQuantity(lines[i].quantity, r.rules) : null;
    if (why) errors[`${prefix}[${i}].quantity`] = [why];
  });
  return errors;
}

/** The organization's price tier with this name (case-insensitive). */
export async function findPriceTier(em: EntityManager, orgId: string, name: string): Promise<PriceTier | null> {
  return em.findOne(PriceTier, { organization: orgId, name: { $ilike: escapeLike(name) } });
}

/** After a tier is renamed (inside the rename transaction): customers and product prices follow. */
export async function renamePriceTierReferences(em: EntityManager, orgId: string, oldName: string, newName: string): Promise<void> {
  await em.nativeUpdate(Customer, { organization: orgId, pricing: { $ilike: escapeLike(oldName) } }, { pricing: newName });
  await em.nativeUpdate(ProductPrice, { organization: orgId, tier: oldName }, { tier: newName });
}

/** Why the tier cannot be deleted (customers or product prices use it), or null. */
export async function priceTierInUse(em: EntityManager, orgId: string, name: string): Promise<string | null> {
  const customers = await em.count(Customer, { organization: orgId, pricing: { $ilike: escapeLike(name) } });
  if (customers) return `The price tier is used by ${customers} customer(s); move them to another tier before deleting it.`;
  const prices = await em.count(ProductPrice, { organization: orgId, tier: name });
  return prices ? `The price tier is used by ${prices} product price${prices === 1 ? '' : 's'}; remove those prices first.` : null;
}
