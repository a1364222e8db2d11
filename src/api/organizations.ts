/** Organization endpoints: sign-up, record, admins, price tiers, return origins, API access credentials. */
import * as yup from 'yup';
import { normalizeOrigin } from '../domain/organizations/return-url.js';
import { organizationInput, userInput } from '../domain/organizations/schemas.js';
import { defineRoute, empty, json, created, ok } from '../http/route.js';
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
  rateLimits,
  returnOrigins,
  setReturnOrigins,
  fulfillmentSettings,
  setFulfillmentSettings,
  signUp,
} from '../services/organizations/index.js';
import { currencyCode, email, uuid } from './schemas.js';
import * as out from '../domain/contract.js';

const SUCCESS = json(out.obj({ Success: out.bool() }), 'Done');
const ORIGINS = out.obj({ Origins: out.arr(out.str()) });
const FULFILLMENT_SETTINGS = out.component(
  'FulfillmentSettings',
  out.obj({
    backorderEscalationDays: out.doc(out.int(), 'Days an order may wait for backordered units before its fulfillment workflow e-mails the admins (docs/fulfillment.md "Backorders")'),
    buyersMayCancel: out.doc(out.bool(), 'Whether buyers may cancel their own orders before anything shipped (docs/returns.md "Cancellation"); default false'),
    invoiceOn: out.doc(
      out.oneOf(['order', 'shipment'] as const),
      'How on-account orders are invoiced (docs/fulfillment.md "Invoicing"): `order` (default) one invoice when the order is placed; `shipment` one invoice per shipment for the shipped lines and quantities. Card-paid orders are invoiced at placement either way',
    ),
  }),
);
const OVERVIEW = out.obj({
  Organization: out.obj({
    OrganizationId: out.uuid(),
    Name: out.str(),
    BillingAddress1: out.strN(),
    BillingAddress2: out.strN(),
    BillingCity: out.strN(),
    BillingStateProvince: out.strN(),
    BillingPostalCode: out.strN(),
    BillingCountry: out.strN(),
    PhoneNumber: out.strN(),
    Email: out.strN(),
    Website: out.strN(),
    IdentityOrganizationId: out.str(),
    Slug: out.str(),
  }),
  Subscriptions: out.arr(out.obj({ Name: out.str(), Status: out.str(), StartDate: out.dateTime() })),
  Entitlements: out.arr(out.obj({ Name: out.str(), Value: out.num() })),
});

/** A price tier name (unique per organization, case-insensitively). */
const tierName = () => yup.string().trim().min(1).max(100);

const classLimits = out.obj({ Share: out.doc(out.int(), 'Percent of the organization limit'), RequestsPerMinute: out.int() });

