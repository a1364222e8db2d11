/**
 * User-customer associations (PascalCase): an Admin links a member user to one customer per
 * organization; the user's logins and token enrichment then carry that customer's
 * CustomerNumber, PriceTier and CurrencyCode.
 */
import * as yup from 'yup';
import { associationSchema } from '../domain/customers/schemas.js';
import { defineRoute, json, ok } from '../http/route.js';
import * as out from '../domain/contract.js';
import { genericPage } from '../domain/resources.js';

const ASSOCIATION = out.component('UserCustomer', out.obj({ UserId: out.uuid(), CustomerNumber: out.str(), OrganizationId: out.uuid() }));
import { associateCustomer, associationListSpec, findAssociation, listAssociations, userAssociations } from '../services/users/associations.js';
import { uuid } from './schemas.js';

export const associationRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/organizations/users/associate-customer',
    operationId: 'associateUserWithCustomer',
    summary: "Associate a member user with a customer (replaces the user's previous customer in this organization)",
    tag: 'Organizations',
    auth: ['Admin'],
    body: associationSchema,
    responses: {
      200: json(out.obj({ Association: ASSOCIATION }), 'The association'),
      400: 'Missing or malformed fields, user not a member of the organization, or no such customer',
      401: 'Unauthenticated',
      403: 'Not Admin',
    },
    async handler({ em, deps, orgId, body }) {
      return ok({ Association: await associateCustomer({ em, temporal: deps.temporal }, orgId, body) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/organizations/users/associations',
    operationId: 'listUserCustomerAssociations',
    summary: 'List user-customer associations (page, size, sort UserId|CustomerNumber, direction, filters incl. gt/gte/lt/lte)',
    tag: 'Organizations',
    auth: ['Admin'],
    paged: associationListSpec,
    responses: { 200: json(genericPage('UserCustomerPage', ASSOCIATION), 'A page of associations'), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      return ok(await listAssociations(em, orgId, query));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/customer-association',
    operationId: 'getUserCustomerAssociation',
    summary: 'The customer a user is associated with in this organization',
    tag: 'Users',
    auth: ['Admin'],
    query: yup.object({ UserId: uuid().required() }),
    responses: { 200: json(ASSOCIATION, 'The association'), 400: 'UserId missing or malformed', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No association in this organization' },
    async handler({ em, orgId, query }) {
      return ok(await findAssociation(em, orgId, query.UserId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/customer-associations',
    operationId: 'listCustomerAssociationsOfUser',
    summary:
      "A user's customer associations across the organizations the user accepted (empty when the user is not a member of this organization; only this organization's while the membership here is pending)",
    tag: 'Users',
    auth: ['Admin'],
    query: yup.object({ UserId: uuid().required() }),
    responses: { 200: json(out.arr(ASSOCIATION), 'The associations of the user'), 400: 'UserId missing or malformed', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query, auth }) {
      return ok(await userAssociations(em, orgId, auth, query.UserId));
    },
  }),
];
