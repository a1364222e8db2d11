/** Organization endpoints: sign-up, record, admins, price tiers, API access credentials. */
import { findPriceTier, priceTierInUse, renamePriceTierReferences } from '../services/catalog/pricing.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { escapeLike } from '../http/paging.js';
import * as yup from 'yup';
import { hashSecret, newApiCredentials, newOrgCode, sha256, slugify } from '../domain/auth/secrets.js';
import { ApiCredential, Organization, OrganizationMember, PriceTier, User } from '../entities/index.js';
import { AppError, isUniqueViolation } from '../errors.js';
import { defineRoute, created, ok } from '../http/route.js';
import { queueEmail } from '../integrations/temporal.js';
import type { Deps } from '../deps.js';
import { countryCode, currencyCode, email, name, password, uuid } from './schemas.js';
import { initialMembershipStatus } from '../domain/organizations/membership.js';
import { normalizeOrigin } from '../domain/organizations/return-url.js';
import { addMember, sendAcceptLink } from '../services/memberships/index.js';

const organizationInput = yup.object({
  Name: name(200).required(),
  BillingAddress1: name(200),
  BillingAddress2: name(200),
  BillingCity: name(100),
  BillingStateProvince: name(100),
  BillingPostalCode: name(20),
  BillingCountry: countryCode(),
  PhoneNumber: name(40),
  Email: email(),
  Website: yup.string().trim().url('${path} must be a URL.').max(300),
});

export const userInput = yup.object({
  FirstName: name().required(),
  LastName: name().required(),
  Email: email().required(),
  Password: password(),
  PhoneNumber: name(40),
});

export function organizationRecord(o: Organization) {
  return {
    OrganizationId: o.id,
    Name: o.name,
    BillingAddress1: o.billingAddress1 ?? null,
    BillingAddress2: o.billingAddress2 ?? null,
    BillingCity: o.billingCity ?? null,
    BillingStateProvince: o.billingStateProvince ?? null,
    BillingPostalCode: o.billingPostalCode ?? null,
    BillingCountry: o.billingCountry ?? null,
    PhoneNumber: o.phoneNumber ?? null,
    Email: o.email ?? null,
    Website: o.website ?? null,
  };
}

async function uniqueSlug(em: EntityManager, base: string): Promise<string> {
  for (let i = 0; ; i++) {
    const slug = i === 0 ? base : `${base}-${i + 1}`;
    if (!(await em.count(Organization, { slug }))) return slug;
  }
}

/** Queues the welcome e-mail for a new admin (with a set-password link when they have no password). */
export async function sendAdminWelcome(deps: Deps, org: Organization, user: User): Promise<void> {
  await queueEmail(deps.temporal, deps.config, {
    emailId: `welcome-admin-${org.id}-${user.id}`,
    organizationId: org.id,
    template: 'welcome-admin',
    to: user.email,
    data: { firstName: user.firstName, organizationName: org.name, organizationCode: org.identityOrganizationId, userId: user.id, needsPasswordLink: !user.passwordHash },
  });
}

export async function orgOf(em: EntityManager, orgId: string): Promise<Organization> {
  const org = await em.findOne(Organization, { id: orgId });
  if (!org) throw AppError.badRequest('The organization of the token was not found.');
  return org;
}

/** The organization's price tier with this name (names are unique case-insensitively), or null. */
const tierName = () => yup.string().trim().min(1).max(100);