export const organizationRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/organizations',
    operationId: 'createOrganization',
    summary: 'Create an organization with its first admin user',
    tag: 'Organizations',
    auth: 'public',
    body: yup.object({ Organization: organizationInput.required(), User: userInput.required() }),
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    requestExample: { Organization: { Name: 'Acme Supply', BillingCountry: 'US' }, User: { FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@acme.test', Password: 's3cret-pass' } },
    responses: { 201: json(out.obj({ OrganizationId: out.uuid(), IdentityOrganizationId: out.str(), Name: out.str(), Slug: out.str() }), 'The new organization', { example: { OrganizationId: '9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d', IdentityOrganizationId: 'org_5KcX2p', Name: 'Acme Supply', Slug: 'acme-supply' } }), 400: 'Missing fields or the name already exists', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      return created(await signUp(em, deps, body), '/api/organization');
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organization',
    operationId: 'getOrganization',
    summary: 'The organization of the token, with subscriptions and entitlements',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: json(OVERVIEW, 'The organization with its subscriptions and entitlements'), 400: 'Organization from token not found', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      return ok(await organizationOverview(em, orgId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/users/admins',
    operationId: 'listAdmins',
    summary: 'List the administrators of the organization (one who has not accepted yet shows no names)',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: json(out.arr(out.obj({ Id: out.uuid(), Email: out.str(), FirstName: out.strN(), LastName: out.strN(), Roles: out.arr(out.str()) })), 'The admins'), 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      return ok(await listAdmins(em, orgId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/users/admins',
    operationId: 'addAdmin',
    summary: 'Make an existing user an administrator (sends a welcome e-mail, or an acceptance link to someone not yet a member)',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ Email: email().required() }),
    responses: { 200: SUCCESS, 400: 'No such user or malformed', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, body, orgId, deps }) {
      await addAdmin(em, deps, orgId, body.Email);
      return ok({ Success: true });
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/organizations/users/admins',
    operationId: 'removeAdmin',
    summary: 'Remove the administrator role from a user',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ UserId: uuid().required() }),
    responses: { 200: SUCCESS, 400: 'UserId missing, user not an admin here, or the last admin', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, body, orgId }) {
      await removeAdmin(em, orgId, body.UserId);
      return ok({ Success: true });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/price-tiers',
    operationId: 'listPriceTiers',
    summary: 'List price tiers',
    tag: 'Organizations',
    auth: ['Admin', 'SalesRep'],
    responses: { 200: json(out.arr(out.component('PriceTier', out.obj({ Name: out.str(), CurrencyCode: out.str() }))), 'The price tiers, by name'), 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      return ok(await listPriceTiers(em, orgId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/price-tiers',
    operationId: 'createPriceTier',
    summary: 'Create a price tier',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ Name: tierName().required(), CurrencyCode: currencyCode().required() }),
    responses: { 200: empty('Empty body'), 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'A tier with this name exists' },
    async handler({ em, body, orgId }) {
      await createPriceTier(em, orgId, body);
      return ok();
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/price-tiers',
    operationId: 'renamePriceTier',
    summary: 'Rename a price tier (renames it on customers and product prices) and set its currency',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ CurrentName: tierName().required(), NewName: tierName().required(), CurrencyCode: currencyCode().default('USD') }),
    responses: { 200: empty('Empty body'), 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No tier with CurrentName', 409: 'NewName taken' },
    async handler({ em, body, orgId }) {
      await renamePriceTier(em, orgId, body);
      return ok();
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/organizations/price-tiers',
    operationId: 'deletePriceTier',
    summary: 'Delete a price tier that no customer uses',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({ Name: tierName().required() }),
    responses: { 200: empty('Empty body'), 400: 'Missing name, or customers use the tier', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such tier' },
    async handler({ em, body, orgId }) {
      await deletePriceTier(em, orgId, body.Name);
      return ok();
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/return-origins',
    operationId: 'listReturnOrigins',
    summary: 'Origins hosted payment pages may return the browser to (besides the API and the deployment storefronts)',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: json(ORIGINS, 'The return origins'), 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      return ok({ Origins: await returnOrigins(em, orgId) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/rate-limits',
    operationId: 'getOrganizationRateLimits',
    summary: "The organization's limits on authenticated requests per minute (per organization and per credential); set by the platform operator",
    tag: 'Organizations',
    auth: ['Admin'],
    // Readable while the organization is over its limit: the one answer that says why it is refused.
    tenantLimits: 'exempt',
    responses: {
      200: json(
        out.component(
          'OrganizationRateLimits',
          out.obj({
            RequestsPerMinute: out.doc(out.int(), 'Authenticated requests per minute for the whole organization'),
            RequestsPerMinutePerCredential: out.doc(out.int(), 'Per user, client token or API key (at most a fifth of the organization by default)'),
            Classes: out.doc(
              out.obj({ Buyers: classLimits, Staff: classLimits, Api: classLimits }),
              "The organization's limit split by class of caller: Buyers (Customer users), Staff (Admin and SalesRep users), Api (API keys and client tokens); one class using up its share never refuses another",
            ),
            IsOrganizationSpecific: out.doc(out.bool(), "Whether the platform operator set this organization's own limit (else the deployment default applies)"),
            WindowSeconds: out.int(),
          }),
        ),
        'The limits in force',
      ),
      401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, deps }) {
      return ok(await rateLimits(em, deps.config, orgId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/fulfillment-settings',
    operationId: 'getFulfillmentSettings',
    summary: "The organization's fulfillment settings (backorder escalation, buyer cancellation)",
    description:
      'backorderEscalationDays: after how many days an order still waiting for backordered units is escalated to the admins by e-mail (docs/fulfillment.md "Backorders"). buyersMayCancel: whether buyers may cancel their own orders before anything shipped (docs/returns.md "Cancellation"). invoiceOn: `order` or `shipment`, how on-account orders are invoiced (docs/fulfillment.md "Invoicing").',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: json(FULFILLMENT_SETTINGS, 'The settings in force'), 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId }) {
      return ok(await fulfillmentSettings(em, orgId));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/fulfillment-settings',
    operationId: 'setFulfillmentSettings',
    summary: "Change the organization's fulfillment settings",
    description:
      'Each field is optional; an absent one keeps its value. backorderEscalationDays (1 to 365): applies to the escalation timers of orders placed from now on and of waiting orders at their next wake-up. buyersMayCancel: whether buyers may cancel their own orders before anything shipped. invoiceOn (`order` or `shipment`): applies to on-account orders placed from now on; an order keeps the way it was invoiced when placed.',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({
      backorderEscalationDays: yup.number().integer().min(1).max(365),
      buyersMayCancel: yup.boolean().typeError('buyersMayCancel must be true or false.'),
      invoiceOn: yup.string().oneOf(['order', 'shipment'] as const, 'invoiceOn must be order or shipment.'),
    }),
    responses: { 200: json(FULFILLMENT_SETTINGS, 'The settings in force'), 400: 'backorderEscalationDays not 1 to 365, buyersMayCancel not a boolean, or invoiceOn not order or shipment', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, body }) {
      return ok(await setFulfillmentSettings(em, orgId, body));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/organizations/return-origins',
    operationId: 'setReturnOrigins',
    summary: 'Replace the origins hosted payment pages may return the browser to (applicationReturnUrl, appUrl)',
    tag: 'Organizations',
    auth: ['Admin'],
    body: yup.object({
      Origins: yup
        .array(yup.string().trim().required().max(300).test('origin', '${path} must be an http(s) origin such as https://shop.example.com (no path).', (v) => !v || normalizeOrigin(v) !== null))
        .required()
        .max(20),
    }),
    responses: { 200: json(ORIGINS, 'The return origins'), 400: 'Not bare http(s) origins, or more than 20', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, body }) {
      return ok({ Origins: await setReturnOrigins(em, orgId, body.Origins) });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/organizations/api-access',
    operationId: 'issueApiAccess',
    summary: 'Issue ClientId, ClientSecret and an API key (shown once); invalidates all earlier tokens and keys',
    tag: 'Organizations',
    auth: ['Admin'],
    answersSecret: true,
    responses: { 201: json(out.obj({ ClientId: out.str(), ClientSecret: out.str(), ApiKey: out.str() }), 'The new credentials, shown once (every older token and key is refused)'), 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, deps }) {
      return created(await issueApiAccess(em, deps, orgId), '/api/organization');
    },
  }),
];
