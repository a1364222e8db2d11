import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';
import { SalesRep } from './SalesRep.js';

/**
 * A sales rep's assignment to an organization. The rep number is unique within the
 * organization and a rep is assigned at most once per organization (both DB-enforced).
 * `activationCount` counts reactivations; it keys the re-invitation e-mails.
 */
export const OrganizationSalesRep = defineEntity({
  name: 'OrganizationSalesRep',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    salesRep: () => p.manyToOne(SalesRep).deleteRule('cascade'),
    repNumber: p.string(),
    active: p.boolean().default(true),
    roles: p.array().defaultRaw(`'{SalesRep}'`),
    activationCount: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [
    { name: 'organization_sales_rep_org_rep_number_unique', properties: ['organization', 'repNumber'] },
    { name: 'organization_sales_rep_org_rep_unique', properties: ['organization', 'salesRep'] },
  ],
});
export type OrganizationSalesRep = InferEntity<typeof OrganizationSalesRep>;
