/** User endpoints: create (or reuse) a user in the organization, profile, existence check, memberships. */
import * as yup from 'yup';
import { hashSecret } from '../domain/auth/secrets.js';
import { OrganizationMember, User } from '../entities/index.js';
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
    summary: 'Create a user in the organization; an existing e-mail is reused and only the membership is added',
    tag: 'Users',
    auth: ['Admin'],
    body: userInput,
    idempotent: true,
    responses: { 201: 'User profile (new user)', 200: 'User profile (existing user added)', 400: 'Missing or malformed fields', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, body, orgId, deps }) {
      const org = await orgOf(em, orgId);
      const existing = await em.findOne(User, { email: body.Email.toLowerCase() });
      const user =
        existing ??
        em.create(User, {
          email: body.Email.toLowerCase(),
          firstName: body.FirstName,
          lastName: body.LastName,
          phoneNumber: body.PhoneNumber,
          passwordHash: body.Password ? await hashSecret(body.Password) : null,
        });
      const isNewMember = !(existing && (await em.count(OrganizationMember, { organization: org, user })));
      if (isNewMember) em.create(OrganizationMember, { organization: org, user, isAdmin: false });
      await em.flush();
      if (!user.passwordHash) {
        await queueEmail(deps.temporal, deps.config, {
          emailId: `invite-user-${org.id}-${user.id}`,
          organizationId: org.id,
          template: 'invite-user',
          to: user.email,
          data: { firstName: user.firstName, organizationName: org.name, userId: user.id, needsPasswordLink: true },
        });
      }
      return existing ? ok(profile(user)) : created(profile(user));
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
