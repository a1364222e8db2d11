import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Customer } from './Customer.js';
import { Organization } from './Organization.js';

/** An address of a customer (Billing or Shipping); deleted with its customer. */
export const CustomerAddress = defineEntity({
  name: 'CustomerAddress',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    /** Its customer's organization (DESIGN "Scale-out": keys lead with organization_id; FK (organization_id, customer_id) in the migration). */
    organization: () => p.manyToOne(Organization).deleteRule('cascade').onCreate((x: { customer: { organization: unknown } }) => x.customer.organization as never),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    position: p.integer(),
    externalId: p.string().nullable(),
    line1: p.string().nullable(),
    line2: p.string().nullable(),
    city: p.string().nullable(),
    state: p.string().nullable(),
    postalCode: p.string().nullable(),
    country: p.string().length(2).nullable(),
    addressType: p.string(),
    phone: p.string().nullable(),
    isPrimary: p.boolean().default(false),
  },
});
export type CustomerAddress = InferEntity<typeof CustomerAddress>;
