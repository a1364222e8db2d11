/**
 * Adding people to organizations and accepting pending memberships. Shared by the users,
 * organization-admin and sales-rep routes, so the pre-account-takeover rule (an existing
 * account joins only when its owner accepts) holds on every path.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { sha256 } from '../../domain/auth/secrets.js';
import { initialMembershipStatus } from '../../domain/organizations/membership.js';
import { OrganizationMember, User, type Organization } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { queueEmail } from '../../integrations/temporal.js';
import type { Client } from '@temporalio/client';

export interface NewUserInput {
  email: string;
  firstName: string;
  lastName: string;
  phoneNumber?: string | null;
  passwordHash?: string | null;
}

export interface MemberResult {
  user: User;
  member: OrganizationMember;
  /** The user account was created by this call. */
  userCreated: boolean;
  /** The membership was created by this call. */
  memberCreated: boolean;
}

/**
 * Finds or creates the user with this e-mail and makes them a member of `org` (active for a
 * new account, pending for an existing one). Flushes; a concurrent creation of the same user
 * or membership is a 409.
 */
export async function addMember(em: EntityManager, org: Organization, input: NewUserInput, opts: { isAdmin?: boolean } = {}): Promise<MemberResult> {
  const email = input.email.toLowerCase();
  try {
    const existing = await em.findOne(User, { email });
    const user =
      existing ??
      em.create(User, { email, firstName: input.firstName, lastName: input.lastName, phoneNumber: input.phoneNumber ?? null, passwordHash: input.passwordHash ?? null });
    const current = existing ? await em.findOne(OrganizationMember, { organization: org, user }) : null;
    const member = current ?? em.create(OrganizationMember, { organization: org, user, isAdmin: !!opts.isAdmin, status: initialMembershipStatus(!!existing) });
    if (current && opts.isAdmin) current.isAdmin = true;
    await em.flush();
    return { user, member, userCreated: !existing, memberCreated: !current };
  } catch (e) {
    if (isUniqueViolation(e)) throw AppError.conflict('The user or membership was created at the same time by another request; retry.');
    throw e;
  }
}

/** E-mails the owner of a pending membership the link that accepts it (the token is minted by the e-mail activity). */
export async function sendAcceptLink(deps: { temporal: Client; config: Config }, org: Organization, user: User): Promise<void> {
  await queueEmail(deps.temporal, deps.config, {
    emailId: `accept-membership-${org.id}-${user.id}`,
    organizationId: org.id,
    template: 'accept-membership',
    to: user.email,
    data: { firstName: user.firstName, organizationName: org.name, organizationCode: org.identityOrganizationId, userId: user.id, organizationId: org.id, needsAcceptLink: true, needsPasswordLink: true },
  });
}

/**
 * Accepts a pending membership with the e-mailed token: one conditional UPDATE, so a token
 * works once and only while it is unexpired. Returns the organization joined.
 */
export async function acceptMembership(em: EntityManager, token: string): Promise<{ organizationId: string; name: string }> {
  const rows = await em.getConnection().execute<{ organization_id: string; name: string }[]>(
    `update organization_member m set status = 'active', accepted_at = now(), accept_token_hash = null, accept_expires_at = null
       from organization o
      where m.accept_token_hash = ? and m.status = 'pending' and m.accept_expires_at > now() and o.id = m.organization_id
      returning m.organization_id, o.name`,
    [sha256(token)],
  );
  if (!rows.length) throw AppError.field('Token', 'The link is invalid, used or expired.');
  return { organizationId: rows[0].organization_id, name: rows[0].name };
}
