/** Catalog prices as the service charges them: a product's unit price in a tier for a quantity. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Decimal } from 'decimal.js';
import { checkOrderQuantity, resolveUnitPrice } from '../../domain/pricing/price-breaks.js';
import { Customer, PriceTier, Product, ProductPrice } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import { escapeLike } from '../../http/paging.js';

/** The product and the unit price for `quantity` in `tier`; field errors otherwise. */
export async function priceLine(em: EntityManager, orgId: string, tier: string, sku: string, quantity: number): Promise<{ product: Product; unitPrice: Decimal }> {
  const product = await em.findOne(Product, { organization: orgId, sku, active: true });
  if (!product) throw AppError.field('sku', `No active product with sku "${sku}" exists in the catalog.`);
  const why = checkOrderQuantity(quantity, { minimumOrderQuantity: product.minimumOrderQuantity, quantityIncrement: product.quantityIncrement });
  if (why) throw AppError.field('quantity', why);
  const prices = await em.find(ProductPrice, { product });
  const unitPrice = resolveUnitPrice(
    prices.map((p) => ({ tier: p.tier, price: p.price, atQuantity: p.atQuantity })),
    tier,
    quantity,
  );
  if (!unitPrice) throw AppError.field('sku', `The product "${sku}" has no price in tier "${tier}" for quantity ${quantity}.`);
  return { product, unitPrice };
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
