import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * A contract price list (docs/pricing.md; migration 20261129120000): validity, priority, status.
 * Its entries (PriceListPrice) and assignments (PriceListAssignment) are its children, by
 * (organization_id, price_list_id).
 */
export const PriceList = defineEntity({
  name: 'PriceList',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary(),
    name: p.string().length(200),
    currencyCode: p.string().length(3),
    validFrom: p.datetime().nullable(),
    validTo: p.datetime().nullable(),
    priority: p.integer().default(100),
    status: p.string().length(20).default('Draft'),
    /** Bumped by every change of validity or status: the schedule workflow of an older version stands down. */
    version: p.integer().default(1),
    /** When the list last became Active (null while Draft or Archived): its activation is max(validFrom, activeSince). */
    activeSince: p.datetime().nullable(),
    /** The activation `price_list.activated` announced for the period in force; null when none is open (src/services/pricing/schedule.ts). */
    activatedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ name: 'price_list_org_status_index', properties: ['organizationId', 'status', 'currencyCode'] }],
});
export type PriceList = InferEntity<typeof PriceList>;

/** One quantity break of a SKU on a price list. */
export const PriceListPrice = defineEntity({
  name: 'PriceListPrice',
  properties: {
    organizationId: p.uuid().primary(),
    priceListId: p.uuid().primary(),
    sku: p.string().length(100).primary(),
    atQuantity: p.integer().primary(),
    price: p.decimal().precision(19).scale(4),
    /** The entry's quantity rule overrides (null: the product's); the same on every break of the SKU. */
    minimumOrderQuantity: p.integer().nullable(),
    maximumOrderQuantity: p.integer().nullable(),
    quantityIncrement: p.integer().nullable(),
  },
  indexes: [{ name: 'price_list_price_org_sku_index', properties: ['organizationId', 'sku', 'priceListId', 'atQuantity'] }],
});
export type PriceListPrice = InferEntity<typeof PriceListPrice>;

/** A price list assigned to one customer (customerId) or one price tier (priceTierId). */
export const PriceListAssignment = defineEntity({
  name: 'PriceListAssignment',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary(),
    priceListId: p.uuid(),
    customerId: p.uuid().nullable(),
    priceTierId: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
  indexes: [
    { name: 'price_list_assignment_customer_index', properties: ['organizationId', 'customerId'] },
    { name: 'price_list_assignment_tier_index', properties: ['organizationId', 'priceTierId'] },
  ],
});
export type PriceListAssignment = InferEntity<typeof PriceListAssignment>;
