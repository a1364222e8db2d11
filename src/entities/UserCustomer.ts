import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Customer } from './Customer.js';
import { Organization } from './Organization.js';
import { User } from './User.js';

/** Links a user to the customer they act for in an organization: one customer per user per organization. */
export const UserCustomer = defineEntity({
  name: 'UserCustomer',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    user: () => p.manyToOne(User).deleteRule('cascade').index(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [{ name: 'user_customer_org_user_unique', properties: ['organization', 'user'] }],
});
export type UserCustomer = InferEntity<typeof UserCustomer>;
