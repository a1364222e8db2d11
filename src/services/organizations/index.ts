/**
 * Organization use cases: sign-up, the organization record, administrators, price tiers,
 * return origins of hosted payments, and API access credentials.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { classBudget, type CallerClass } from '../../domain/organizations/rate-classes.js';
import type { Deps } from '../../deps.js';
import { hashSecret, newApiCredentials, newOrgCode, sha256, slugify } from '../../domain/auth/secrets.js';
import { initialMembershipStatus } from '../../domain/organizations/membership.js';
import { normalizeOrigin } from '../../domain/organizations/return-url.js';
import type { OrganizationInput, UserInput } from '../../domain/organizations/schemas.js';
import { ApiCredential, Organization, OrganizationMember, PriceTier, User } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { escapeLike } from '../../http/paging.js';
import { queueEmail } from '../email/queue.js';
import { findPriceTier, priceTierInUse, renamePriceTierReferences } from '../catalog/pricing.js';
import { addMember, invitedProfile, sendAcceptLink, visibleProfile } from '../memberships/index.js';

type Mailer = { temporal: Client; config: Config };

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

/** The organization of the token; 400 when it no longer exists. */
export async function orgOf(em: EntityManager, orgId: string): Promise<Organization> {
  const org = await em.findOne(Organization, { id: orgId });
  if (!org) throw AppError.badRequest('The organization of the token was not found.');
  return org;
}

async function uniqueSlug(em: EntityManager, base: string): Promise<string> {
  for (let i = 0; ; i++) {
    const slug = i === 0 ? base : `${base}-${i + 1}`;
    if (!(await em.count(Organization, { slug }))) return slug;
  }
}

/** Queues the welcome e-mail for a new admin (with a set-password link when they have no password). */
export async function sendAdminWelcome(deps: Mailer, org: Organization, user: User): Promise<void> {
  await queueEmail(deps.temporal, deps.config, {
    emailId: `welcome-admin-${org.id}-${user.id}`,
    organizationId: org.id,
    template: 'welcome-admin',
    to: user.email,
    data: { firstName: user.firstName, organizationName: org.name, organizationCode: org.identityOrganizationId, userId: user.id, needsPasswordLink: !user.passwordHash },
  });
}

const nameTaken = () => AppError.field('Organization.Name', 'An organization with this name already exists.');

/**
 * Public sign-up: the organization and its first admin. A new e-mail becomes an active admin who
 * can log in at once (with the submitted password, or through the welcome e-mail's link); an
 * e-mail that already has an account gets a pending membership its owner must accept.
 */
