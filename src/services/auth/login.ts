/**
 * Sign-in use cases: client-credential login, user login (choosing the organization), and the
 * commerce context of a user that POST /api/auth/access reports. Each returns values or throws
 * AppError; the routes in src/api/auth.ts shape the replies.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { needsRehash, hashSecret, verifySecret } from '../../domain/auth/secrets.js';
import { resolveRole } from '../../domain/organizations/access.js';
import { canSignIn } from '../../domain/organizations/membership.js';
import { ApiCredential, Organization, OrganizationMember, User } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import { signAccessToken, type Principal, type Role } from '../../http/auth.js';
import { UUID_RE } from '../../domain/schemas.js';
import { mayActFor } from '../customers/visibility.js';
import { commerceContext } from './claims.js';

export type AuthResult = Awaited<ReturnType<typeof signAccessToken>>;

/** ClientId/ClientSecret login of an organization: an Admin client token. */
export async function clientLogin(em: EntityManager, config: Config, input: { OrgCode: string; ClientId: string; ClientSecret: string }): Promise<AuthResult> {
  const cred = await em.findOne(ApiCredential, { clientId: input.ClientId, active: true }, { populate: ['organization'] });
  const valid = cred && cred.organization.identityOrganizationId === input.OrgCode && (await verifySecret(input.ClientSecret, cred.clientSecretHash));
  if (!cred || !valid) throw AppError.unauthorized('Invalid ClientId/ClientSecret pair or OrgCode.');
  const org = cred.organization;
  return signAccessToken(config, cred.clientId, {
    OrganizationId: org.id,
    CustomerNumber: null,
    PriceTier: null,
    CurrencyCode: null,
    role: 'Admin',
    roles: ['Admin'],
    kind: 'client',
    cv: org.credentialVersion,
  });
}

/** The user with this e-mail if the password is theirs (upgrading an old hash on the way); else 401. */
export async function verifyUserPassword(em: EntityManager, email: string, password: string): Promise<User> {
  const user = await em.findOne(User, { email: email.toLowerCase() });
  if (!user || !(await verifySecret(password, user.passwordHash))) throw AppError.unauthorized('Invalid e-mail or password.');
  if (needsRehash(user.passwordHash)) {
    user.passwordHash = await hashSecret(password);
    await em.flush();
  }
  return user;
}

/** A user token for `member` (an active membership of `user`), with the user's current claims. */
export async function userToken(em: EntityManager, config: Config, user: User, member: OrganizationMember): Promise<AuthResult> {
  const context = await commerceContext(em, member.organization.id, user.id);
  const { role, allowed } = resolveRole({ isAdmin: member.isAdmin, repNumber: context.repNumber, repActive: context.repActive, customer: null });
  if (!allowed) throw AppError.unauthorized('This sales rep is inactive.');
  const roles: Role[] = [role, ...(user.isSuper ? (['Super'] as const) : [])];
  return signAccessToken(config, user.id, {
    OrganizationId: member.organization.id,
    CustomerNumber: context.CustomerNumber,
    PriceTier: context.PriceTier,
    CurrencyCode: context.CurrencyCode,
    role,
    roles,
    RepNumber: context.repNumber,
    UserId: user.id,
    kind: 'user',
    tv: user.tokenVersion,
    cv: member.organization.credentialVersion,
  });
}

/**
 * E-mail and password login. OrgCode (code or id) chooses among the user's organizations and is
 * required when there are several; a pending membership opens only after its owner accepted it.
 */
export async function userLogin(em: EntityManager, config: Config, input: { Email: string; Password: string; OrgCode?: string }): Promise<AuthResult> {
  const user = await verifyUserPassword(em, input.Email, input.Password);
  const all = await em.find(OrganizationMember, { user }, { populate: ['organization'] });
  const memberships = all.filter((m) => canSignIn(m.status));
  let member = memberships[0];
  if (input.OrgCode) {
    const named = all.find((m) => m.organization.identityOrganizationId === input.OrgCode || m.organization.id === input.OrgCode);
    if (!named) throw AppError.unauthorized('The user does not belong to that organization.');
    if (!canSignIn(named.status)) throw AppError.unauthorized('The membership in that organization waits for acceptance through the e-mailed link.');
    member = named;
  } else if (memberships.length > 1) {
    throw AppError.field('OrgCode', 'OrgCode is required because the user belongs to several organizations.');
  }
  if (!member) throw AppError.unauthorized('The user does not belong to any organization.');
  return userToken(em, config, user, member);
}

/**
 * The commerce context (customer number, price tier, currency) of a user in an organization.
 * Another organization is 403 (Super may name any); a Customer asks only about itself; a
 * SalesRep only about itself and users of customers assigned to it, anyone else is 404.
 */
export async function commerceAccess(
  em: EntityManager,
  auth: Principal,
  input: { OrganizationId: string; UserId: string },
): Promise<{ CustomerNumber: string | null; PriceTier: string | null; CurrencyCode: string | null }> {
  const org = await em.findOne(Organization, UUID_RE.test(input.OrganizationId) ? { id: input.OrganizationId } : { identityOrganizationId: input.OrganizationId });
  if (org && org.id !== auth.organizationId && !auth.isSuper) throw AppError.forbidden('The organization differs from the token organization.');
  if (!org) {
    if (!auth.isSuper) throw AppError.forbidden('The organization differs from the token organization.');
    throw AppError.notFound('Organization');
  }
  if (auth.role === 'Customer' && auth.userId !== input.UserId) throw AppError.forbidden('Customers may only enrich their own token.');
  const member = await em.findOne(OrganizationMember, { organization: org, user: input.UserId });
  if (!member) throw AppError.notFound('User');
  const ctx = await commerceContext(em, org.id, input.UserId);
  if (auth.role === 'SalesRep' && !auth.isSuper && auth.userId !== input.UserId) {
    // A rep sees the users of its own customers only; anyone else is "not found", like their customers.
    if (!ctx.CustomerNumber || !(await mayActFor(em, org.id, auth, ctx.CustomerNumber))) throw AppError.notFound('User');
  }
  return { CustomerNumber: ctx.CustomerNumber, PriceTier: ctx.PriceTier, CurrencyCode: ctx.CurrencyCode };
}