export const organizationRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/organizations',
    summary: 'Create an organization with its first admin user',
    tag: 'Organizations',
    auth: 'public',
    body: yup.object({ Organization: organizationInput.required(), User: userInput.required() }),
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 201: 'OrganizationId, IdentityOrganizationId, Name, Slug', 400: 'Missing fields or the name already exists', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      const o = body.Organization;
      if (await em.count(Organization, { name: { $ilike: escapeLike(o.Name) } })) throw AppError.field('Organization.Name', 'An organization with this name already exists.');
      const passwordHash = body.User.Password ? await hashSecret(body.User.Password) : null;
      let org!: Organization;
      let user!: User;
      try {
        await em.transactional(async (tx) => {
          org = tx.create(Organization, {
            identityOrganizationId: newOrgCode(),
            name: o.Name,
            slug: await uniqueSlug(tx, slugify(o.Name)),
            billingAddress1: o.BillingAddress1,
            billingAddress2: o.BillingAddress2,
            billingCity: o.BillingCity,
            billingStateProvince: o.BillingStateProvince,
            billingPostalCode: o.BillingPostalCode,
            billingCountry: o.BillingCountry,
            phoneNumber: o.PhoneNumber,
            email: o.Email,
            website: o.Website,
          });
          const existing = await tx.findOne(User, { email: body.User.Email.toLowerCase() });
          user =
            existing ??
            tx.create(User, {
              email: body.User.Email.toLowerCase(),
              firstName: body.User.FirstName,
              lastName: body.User.LastName,
              phoneNumber: body.User.PhoneNumber,
              passwordHash,
            });
          tx.create(OrganizationMember, { organization: org, user, isAdmin: true, status: initialMembershipStatus(!!existing) });
        });
      } catch (e) {
        if (isUniqueViolation(e, 'organization_name_lower_unique')) throw AppError.field('Organization.Name', 'An organization with this name already exists.');
        throw e;
      }
      // An existing account does not become the admin of an organization someone else created until it accepts.
      const pending = await em.count(OrganizationMember, { organization: org, user, status: 'pending' });
      if (pending) await sendAcceptLink(deps, org, user);
      else await sendAdminWelcome(deps, org, user);
      return created({ OrganizationId: org.id, IdentityOrganizationId: org.identityOrganizationId, Name: org.name, Slug: org.slug });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organization',
    summary: 'The organization of the token, with subscriptions and entitlements',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: 'Organization, Subscriptions, Entitlements', 400: 'Organization from token not found', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      const org = await orgOf(em, orgId);
      return ok({
        Organization: { ...organizationRecord(org), IdentityOrganizationId: org.identityOrganizationId, Slug: org.slug },
        Subscriptions: [{ Name: 'Commerce', Status: 'Active', StartDate: org.createdAt.toISOString() }],
        Entitlements: [{ Name: 'DocumentStorageBytes', Value: 5 * 1024 ** 3 }],
      });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/users/admins',
    summary: 'List the administrators of the organization',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: 'Array of OrganizationUser', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      const members = await em.find(OrganizationMember, { organization: orgId, isAdmin: true }, { populate: ['user'], orderBy: { user: { email: 'asc' } } });
      return ok(members.map((m) => ({ Id: m.user.id, Email: m.user.email, FirstName: m.user.firstName, LastName: m.user.lastName, Roles: ['admin'] })));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/users/admins',
    summary: 'Make an existing user an administrator (sends a welcome e-mail)',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ Email: email().required() }),
    responses: { 200: '{ Success }', 400: 'No such user or malformed', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, body, orgId, deps }) {
      const user = await em.findOne(User, { email: body.Email.toLowerCase() });
      if (!user) throw AppError.field('Email', 'No user has this e-mail address; create the user first.');
      const org = await orgOf(em, orgId);
      const current = await em.findOne(OrganizationMember, { organization: org, user });
      const wasAdmin = !!current?.isAdmin;
      const { member, memberCreated } = await addMember(em, org, { email: user.email, firstName: user.firstName, lastName: user.lastName }, { isAdmin: true });
      // Someone who was not a member yet joins only by accepting the e-mailed link (DESIGN "Security decisions").
      if (memberCreated && member.status === 'pending') await sendAcceptLink(deps, org, user);
      else if (!wasAdmin) await sendAdminWelcome(deps, org, user);
      return ok({ Success: true });
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/organizations/users/admins',
    summary: 'Remove the administrator role from a user',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ UserId: uuid().required() }),
    responses: { 200: '{ Success }', 400: 'UserId missing, user not an admin here, or the last admin', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, body, orgId }) {
      const member = await em.findOne(OrganizationMember, { organization: orgId, user: body.UserId, isAdmin: true });
      if (!member) throw AppError.field('UserId', 'No administrator with this id in the organization.');
      if ((await em.count(OrganizationMember, { organization: orgId, isAdmin: true })) <= 1)
        throw AppError.field('UserId', 'The last administrator of an organization cannot be removed.');
      member.isAdmin = false;
      await em.flush();
      return ok({ Success: true });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/price-tiers',
    summary: 'List price tiers',
    tag: 'Organizations',
    auth: ['Admin', 'SalesRep'],
    responses: { 200: 'Array of { Name, CurrencyCode }', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      const tiers = await em.find(PriceTier, { organization: orgId }, { orderBy: { name: 'asc' } });
      return ok(tiers.map((t) => ({ Name: t.name, CurrencyCode: t.currencyCode })));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/price-tiers',
    summary: 'Create a price tier',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ Name: tierName().required(), CurrencyCode: currencyCode().required() }),
    responses: { 200: 'Empty body', 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'A tier with this name exists' },
    async handler({ em, body, orgId }) {
      em.create(PriceTier, { organization: orgId, name: body.Name, currencyCode: body.CurrencyCode });
      try {
        await em.flush();
      } catch (e) {
        if (isUniqueViolation(e, 'price_tier_org_name_unique')) throw AppError.conflict(`A price tier named "${body.Name}" already exists.`);
        throw e;
      }
      return ok();
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/price-tiers',
    summary: 'Rename a price tier (renames it on customers and product prices) and set its currency',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ CurrentName: tierName().required(), NewName: tierName().required(), CurrencyCode: currencyCode().default('USD') }),
    responses: { 200: 'Empty body', 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No tier with CurrentName', 409: 'NewName taken' },
    async handler({ em, body, orgId }) {
      try {
        await em.transactional(async (tx) => {
          const tier = await findPriceTier(tx, orgId, body.CurrentName);
          if (!tier) throw AppError.notFound('Price tier');
          const oldName = tier.name;
          tier.name = body.NewName;
          tier.currencyCode = body.CurrencyCode;
          await tx.flush();
          await renamePriceTierReferences(tx, orgId, oldName, body.NewName);
        });
      } catch (e) {
        if (isUniqueViolation(e, 'price_tier_org_name_unique')) throw AppError.conflict(`A price tier named "${body.NewName}" already exists.`);
        throw e;
      }
      return ok();
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/organizations/price-tiers',
    summary: 'Delete a price tier that no customer uses',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ Name: tierName().required() }),
    responses: { 200: 'Empty body', 400: 'Missing name, or customers use the tier', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such tier' },
    async handler({ em, body, orgId }) {
      const tier = await findPriceTier(em, orgId, body.Name);
      if (!tier) throw AppError.notFound('Price tier');
      const reason = await priceTierInUse(em, orgId, tier.name);
      if (reason) throw AppError.field('Name', reason);
      em.remove(tier);
      await em.flush();
      return ok();
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/return-origins',
    summary: 'Origins hosted payment pages may return the browser to (besides the API and the deployment storefronts)',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: '{ Origins: [string] }', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      const org = await orgOf(em, orgId);
      return ok({ Origins: org.allowedReturnOrigins ?? [] });
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/return-origins',
    summary: 'Replace the origins hosted payment pages may return the browser to (applicationReturnUrl, appUrl)',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({
      Origins: yup
        .array(yup.string().trim().required().max(300).test('origin', '${path} must be an http(s) origin such as https://shop.example.com (no path).', (v) => !v || normalizeOrigin(v) !== null))
        .required()
        .max(20),
    }),
    responses: { 200: '{ Origins: [string] }', 400: 'Not bare http(s) origins, or more than 20', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, body }) {
      const org = await orgOf(em, orgId);
      org.allowedReturnOrigins = [...new Set(body.Origins.map((o) => normalizeOrigin(o)!))];
      await em.flush();
      return ok({ Origins: org.allowedReturnOrigins });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/api-access',
    summary: 'Issue ClientId, ClientSecret and an API key (shown once); invalidates all earlier tokens and keys',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 201: 'ClientId, ClientSecret, ApiKey', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, deps }) {
      const creds = newApiCredentials();
      const secretHash = await hashSecret(creds.clientSecret);
      await em.transactional(async (tx) => {
        const org = await tx.findOneOrFail(Organization, { id: orgId }, { lockMode: 4 /* PESSIMISTIC_WRITE */ });
        await tx.nativeUpdate(ApiCredential, { organization: org, active: true }, { active: false, revokedAt: new Date() });
        org.credentialVersion += 1;
        tx.create(ApiCredential, { organization: org, clientId: creds.clientId, clientSecretHash: secretHash, apiKeyHash: sha256(creds.apiKey), version: org.credentialVersion });
      });
      deps.credentialVersions.invalidate(orgId);
      return created({ ClientId: creds.clientId, ClientSecret: creds.clientSecret, ApiKey: creds.apiKey });
    },
  }),
];
