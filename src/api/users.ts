/** User endpoints: create (or reuse) a user in the organization, profile, existence check, memberships. */
import * as yup from 'yup';
import { hashSecret } from '../domain/auth/secrets.js';
import { OrganizationMember, User } from '../entities/index.js';
import { acceptMembership, addMember, sendAcceptLink } from '../services/memberships/index.js';
import { AppError } from '../errors.js';
import { defineRoute, created, ok } from '../http/route.js';
import { queueEmail } from '../integrations/temporal.js';
import { email } from './schemas.js';
import { orgOf, userInput } from './organizations.js';

const profile = (u: User) => ({ UserId: u.id, FirstName: u.firstName, LastName: u.lastName, Email: u.email, PhoneNumber: u.phoneNumber ?? null });

export const userRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/users',
    summary: 'Create a user in the organization; an e-mail that already has an account gets a pending membership its owner must accept',
    tag: 'Users',
    auth: ['Admin'],
    body: userInput,
    idempotent: true,
    responses: {
      201: 'User profile (new user)',
      200: 'User profile as submitted (existing account: pending membership, acceptance link e-mailed)',
      400: 'Missing or malformed fields',
      401: 'Unauthenticated',
      403: 'Not Admin',
      409: 'Created concurrently',
    },
    async handler({ em, body, orgId, deps }) {
      const org = await orgOf(em, orgId);
      const passwordHash = body.Password && !(await em.count(User, { email: body.Email.toLowerCase() })) ? await hashSecret(body.Password) : null;
      const { user, member, userCreated, memberCreated } = await addMember(em, org, {
        email: body.Email,
        firstName: body.FirstName,
        lastName: body.LastName,
        phoneNumber: body.PhoneNumber,
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
      // Another organization's profile is never shown: the answer echoes what was submitted.
      const echo = { UserId: user.id, FirstName: body.FirstName, LastName: body.LastName, Email: user.email, PhoneNumber: body.PhoneNumber ?? null };
      return userCreated ? created(echo) : ok(echo);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/users/memberships/accept',
    summary: 'Accept a pending membership with the single-use token from the e-mailed link',
    tag: 'Users',
    auth: 'public',
    body: yup.object({ Token: yup.string().trim().required().max(200) }),
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 200: '{ OrganizationId, Name }', 400: 'Invalid, used or expired token', 429: 'Rate limit exceeded' },
    async handler({ em, body }) {
      const org = await acceptMembership(em, body.Token);
      return ok({ OrganizationId: org.organizationId, Name: org.name });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/profile',
    summary: 'Profile of the user of the token',
    tag: 'Users',
    auth: ['Customer', 'Admin', 'SalesRep'],
    responses: { 200: 'User profile', 401: 'Unauthenticated', 404: 'The token has no user record (client or API key token)' },
    async handler({ em, auth }) {
      const user = auth.userId ? await em.findOne(User, { id: auth.userId }) : null;
      if (!user) throw AppError.notFound('User record');
      return ok(profile(user));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/exists',
    summary: 'Whether a user with this e-mail exists',
    tag: 'Users',
    auth: 'public',
    query: yup.object({ Email: email().required() }),
    rateLimit: { scope: 'public', key: ({ ip }) => ip },
    responses: { 200: '{ UserExists }', 400: 'Missing or invalid Email', 429: 'Rate limit exceeded' },
    async handler({ em, query }) {
      return ok({ UserExists: (await em.count(User, { email: query.Email.toLowerCase() })) > 0 });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/organizations',
    summary: 'Organizations the user of the token belongs to',
    tag: 'Users',
    auth: ['Admin'],
    responses: { 200: '{ Organizations: [ { OrganizationId, Name, Slug } ] }', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, auth, orgId }) {
      if (!auth.userId) {
        const org = await orgOf(em, orgId);
        return ok({ Organizations: [{ OrganizationId: org.id, Name: org.name, Slug: org.slug }] });
      }
      const members = await em.find(OrganizationMember, { user: auth.userId }, { populate: ['organization'], orderBy: { organization: { name: 'asc' } } });
      return ok({ Organizations: members.map((m) => ({ OrganizationId: m.organization.id, Name: m.organization.name, Slug: m.organization.slug })) });
    },
  }),
];
