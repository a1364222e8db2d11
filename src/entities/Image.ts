import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/**
 * An image in an organization's library. Its three variants live in object storage under
 * `images/<organizationId>/<id>/{small|medium|large}`. `sku` links it to a product by SKU
 * (no foreign key: an image may arrive before its product, or stay unlinked);
 * `categoryName` marks a category image. width/height/contentSize/format describe the original.
 */
export const Image = defineEntity({
  name: 'Image',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string(),
    width: p.integer(),
    height: p.integer(),
    contentSize: p.integer(),
    source: p.text(),
    format: p.string(),
    active: p.boolean().default(true),
    sku: p.string().nullable(),
    categoryName: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [
    { name: 'image_org_name_idx', properties: ['organization', 'name'] },
    { name: 'image_org_sku_idx', properties: ['organization', 'sku'] },
    { name: 'image_org_category_idx', properties: ['organization', 'categoryName'] },
  ],
});
export type Image = InferEntity<typeof Image>;
