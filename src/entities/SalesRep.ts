import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { User } from './User.js';

/**
 * A sales rep: one global record per person, linked 1:1 to the User (same e-mail, stored
 * lower-cased) the rep logs in as. Assignments to organizations are OrganizationSalesRep rows.
 */
export const SalesRep = defineEntity({
  name: 'SalesRep',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    user: () => p.manyToOne(User).unique('sales_rep_user_unique').deleteRule('cascade'),
    firstName: p.string(),
    lastName: p.string(),
    email: p.string().unique('sales_rep_email_unique'),
    phoneNumber: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type SalesRep = InferEntity<typeof SalesRep>;
