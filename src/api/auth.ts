/** Authentication endpoints: client-credential login, user login, token enrichment, passwords (set, change, reset). */
import * as yup from 'yup';
import { defineRoute, accepted, json, ok } from '../http/route.js';
import { clientLogin, commerceAccess, userLogin } from '../services/auth/login.js';
import { changePassword, requestPasswordReset, setPasswordWithToken } from '../services/auth/passwords.js';
import { email, password, uuid } from './schemas.js';
import * as out from '../domain/contract.js';

const AUTH_RESULT = json(
  out.component('AuthResult', out.obj({ AccessToken: out.doc(out.str(), 'Send as Authorization: Bearer'), TokenType: out.oneOf(['api-key'] as const), ExpiresIn: out.doc(out.int(), 'Seconds') })),
  'Authentication result',
  { example: { AccessToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ…', TokenType: 'api-key', ExpiresIn: 86400 } },
);
const NO_STORE = { 'Cache-Control': 'no-store' };
const tokenAndPassword = yup.object({ Token: yup.string().trim().required().max(200), Password: password().required() });

export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/auth/login',
    operationId: 'loginWithClientCredentials',
    summary: 'Log in with ClientId and ClientSecret',
    tag: 'Authentication',
    auth: 'public',
    body: yup.object({ OrgCode: yup.string().trim().required().max(100), ClientId: yup.string().trim().required().max(100), ClientSecret: yup.string().required().max(500) }),
    rateLimit: { scope: 'login', key: ({ body }) => body.ClientId },
    responses: { 200: AUTH_RESULT, 400: 'Missing fields', 401: 'Invalid ClientId/ClientSecret or OrgCode mismatch', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      return ok(await clientLogin(em, deps.config, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/token',
    operationId: 'loginWithPassword',
    summary: 'Log in as a user with Email and Password',
    tag: 'Authentication',
    auth: 'public',
    body: yup.object({ Email: email().required(), Password: yup.string().required().max(1000), OrgCode: yup.string().trim().max(100) }),
    rateLimit: { scope: 'login', key: ({ body }) => body.Email.toLowerCase() },
    responses: { 200: AUTH_RESULT, 400: 'Missing fields, or OrgCode needed to choose among organizations', 401: 'Invalid e-mail or password, or inactive sales rep', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      return ok(await userLogin(em, deps.config, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/access',
    operationId: 'switchOrganization',
    summary: 'Commerce context (customer number, price tier, currency) of a user in an organization; a sales rep asks only about users of its customers',
    tag: 'Authentication',
    auth: ['Admin', 'Customer', 'SalesRep'],
    body: yup.object({ OrganizationId: yup.string().trim().required().max(100), UserId: uuid().required() }),
    responses: {
      200: json(out.obj({ CustomerNumber: out.strN(), PriceTier: out.strN(), CurrencyCode: out.strN() }), 'The user\'s customer context'),
      400: 'OrganizationId or UserId missing or malformed',
      401: 'Token missing, expired or invalid',
      403: 'Another organization, or a customer asking about another user',
      404: 'User not in this organization, or (sales rep) not a user of a customer assigned to the rep',
    },
    async handler({ em, body, auth }) {
      return ok(await commerceAccess(em, auth, body));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/set-password',
    operationId: 'setPassword',
    summary: 'Set a password with the one-time link token from an invitation e-mail (ends every earlier session)',
    tag: 'Authentication',
    auth: 'public',
    body: tokenAndPassword,
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 204: 'Password set', 400: 'Invalid, used or expired token, or weak password', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      deps.credentialVersions.invalidateUser(await setPasswordWithToken(em, body.Token, body.Password));
      return { status: 204, headers: NO_STORE };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/password-reset',
    operationId: 'requestPasswordReset',
    summary: 'Request a password reset: an account with this e-mail gets a single-use link (the answer is the same whether or not it exists)',
    tag: 'Authentication',
    auth: 'public',
    body: yup.object({ Email: email().required() }),
    rateLimit: { scope: 'login', key: ({ body }) => body.Email.toLowerCase() },
    responses: { 202: json(out.obj({ Accepted: out.bool() }), 'Always, whether or not the e-mail has an account', { noLocation: true }), 400: 'Email missing or malformed', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      await requestPasswordReset(em, deps, body.Email);
      return { ...accepted({ Accepted: true }), headers: NO_STORE };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/password-reset/confirm',
    operationId: 'confirmPasswordReset',
    summary: 'Set a new password with the single-use token from a password-reset e-mail (ends every earlier session)',
    tag: 'Authentication',
    auth: 'public',
    body: tokenAndPassword,
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 204: 'Password set; every earlier token of the user is refused', 400: 'Invalid, used or expired token, or weak password', 429: 'Rate limit exceeded' },
    async handler({ em, body, deps }) {
      deps.credentialVersions.invalidateUser(await setPasswordWithToken(em, body.Token, body.Password));
      return { status: 204, headers: NO_STORE };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/auth/change-password',
    operationId: 'changePassword',
    summary: "Change the signed-in user's password (current password required); every other session ends and a fresh token is returned",
    tag: 'Authentication',
    auth: ['Admin', 'Customer', 'SalesRep'],
    answersSecret: true,
    body: yup.object({ CurrentPassword: yup.string().required().max(1000), NewPassword: password().required() }),
    rateLimit: { scope: 'login', key: ({ ip }) => ip },
    responses: {
      200: { ...AUTH_RESULT, description: 'A new token; every earlier one is refused' },
      400: 'Missing fields, wrong CurrentPassword, or weak NewPassword',
      401: 'Unauthenticated',
      404: 'The token has no user record (client or API key token)',
      429: 'Rate limit exceeded',
    },
    async handler({ em, body, auth, deps }) {
      const { userId, token } = await changePassword(em, deps.config, auth, body);
      deps.credentialVersions.invalidateUser(userId);
      return { ...ok(token), headers: NO_STORE };
    },
  }),
];
