import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';
import { User } from './User.js';
import type { MembershipStatus } from '../domain/organizations/membership.js';

export type { MembershipStatus };

/**
 * Membership of a user in an organization; `isAdmin` grants the Admin role there. A user who
 * already had an account when the organization added them is `pending` until they accept the
 * e-mailed link (only the SHA-256 of its single-use token is stored); until then they cannot
 * sign in to this organization. While pending, the organization sees the person only as it
 * entered them (`invited*`), never the account's own profile.
 */
export const OrganizationMember = defineEntity({
  name: 'OrganizationMember',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    isAdmin: p.boolean().default(false),
    status: p.string().length(10).$type<MembershipStatus>().default('active'),
    acceptTokenHash: p.string().length(64).nullable().hidden(),
    acceptExpiresAt: p.datetime().nullable(),
    acceptedAt: p.datetime().nullable(),
    /** Names and phone as the organization entered them when it added an existing account (shown while pending). */
    invitedFirstName: p.string().nullable(),
    invitedLastName: p.string().nullable(),
    invitedPhoneNumber: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ properties: ['organization', 'user'] }],
  indexes: [{ name: 'organization_member_accept_token_hash_index', properties: ['acceptTokenHash'] }],
  checks: [{ name: 'organization_member_status_check', expression: `status in ('active', 'pending')` }],
});
export type OrganizationMember = InferEntity<typeof OrganizationMember>;
