/** Organization endpoints: sign-up, record, admins, price tiers, return origins, API access credentials. */
import * as yup from 'yup';
import { normalizeOrigin } from '../domain/organizations/return-url.js';
import { organizationInput, userInput } from '../domain/organizations/schemas.js';
import { defineRoute, created, ok } from '../http/route.js';
import {
  addAdmin,
  createPriceTier,
  deletePriceTier,
  issueApiAccess,
  listAdmins,
  listPriceTiers,
  organizationOverview,
  removeAdmin,
  renamePriceTier,
  returnOrigins,
  setReturnOrigins,
  signUp,
} from '../services/organizations/index.js';
import { currencyCode, email, uuid } from './schemas.js';

/** A price tier name (unique per organization, case-insensitively). */
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
      return created(await signUp(em, deps, body));
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
      return ok(await organizationOverview(em, orgId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/users/admins',
    summary: 'List the administrators of the organization (one who has not accepted yet shows no names)',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: 'Array of OrganizationUser', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      return ok(await listAdmins(em, orgId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/users/admins',
    summary: 'Make an existing user an administrator (sends a welcome e-mail, or an acceptance link to someone not yet a member)',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ Email: email().required() }),
    responses: { 200: '{ Success }', 400: 'No such user or malformed', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, body, orgId, deps }) {
      await addAdmin(em, deps, orgId, body.Email);
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
      await removeAdmin(em, orgId, body.UserId);
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
      return ok(await listPriceTiers(em, orgId));
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
      await createPriceTier(em, orgId, body);
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
      await renamePriceTier(em, orgId, body);
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
      await deletePriceTier(em, orgId, body.Name);
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
      return ok({ Origins: await returnOrigins(em, orgId) });
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
      return ok({ Origins: await setReturnOrigins(em, orgId, body.Origins) });
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
      return created(await issueApiAccess(em, deps, orgId));
    },
  }),
];
