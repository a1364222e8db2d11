/** Authentication endpoints: client-credential login, user login, token enrichment, set-password. */
import * as yup from 'yup';
import { resolveRole } from '../domain/organizations/access.js';
import { canSignIn } from '../domain/organizations/membership.js';
import { sha256, verifySecret, hashSecret, needsRehash } from '../domain/auth/secrets.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiCredential, Organization, OrganizationMember, User } from '../entities/index.js';
import { AppError } from '../errors.js';
import { signAccessToken, type Role } from '../http/auth.js';
import { defineRoute, ok } from '../http/route.js';
import { email, password, uuid, UUID_RE } from './schemas.js';
import { commerceContext } from '../services/auth/claims.js';

const AUTH_RESULT = 'Authentication result: AccessToken, TokenType (api-key), ExpiresIn';

export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/auth/login',
    summary: 'Log in with ClientId and ClientSecret',
    tag: 'Authentication',
    auth: 'public',
    body: yup.object({ OrgCode: yup.string().trim().required().max(100), ClientId: yup.string().trim().required().max(100), ClientSecret: yup.string().required().max(500) }),
    rateLimit: { scope: 'login', key: ({ body }) => body.ClientId },
    responses: { 200: AUTH_RESULT, 400: 'Missing fields', 401: 'Invalid ClientId/ClientSecret or OrgCode mismatch', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      const cred = await em.findOne(ApiCredential, { clientId: body.ClientId, active: true }, { populate: ['organization'] });
      const valid = cred && cred.organization.identityOrganizationId === body.OrgCode && (await verifySecret(body.ClientSecret, cred.clientSecretHash));
      if (!cred || !valid) throw AppError.unauthorized('Invalid ClientId/ClientSecret pair or OrgCode.');
      const org = cred.organization;
      return ok(
        await signAccessToken(deps.config, cred.clientId, {
          OrganizationId: org.id,
          CustomerNumber: null,
          PriceTier: null,
          CurrencyCode: null,
          role: 'Admin',
          roles: ['Admin'],
          kind: 'client',
          cv: org.credentialVersion,
        }),
      );
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/token',
    summary: 'Log in as a user with Email and Password',
    tag: 'Authentication',
    auth: 'public',
    body: yup.object({ Email: email().required(), Password: yup.string().required().max(1000), OrgCode: yup.string().trim().max(100) }),
    rateLimit: { scope: 'login', key: ({ body }) => body.Email.toLowerCase() },
    responses: { 200: AUTH_RESULT, 400: 'Missing fields, or OrgCode needed to choose among organizations', 401: 'Invalid e-mail or password, or inactive sales rep', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      const user = await em.findOne(User, { email: body.Email.toLowerCase() });
      if (!user || !(await verifySecret(body.Password, user.passwordHash))) throw AppError.unauthorized('Invalid e-mail or password.');
      if (needsRehash(user.passwordHash)) {
        user.passwordHash = await hashSecret(body.Password);
        await em.flush();
      }
      const all = await em.find(OrganizationMember, { user }, { populate: ['organization'] });
      // A pending membership (an existing account added by an organization) opens only after its owner accepts.
      const memberships = all.filter((m) => canSignIn(m.status));
      let member = memberships[0];
      if (body.OrgCode) {
        const named = all.find((m) => m.organization.identityOrganizationId === body.OrgCode || m.organization.id === body.OrgCode);
        if (!named) throw AppError.unauthorized('The user does not belong to that organization.');
        if (!canSignIn(named.status)) throw AppError.unauthorized('The membership in that organization waits for acceptance through the e-mailed link.');
        member = named;
      } else if (memberships.length > 1) {
        throw AppError.field('OrgCode', 'OrgCode is required because the user belongs to several organizations.');
      }
      if (!member) throw AppError.unauthorized('The user does not belong to any organization.');
      const context = await commerceContext(em, member.organization.id, user.id);
      const { role, allowed } = resolveRole({ isAdmin: member.isAdmin, repNumber: context.repNumber, repActive: context.repActive, customer: null });
      if (!allowed) throw AppError.unauthorized('This sales rep is inactive.');
      const roles: Role[] = [role, ...(user.isSuper ? (['Super'] as const) : [])];
      return ok(
        await signAccessToken(deps.config, user.id, {
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
        }),
      );
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/access',
    summary: 'Commerce context (customer number, price tier, currency) of a user in an organization',
    tag: 'Authentication',
    auth: ['Admin', 'Customer', 'SalesRep'],
    body: yup.object({ OrganizationId: yup.string().trim().required().max(100), UserId: uuid().required() }),
    responses: { 200: 'CustomerNumber, PriceTier, CurrencyCode', 400: 'OrganizationId or UserId missing or malformed', 401: 'Token missing, expired or invalid', 403: 'Another organization', 404: 'User not in this organization' },
    async handler({ em, body, auth }) {
      const org = await em.findOne(Organization, UUID_RE.test(body.OrganizationId) ? { id: body.OrganizationId } : { identityOrganizationId: body.OrganizationId });
      if (org && org.id !== auth.organizationId && !auth.isSuper) throw AppError.forbidden('The organization differs from the token organization.');
      if (!org) {
        if (!auth.isSuper) throw AppError.forbidden('The organization differs from the token organization.');
        throw AppError.notFound('Organization');
      }
      if (auth.role === 'Customer' && auth.userId !== body.UserId) throw AppError.forbidden('Customers may only enrich their own token.');
      const member = await em.findOne(OrganizationMember, { organization: org, user: body.UserId });
      if (!member) throw AppError.notFound('User');
      const ctx = await commerceContext(em, org.id, body.UserId);
      return ok({ CustomerNumber: ctx.CustomerNumber, PriceTier: ctx.PriceTier, CurrencyCode: ctx.CurrencyCode });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/set-password',
    summary: 'Set a password with the one-time link token from an invitation e-mail',
    tag: 'Authentication',
    auth: 'public',
    body: yup.object({ Token: yup.string().required().max(200), Password: password().required() }),
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 204: 'Password set', 400: 'Invalid, used or expired token, or weak password', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      const userId = await setPasswordWithToken(em, body.Token, body.Password);
      deps.credentialVersions.invalidateUser(userId);
      return { status: 204, headers: { 'Cache-Control': 'no-store' } };
    },
  }),
];

/**
 * Uses a set-password token once: a conditional UPDATE claims it (two concurrent requests with
 * the same token cannot both succeed), every other outstanding token of the user is spent with
 * it, and the user's token version is bumped so sessions from before the change end.
 */
async function setPasswordWithToken(em: EntityManager, token: string, password: string): Promise<string> {
  return em.transactional(async (tx) => {
    // tx.execute runs inside this transaction.
    const claimed = await tx.execute<{ user_id: string }[]>(
      'update password_token set used_at = now() where token_hash = ? and used_at is null and expires_at > now() returning user_id',
      [sha256(token)],
      'all',
    );
    if (!claimed.length) throw AppError.field('Token', 'The link is invalid, used or expired.');
    const userId = claimed[0].user_id;
    await tx.execute('update password_token set used_at = now() where user_id = ? and used_at is null', [userId], 'run');
    await tx.execute('update app_user set password_hash = ?, token_version = token_version + 1, updated_at = now() where id = ?', [await hashSecret(password), userId], 'run');
    return userId;
  });
}
