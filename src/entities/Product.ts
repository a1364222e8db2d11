import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Category } from './Category.js';
import { Organization } from './Organization.js';

/**
 * The text searched by GET /api/products/search. The trigram GIN index is on exactly this
 * expression, and the search query uses `<expr> ILIKE ?` so the index serves it.
 */
export const productSearchExpression = (alias?: string) => {
  const c = (col: string) => (alias ? `${alias}."${col}"` : `"${col}"`);
  return `(coalesce(${c('sku')}, '') || ' ' || coalesce(${c('name')}, '') || ' ' || coalesce(${c('description')}, '') || ' ' || coalesce(${c('upc')}, ''))`;
};

/** A product of an organization; `sku` is the upsert key, unique per organization. */
export const Product = defineEntity({
  name: 'Product',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    sku: p.string().length(100),
    name: p.string().length(300),
    description: p.text().nullable(),
    category: () => p.manyToOne(Category).nullable().deleteRule('set null'),
    quantityOnHand: p.integer().default(0),
    minimumOrderQuantity: p.integer().default(1),
    quantityIncrement: p.integer().default(1),
    /** Null: no maximum (docs/pricing.md "Quantity rules"). */
    maximumOrderQuantity: p.integer().nullable(),
    weight: p.decimal().precision(19).scale(4).nullable(),
    weightUnit: p.string().length(20).nullable(),
    dimensions: p.string().length(100).nullable(),
    dimensionsUnit: p.string().length(20).nullable(),
    upc: p.string().length(50).nullable(),
    active: p.boolean().default(true),
    productAttributes: p.json<Record<string, unknown>>().nullable(),
    externalId: p.string().length(200).nullable(),
    /** Stock is kept per location (docs/fulfillment.md "Stock"); false: the product behaves as before (quantityOnHand a plain field). */
    trackInventory: p.boolean().default(false),
    /** A tracked product's lines beyond what is available are backordered instead of refused. */
    allowBackorder: p.boolean().default(false),
    leadTimeDays: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [
    { name: 'product_org_sku_unique', properties: ['organization', 'sku'] },
    {
      name: 'product_org_external_id_unique',
      expression: 'create unique index "product_org_external_id_unique" on "product" ("organization_id", "external_id") where "external_id" is not null',
    },
  ],
  indexes: [
    {
      name: 'product_search_trgm',
      expression: `create index "product_search_trgm" on "product" using gin (${productSearchExpression()} gin_trgm_ops)`,
    },
  ],
  checks: [
    { name: 'product_minimum_order_quantity_check', expression: 'minimum_order_quantity >= 1' },
    { name: 'product_quantity_increment_check', expression: 'quantity_increment >= 1' },
    { name: 'product_maximum_order_quantity_check', expression: 'maximum_order_quantity is null or maximum_order_quantity >= minimum_order_quantity' },
  ],
});
export type Product = InferEntity<typeof Product>;
