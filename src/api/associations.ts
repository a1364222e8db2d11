/**
 * User-customer associations (PascalCase): an Admin links a member user to one customer per
 * organization; the user's logins and token enrichment then carry that customer's
 * CustomerNumber, PriceTier and CurrencyCode.
 */
import * as yup from 'yup';
import { associationSchema } from '../domain/customers/schemas.js';
import { defineRoute, ok } from '../http/route.js';
import { associateCustomer, findAssociation, listAssociations, userAssociations } from '../services/users/associations.js';
import { uuid } from './schemas.js';

export const associationRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/organizations/users/associate-customer',
    summary: "Associate a member user with a customer (replaces the user's previous customer in this organization)",
    tag: 'Organizations',
    auth: ['Admin'],
    body: associationSchema,
    responses: {
      200: '{ Association: { UserId, CustomerNumber, OrganizationId } }',
      400: 'Missing or malformed fields, user not a member of the organization, or no such customer',
      401: 'Unauthenticated',
      403: 'Not Admin',
    },
    async handler({ em, orgId, body }) {
      return ok({ Association: await associateCustomer(em, orgId, body) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/users/associations',
    summary: 'List user-customer associations (page, size, sort UserId|CustomerNumber, direction, filters incl. gt/gte/lt/lte)',
    tag: 'Organizations',
    auth: ['Admin'],
    responses: { 200: 'Data, TotalCount, PageNumber, PageSize', 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      return ok(await listAssociations(em, orgId, query));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/customer-association',
    summary: 'The customer a user is associated with in this organization',
    tag: 'Users',
    auth: ['Admin'],
    query: yup.object({ UserId: uuid().required() }),
    responses: { 200: 'UserCustomer: UserId, CustomerNumber, OrganizationId', 400: 'UserId missing or malformed', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No association in this organization' },
    async handler({ em, orgId, query }) {
      return ok(await findAssociation(em, orgId, query.UserId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/customer-associations',
    summary:
      "A user's customer associations across the organizations the user accepted (empty when the user is not a member of this organization; only this organization's while the membership here is pending)",
    tag: 'Users',
    auth: ['Admin'],
    query: yup.object({ UserId: uuid().required() }),
    responses: { 200: 'Array of UserCustomer', 400: 'UserId missing or malformed', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query, auth }) {
      return ok(await userAssociations(em, orgId, auth, query.UserId));
    },
  }),
];
