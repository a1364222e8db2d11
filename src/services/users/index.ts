/**
 * User use cases: adding a person to the organization (a new account, or a pending membership
 * for an existing one), accepting a membership, the caller's own profile and organizations.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { hashSecret } from '../../domain/auth/secrets.js';
import type { UserInput } from '../../domain/organizations/schemas.js';
import { OrganizationMember, User } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { queueEmail } from '../email/queue.js';
import { addMember, sendAcceptLink } from '../memberships/index.js';
import { orgOf } from '../organizations/index.js';

export { acceptMembership } from '../memberships/index.js';

export interface UserProfile {
  UserId: string;
  FirstName: string;
  LastName: string;
  Email: string;
  PhoneNumber: string | null;
}

/**
 * Adds a person to the organization. A new e-mail gets an account (with the submitted password,
 * or an invitation e-mail with a set-password link) and an active membership; an e-mail that
 * already has an account gets a pending membership and an acceptance link, and the answer
 * echoes what was submitted, never that account's profile.
 */
export async function addUser(em: EntityManager, deps: { temporal: Client; config: Config }, orgId: string, input: UserInput): Promise<{ created: boolean; profile: UserProfile }> {
  const org = await orgOf(em, orgId);
  const passwordHash = input.Password && !(await em.count(User, { email: input.Email.toLowerCase() })) ? await hashSecret(input.Password) : null;
  const { user, member, userCreated, memberCreated } = await addMember(em, org, {
    email: input.Email,
    firstName: input.FirstName,
    lastName: input.LastName,
    phoneNumber: input.PhoneNumber,
    passwordHash,
  });
  if (memberCreated && member.status === 'pending') await sendAcceptLink(deps, org, user);
  else if (!user.passwordHash) {
    await queueEmail(deps.temporal, deps.config, {
      emailId: `invite-user-${org.id}-${user.id}`,
      organizationId: org.id,
      template: 'invite-user',
      to: user.email,
      data: { firstName: user.firstName, organizationName: org.name, userId: user.id, needsPasswordLink: true },
    });
  }
  const profile = { UserId: user.id, FirstName: input.FirstName, LastName: input.LastName, Email: user.email, PhoneNumber: input.PhoneNumber ?? null };
  return { created: userCreated, profile };
}

/** The profile of the token's user; 404 for client and API key tokens. */
export async function ownProfile(em: EntityManager, auth: Principal): Promise<UserProfile> {
  const user = auth.userId ? await em.findOne(User, { id: auth.userId }) : null;
  if (!user) throw AppError.notFound('User record');
  return { UserId: user.id, FirstName: user.firstName, LastName: user.lastName, Email: user.email, PhoneNumber: user.phoneNumber ?? null };
}

export async function userExists(em: EntityManager, email: string): Promise<boolean> {
  return (await em.count(User, { email: email.toLowerCase() })) > 0;
}

/** Organizations of the token's user (a client or API key token: its own organization). */
export async function ownOrganizations(em: EntityManager, auth: Principal, orgId: string) {
  if (!auth.userId) {
    const org = await orgOf(em, orgId);
    return [{ OrganizationId: org.id, Name: org.name, Slug: org.slug }];
  }
  const members = await em.find(OrganizationMember, { user: auth.userId }, { populate: ['organization'], orderBy: { organization: { name: 'asc' } } });
  return members.map((m) => ({ OrganizationId: m.organization.id, Name: m.organization.name, Slug: m.organization.slug }));
}
