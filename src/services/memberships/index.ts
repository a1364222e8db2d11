/**
 * Adding people to organizations and accepting pending memberships. Shared by the users,
 * organization-admin and sales-rep routes, so the pre-account-takeover rule (an existing
 * account joins only when its owner accepts) holds on every path.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { sha256 } from '../../domain/auth/secrets.js';
import { initialMembershipStatus } from '../../domain/organizations/membership.js';
import { OrganizationMember, User, type Organization } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { queueEmail } from '../email/queue.js';
import type { Client } from '../../adapters/temporal.js';
import { replacePassword } from '../auth/passwords.js';

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

/** What a pending membership remembers of the person as the organization entered them (shown until acceptance). */
export function invitedProfile(userExisted: boolean, input: { firstName?: string | null; lastName?: string | null; phoneNumber?: string | null }) {
  if (!userExisted) return {};
  return { invitedFirstName: input.firstName ?? null, invitedLastName: input.lastName ?? null, invitedPhoneNumber: input.phoneNumber ?? null };
}

/**
 * Finds or creates the user with this e-mail and makes them a member of `org` (active for a
 * new account, pending for an existing one). Flushes; a concurrent creation of the same user
 * or membership is a 409.
 */
export async function addMember(
  em: EntityManager,
  org: Organization,
  input: NewUserInput,
  opts: { isAdmin?: boolean; /** What the caller entered, when it is not `input` (e.g. only an e-mail). */ submitted?: Parameters<typeof invitedProfile>[1] } = {},
): Promise<MemberResult> {
  const email = input.email.toLowerCase();
  try {
    const existing = await em.findOne(User, { email });
    const user =
      existing ??
      em.create(User, { email, firstName: input.firstName, lastName: input.lastName, phoneNumber: input.phoneNumber ?? null, passwordHash: input.passwordHash ?? null });
    const current = existing ? await em.findOne(OrganizationMember, { organization: org, user }) : null;
    const member = current ?? em.create(OrganizationMember, { organization: org, user, isAdmin: !!opts.isAdmin, status: initialMembershipStatus(!!existing), ...invitedProfile(!!existing, opts.submitted ?? input) });
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
    data: { firstName: user.firstName, organizationName: org.name, organizationCode: org.identityOrganizationId, userId: user.id, organizationId: org.id, needsAcceptLink: true },
  });
}

/**
 * Accepts a pending membership with the e-mailed token and sets the user's new password in the
 * same transaction (DESIGN "Security decisions"): a password chosen before the owner proved the
 * address (a pre-registration) never reaches the organization joined. The token works once and
 * only while unexpired (one conditional UPDATE); every earlier session and password token of
 * the user ends. Returns the organization joined and the user.
 */
export async function acceptMembership(em: EntityManager, token: string, password: string): Promise<{ organizationId: string; name: string; userId: string }> {
  return em.transactional(async (tx) => {
    // boundRows(tx, ...) runs inside this transaction (src/db/orm-sql.ts).
    const rows = await boundRows<{ organization_id: string; name: string; user_id: string }>(
      tx,
      `update organization_member m set status = 'active', accepted_at = now(), accept_token_hash = null, accept_expires_at = null,
              invited_first_name = null, invited_last_name = null, invited_phone_number = null
         from organization o
        where m.accept_token_hash = $1 and m.status = 'pending' and m.accept_expires_at > now() and o.id = m.organization_id
        returning m.organization_id, o.name, m.user_id`,
      [sha256(token)],
    );
    if (!rows.length) throw AppError.field('Token', 'The link is invalid, used or expired.');
    await replacePassword(tx, rows[0].user_id, password);
    return { organizationId: rows[0].organization_id, name: rows[0].name, userId: rows[0].user_id };
  });
}

/** The person as this organization may see them: its own entry while the membership is pending, the account's profile once accepted. */
export function visibleProfile(member: Pick<OrganizationMember, 'status' | 'invitedFirstName' | 'invitedLastName' | 'invitedPhoneNumber'> | null, user: Pick<User, 'firstName' | 'lastName' | 'phoneNumber'>) {
  if (member?.status === 'pending') return { firstName: member.invitedFirstName ?? null, lastName: member.invitedLastName ?? null, phoneNumber: member.invitedPhoneNumber ?? null };
  return { firstName: user.firstName, lastName: user.lastName, phoneNumber: user.phoneNumber ?? null };
}
