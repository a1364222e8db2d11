import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * Customer catalogs (docs/catalogs.md): a named product selection of an organization, assigned to
 * customers and/or price tiers. Primary keys (organization_id, id) (DESIGN "Scale-out"); the
 * foreign keys, also led by organization_id, are in Migration20261129130000_catalogs.
 */
export const Catalog = defineEntity({
  name: 'Catalog',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary().onCreate(() => randomUUID()),
    name: p.string(),
    description: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [{ name: 'catalog_org_name_unique', expression: 'create unique index "catalog_org_name_unique" on "catalog" ("organization_id", lower("name"))' }],
});
export type Catalog = InferEntity<typeof Catalog>;

/** One rule of a catalog's selection: a SKU or a category (with its subcategories), included or excluded. */
export const CatalogSelection = defineEntity({
  name: 'CatalogSelection',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary().onCreate(() => randomUUID()),
    catalogId: p.uuid(),
    mode: p.string().length(10).$type<'Include' | 'Exclude'>(),
    sku: p.string().length(100).nullable(),
    categoryId: p.uuid().nullable(),
    categoryName: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CatalogSelection = InferEntity<typeof CatalogSelection>;

/** A catalog assigned to one customer or to one price tier. */
export const CatalogAssignment = defineEntity({
  name: 'CatalogAssignment',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary().onCreate(() => randomUUID()),
    catalogId: p.uuid(),
    customerId: p.uuid().nullable(),
    priceTierId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CatalogAssignment = InferEntity<typeof CatalogAssignment>;
