import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';
import { Product } from './Product.js';

/** One quantity break of a product's price in a tier: `price` applies from `atQuantity` units up. */
export const ProductPrice = defineEntity({
  name: 'ProductPrice',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    product: () => p.manyToOne(Product).deleteRule('cascade').index('product_price_product_id_index'),
    tier: p.string().length(100),
    price: p.decimal().precision(19).scale(4),
    atQuantity: p.integer().default(1),
  },
  indexes: [{ name: 'product_price_org_tier_index', properties: ['organization', 'tier'] }],
  uniques: [{ name: 'product_price_product_tier_qty_unique', properties: ['organization', 'product', 'tier', 'atQuantity'] }],
  checks: [
    { name: 'product_price_at_quantity_check', expression: 'at_quantity >= 1' },
    { name: 'product_price_price_check', expression: 'price >= 0' },
  ],
});
export type ProductPrice = InferEntity<typeof ProductPrice>;
