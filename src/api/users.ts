/** User endpoints: create (or reuse) a user in the organization, accept a membership, profile, existence check, memberships. */
import * as yup from 'yup';
import { userInput } from '../domain/organizations/schemas.js';
import { defineRoute, created, json, ok } from '../http/route.js';
import * as out from '../domain/contract.js';

const PROFILE = out.component('UserProfile', out.obj({ UserId: out.uuid(), FirstName: out.strN(), LastName: out.strN(), Email: out.str(), PhoneNumber: out.strN() }));
import { acceptMembership, addUser, ownOrganizations, ownProfile, userExists } from '../services/users/index.js';
import { email, password } from './schemas.js';

export const userRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/users',
    operationId: 'createUser',
    summary: 'Create a user in the organization; an e-mail that already has an account gets a pending membership its owner must accept',
    tag: 'Users',
    auth: ['Admin'],
    body: userInput,
    responses: {
      201: json(PROFILE, 'The new user'),
      200: json(PROFILE, 'The user as submitted (existing account: pending membership, acceptance link e-mailed)'),
      400: 'Missing or malformed fields',
      401: 'Unauthenticated',
      403: 'Not Admin',
      409: 'Created concurrently',
    },
    async handler({ em, body, orgId, deps }) {
      const added = await addUser(em, deps, orgId, body);
      return added.created ? created(added.profile, `/api/users/exists?Email=${encodeURIComponent(added.profile.Email)}`) : ok(added.profile);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/users/memberships/accept',
    operationId: 'acceptMembership',
    summary: 'Accept a pending membership with the single-use token from the e-mailed link, setting a new password (ends every earlier session of the account)',
    tag: 'Users',
    auth: 'public',
    body: yup.object({ Token: yup.string().trim().required().max(200), Password: password().required() }),
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 200: json(out.obj({ OrganizationId: out.uuid(), Name: out.str() }), 'The organization joined'), 400: 'Invalid, used or expired token, or missing or weak Password', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      const joined = await acceptMembership(em, body.Token, body.Password);
      deps.credentialVersions.invalidateUser(joined.userId);
      return { ...ok({ OrganizationId: joined.organizationId, Name: joined.name }), headers: { 'Cache-Control': 'no-store' } };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/profile',
    operationId: 'getProfile',
    summary: 'Profile of the user of the token',
    tag: 'Users',
    auth: ['Customer', 'Admin', 'SalesRep'],
    responses: { 200: json(PROFILE, 'The profile'), 401: 'Unauthenticated', 404: 'The token has no user record (client or API key token)' },
    async handler({ em, auth }) {
      return ok(await ownProfile(em, auth));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/exists',
    operationId: 'checkUserExists',
    summary: 'Whether a user with this e-mail exists',
    tag: 'Users',
    auth: 'public',
    query: yup.object({ Email: email().required() }),
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 200: json(out.obj({ UserExists: out.bool() }), 'Whether an account has this e-mail'), 400: 'Missing or invalid Email', 429: 'Rate limit exceeded' },
    async handler({ em, query }) {
      return ok({ UserExists: await userExists(em, query.Email) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/organizations',
    operationId: 'listMyOrganizations',
    summary: 'Organizations the user of the token belongs to',
    tag: 'Users',
    auth: ['Admin'],
    responses: { 200: json(out.obj({ Organizations: out.arr(out.obj({ OrganizationId: out.uuid(), Name: out.str(), Slug: out.str() })) }), 'The organizations of the user'), 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, auth, orgId }) {
      return ok({ Organizations: await ownOrganizations(em, auth, orgId) });
    },
  }),
];
