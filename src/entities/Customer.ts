import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { CustomerAddress } from './CustomerAddress.js';
import { CustomerContact } from './CustomerContact.js';
import { Organization } from './Organization.js';

/**
 * A customer account of an organization. `customerNumber` is unique per organization;
 * `externalId` (the caller's id, used for idempotent upserts) is unique per organization
 * when set. `pricing` holds the name of one of the organization's price tiers.
 */
export const Customer = defineEntity({
  name: 'Customer',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    customerNumber: p.string(),
    externalId: p.string().nullable(),
    companyName: p.string(),
    companyEmail: p.string(),
    companyPhone: p.string().nullable(),
    companyFax: p.string().nullable(),
    pricing: p.string(),
    active: p.boolean().default(true),
    repNumber: p.string().nullable().index(),
    terms: p.string().nullable(),
    /** Default payment terms (docs/credit.md); FK (organization_id, payment_terms_id) in the migration. Admin only. */
    paymentTermsId: p.uuid().nullable(),
    /** On-account credit limit in the customer's currency (its price tier's); null = no on-account buying. Admin only. */
    creditLimit: p.decimal().precision(19).scale(4).nullable(),
    customerAttributes: p.json<Record<string, string>>().nullable(),
    addresses: () => p.oneToMany(CustomerAddress).mappedBy('customer').orphanRemoval(),
    contacts: () => p.oneToMany(CustomerContact).mappedBy('customer').orphanRemoval(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [
    { name: 'customer_org_number_unique', properties: ['organization', 'customerNumber'] },
    /** Target of the (organization_id, customer_id) foreign keys of cards, carts, orders, invoices and hosted setups. */
    { name: 'customer_org_id_unique', properties: ['organization', 'id'] },
    {
      name: 'customer_org_external_id_unique',
      expression: 'create unique index "customer_org_external_id_unique" on "customer" ("organization_id", "external_id") where "external_id" is not null',
    },
  ],
});
export type Customer = InferEntity<typeof Customer>;
