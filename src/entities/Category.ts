import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/** A product category of an organization; names are unique per organization, case-insensitively. */
export const Category = defineEntity({
  name: 'Category',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string(),
    // A self-reference: TypeScript cannot infer Category while defining it, so defineEntity needs `any` here.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    parent: (): any => p.manyToOne(Category).nullable().deleteRule('set null'),
    active: p.boolean().default(true),
    imageUrl: p.string().length(1000).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [{ name: 'category_org_name_unique', expression: 'create unique index "category_org_name_unique" on "category" ("organization_id", lower("name"))' }],
});
export type Category = InferEntity<typeof Category>;