export async function signUp(em: EntityManager, deps: Mailer, input: { Organization: OrganizationInput; User: UserInput }) {
  const o = input.Organization;
  const u = input.User;
  if (await em.count(Organization, { name: { $ilike: escapeLike(o.Name) } })) throw nameTaken();
  const passwordHash = u.Password ? await hashSecret(u.Password) : null;
  let created: { org: Organization; user: User; pending: boolean };
  try {
    created = await em.transactional(async (tx) => {
      const org = tx.create(Organization, {
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
      const email = u.Email.toLowerCase();
      const existing = await tx.findOne(User, { email });
      const user = existing ?? tx.create(User, { email, firstName: u.FirstName, lastName: u.LastName, phoneNumber: u.PhoneNumber, passwordHash });
      const status = initialMembershipStatus(!!existing);
      const profile = invitedProfile(!!existing, { firstName: u.FirstName, lastName: u.LastName, phoneNumber: u.PhoneNumber });
      tx.create(OrganizationMember, { organization: org, user, isAdmin: true, status, ...profile });
      return { org, user, pending: status === 'pending' };
    });
  } catch (e) {
    if (isUniqueViolation(e, 'organization_name_lower_unique')) throw nameTaken();
    throw e;
  }
  const { org, user, pending } = created;
  // An existing account does not become the admin of an organization someone else created until it accepts.
  if (pending) await sendAcceptLink(deps, org, user);
  else await sendAdminWelcome(deps, org, user);
  return { OrganizationId: org.id, IdentityOrganizationId: org.identityOrganizationId, Name: org.name, Slug: org.slug };
}

/** GET /api/organization: the record, with its subscription and entitlements. */
export async function organizationOverview(em: EntityManager, orgId: string) {
  const org = await orgOf(em, orgId);
  return {
    Organization: { ...organizationRecord(org), IdentityOrganizationId: org.identityOrganizationId, Slug: org.slug },
    Subscriptions: [{ Name: 'Commerce', Status: 'Active', StartDate: org.createdAt.toISOString() }],
    Entitlements: [{ Name: 'DocumentStorageBytes', Value: 5 * 1024 ** 3 }],
  };
}

/** Administrators of the organization; a pending one shows only what the organization entered. */
export async function listAdmins(em: EntityManager, orgId: string) {
  const members = await em.find(OrganizationMember, { organization: orgId, isAdmin: true }, { populate: ['user'], orderBy: { user: { email: 'asc' } } });
  return members.map((m) => {
    const p = visibleProfile(m, m.user);
    return { Id: m.user.id, Email: m.user.email, FirstName: p.firstName, LastName: p.lastName, Roles: ['admin'] };
  });
}

/** Makes an existing account an administrator; someone not yet a member joins only by accepting the e-mailed link. */
export async function addAdmin(em: EntityManager, deps: Mailer, orgId: string, email: string): Promise<void> {
  const user = await em.findOne(User, { email: email.toLowerCase() });
  if (!user) throw AppError.field('Email', 'No user has this e-mail address; create the user first.');
  const org = await orgOf(em, orgId);
  const current = await em.findOne(OrganizationMember, { organization: org, user });
  const wasAdmin = !!current?.isAdmin;
  // Only the e-mail was submitted: a pending admin shows no names until accepted.
  const { member, memberCreated } = await addMember(em, org, { email: user.email, firstName: user.firstName, lastName: user.lastName }, { isAdmin: true, submitted: {} });
  if (memberCreated && member.status === 'pending') await sendAcceptLink(deps, org, user);
  else if (!wasAdmin) await sendAdminWelcome(deps, org, user);
}

/** Takes the administrator role away; the last administrator stays. */
export async function removeAdmin(em: EntityManager, orgId: string, userId: string): Promise<void> {
  const member = await em.findOne(OrganizationMember, { organization: orgId, user: userId, isAdmin: true });
  if (!member) throw AppError.field('UserId', 'No administrator with this id in the organization.');
  if ((await em.count(OrganizationMember, { organization: orgId, isAdmin: true })) <= 1) throw AppError.field('UserId', 'The last administrator of an organization cannot be removed.');
  member.isAdmin = false;
  await em.flush();
}

export async function listPriceTiers(em: EntityManager, orgId: string) {
  const tiers = await em.find(PriceTier, { organization: orgId }, { orderBy: { name: 'asc' } });
  return tiers.map((t) => ({ Name: t.name, CurrencyCode: t.currencyCode }));
}

const tierTaken = (name: string) => AppError.conflict(`A price tier named "${name}" already exists.`);

export async function createPriceTier(em: EntityManager, orgId: string, input: { Name: string; CurrencyCode: string }): Promise<void> {
  em.create(PriceTier, { organization: orgId, name: input.Name, currencyCode: input.CurrencyCode });
  try {
    await em.flush();
  } catch (e) {
    if (isUniqueViolation(e, 'price_tier_org_name_unique')) throw tierTaken(input.Name);
    throw e;
  }
}

/** Renames a tier (and the name on customers and product prices) and sets its currency. */
export async function renamePriceTier(em: EntityManager, orgId: string, input: { CurrentName: string; NewName: string; CurrencyCode: string }): Promise<void> {
  try {
    await em.transactional(async (tx) => {
      const tier = await findPriceTier(tx, orgId, input.CurrentName);
      if (!tier) throw AppError.notFound('Price tier');
      const oldName = tier.name;
      tier.name = input.NewName;
      tier.currencyCode = input.CurrencyCode;
      await tx.flush();
      await renamePriceTierReferences(tx, orgId, oldName, input.NewName);
    });
  } catch (e) {
    if (isUniqueViolation(e, 'price_tier_org_name_unique')) throw tierTaken(input.NewName);
    throw e;
  }
}

export async function deletePriceTier(em: EntityManager, orgId: string, name: string): Promise<void> {
  const tier = await findPriceTier(em, orgId, name);
  if (!tier) throw AppError.notFound('Price tier');
  const reason = await priceTierInUse(em, orgId, tier.name);
  if (reason) throw AppError.field('Name', reason);
  em.remove(tier);
  await em.flush();
}

/** Origins hosted payment pages may return the browser to, besides the API and the deployment storefronts. */
export async function returnOrigins(em: EntityManager, orgId: string): Promise<string[]> {
  const stored = (await orgOf(em, orgId)).allowedReturnOrigins as unknown;
  // A row created in this EntityManager still holds the column default as its JSON text ('[]').
  if (typeof stored === 'string') return JSON.parse(stored) as string[];
  return (stored as string[] | null) ?? [];
}

/** The organization's limits on authenticated requests per minute (issue 21): its own, or the deployment's default. */
export async function rateLimits(em: EntityManager, config: Config, orgId: string) {
  const org = await orgOf(em, orgId);
  const cfg = config.tenantRateLimits;
  const total = org.rateLimitPerMinute ?? cfg.perOrganizationPerMinute;
  const cls = (c: CallerClass) => ({ Share: cfg.shares[c], RequestsPerMinute: classBudget(total, c, cfg).classLimit });
  return {
    RequestsPerMinute: total,
    RequestsPerMinutePerCredential: classBudget(total, 'api', cfg).credentialLimit,
    Classes: { Buyers: cls('buyers'), Staff: cls('staff'), Api: cls('api') },
    IsOrganizationSpecific: org.rateLimitPerMinute != null,
    WindowSeconds: 60,
  };
}

/** Sets (or with null removes) an organization's own limit; the platform operator's (scripts/ops/rate-limit.ts), never the tenant's. */
export async function setOrganizationRateLimit(em: EntityManager, orgId: string, perMinute: number | null): Promise<void> {
  const org = await orgOf(em, orgId);
  org.rateLimitPerMinute = perMinute;
  await em.flush();
}

/** The organization's fulfillment settings (docs/fulfillment.md "Backorders" and "Invoicing", docs/returns.md "Cancellation"). */
export interface FulfillmentSettings {
  backorderEscalationDays: number;
  buyersMayCancel: boolean;
  invoiceOn: 'order' | 'shipment';
}

const settingsOf = (org: Organization): FulfillmentSettings => ({
  backorderEscalationDays: org.backorderEscalationDays,
  buyersMayCancel: org.buyersMayCancel,
  invoiceOn: org.invoiceOn,
});

export async function fulfillmentSettings(em: EntityManager, orgId: string): Promise<FulfillmentSettings> {
  return settingsOf(await orgOf(em, orgId));
}

/** Sets the settings given (an absent one keeps its value). */
export async function setFulfillmentSettings(em: EntityManager, orgId: string, input: Partial<FulfillmentSettings>): Promise<FulfillmentSettings> {
  const org = await orgOf(em, orgId);
  if (input.backorderEscalationDays !== undefined) org.backorderEscalationDays = input.backorderEscalationDays;
  if (input.buyersMayCancel !== undefined) org.buyersMayCancel = input.buyersMayCancel;
  if (input.invoiceOn !== undefined) org.invoiceOn = input.invoiceOn;
  await em.flush();
  return settingsOf(org);
}

/** Replaces the organization's return origins with these (normalized, deduplicated; each already checked by the schema). */
export async function setReturnOrigins(em: EntityManager, orgId: string, origins: string[]): Promise<string[]> {
  const org = await orgOf(em, orgId);
  org.allowedReturnOrigins = [...new Set(origins.map((o) => normalizeOrigin(o)).filter((o): o is string => o !== null))];
  await em.flush();
  return org.allowedReturnOrigins;
}

/** New ClientId, ClientSecret and API key (returned once); every earlier credential, token and key stops working. */
export async function issueApiAccess(em: EntityManager, deps: Pick<Deps, 'credentialVersions'>, orgId: string) {
  const creds = newApiCredentials();
  const secretHash = await hashSecret(creds.clientSecret);
  await em.transactional(async (tx) => {
    const org = await tx.findOneOrFail(Organization, { id: orgId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    await tx.nativeUpdate(ApiCredential, { organization: org, active: true }, { active: false, revokedAt: new Date() });
    org.credentialVersion += 1;
    tx.create(ApiCredential, { organization: org, clientId: creds.clientId, clientSecretHash: secretHash, apiKeyHash: sha256(creds.apiKey), version: org.credentialVersion });
  });
  deps.credentialVersions.invalidate(orgId);
  return { ClientId: creds.clientId, ClientSecret: creds.clientSecret, ApiKey: creds.apiKey };
}
