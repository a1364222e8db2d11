import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Customer } from './Customer.js';
import { Organization } from './Organization.js';

/** A contact person of a customer; deleted with its customer. */
export const CustomerContact = defineEntity({
  name: 'CustomerContact',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    /** Its customer's organization (DESIGN "Scale-out": keys lead with organization_id; FK (organization_id, customer_id) in the migration). */
    organization: () => p.manyToOne(Organization).deleteRule('cascade').onCreate((x: { customer: { organization: unknown } }) => x.customer.organization as never),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    position: p.integer(),
    externalId: p.string().nullable(),
    title: p.string().nullable(),
    firstName: p.string().nullable(),
    lastName: p.string().nullable(),
    email: p.string().nullable(),
    phone: p.string().nullable(),
    fax: p.string().nullable(),
    isPrimary: p.boolean().default(false),
    contactType: p.string().nullable(),
  },
});
export type CustomerContact = InferEntity<typeof CustomerContact>;
