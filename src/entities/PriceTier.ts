import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/** A named price tier of an organization; names are unique per organization, case-insensitively. */
export const PriceTier = defineEntity({
  name: 'PriceTier',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string(),
    currencyCode: p.string().length(3),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'price_tier_org_name_unique', expression: 'create unique index "price_tier_org_name_unique" on "price_tier" ("organization_id", lower("name"))' }],
});
export type PriceTier = InferEntity<typeof PriceTier>;
