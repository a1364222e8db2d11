import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';
import { User } from './User.js';

/** Membership of a user in an organization; `isAdmin` grants the Admin role there. */
export const OrganizationMember = defineEntity({
  name: 'OrganizationMember',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    isAdmin: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ['organization', 'user'] }],
});
export type OrganizationMember = InferEntity<typeof OrganizationMember>;
