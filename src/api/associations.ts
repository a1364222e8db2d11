/**
 * User-customer associations (PascalCase): an Admin links a member user to one customer per
 * organization; the user's logins and token enrichment then carry that customer's
 * CustomerNumber, PriceTier and CurrencyCode (resolver registered in customers.ts).
 */
import * as yup from 'yup';
import { Customer, OrganizationMember, UserCustomer } from '../entities/index.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../errors.js';
import { genericEnvelope, parseList, type ListSpec } from '../http/paging.js';
import { defineRoute, ok } from '../http/route.js';
import { uuid } from './schemas.js';
import { associationSchema } from '../domain/customers/schemas.js';

const associationView = (a: UserCustomer) => ({ UserId: a.user.id, CustomerNumber: a.customer.customerNumber, OrganizationId: a.organization.id });

export const associationListSpec: ListSpec = {
  filters: {
    UserId: { prop: 'user', type: 'uuid' },
    CustomerNumber: { prop: 'customer.customerNumber', type: 'string' },
  },
  sorts: { UserId: 'user', CustomerNumber: 'customer.customerNumber' },
  defaultSort: 'UserId',
  comparisons: true,
  names: { page: 'page', size: 'size', sortOn: 'sort', sortDirection: 'direction' },
};

export const associationRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/organizations/users/associate-customer',
    summary: 'Associate a member user with a customer (replaces the user\'s previous customer in this organization)',
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
      const [member, customer] = await Promise.all([
        em.findOne(OrganizationMember, { organization: orgId, user: body.UserId }),
        em.findOne(Customer, { organization: orgId, customerNumber: body.CustomerNumber }),
      ]);
      const errors: FieldErrors = {};
      if (!member) errors.UserId = ['The user is not a member of this organization.'];
      if (!customer) errors.CustomerNumber = ['No customer with this number in the organization.'];
      if (Object.keys(errors).length) throw AppError.validation(errors);
      const save = async () => {
        const link = await em.findOne(UserCustomer, { organization: orgId, user: body.UserId });
        if (link) link.customer = customer!;
        else em.create(UserCustomer, { organization: orgId, user: body.UserId, customer: customer! });
        await em.flush();
      };
      try {
        await save();
      } catch (e) {
        if (!isUniqueViolation(e, 'user_customer_org_user_unique')) throw e;
        em.clear();
        await save(); // a concurrent request created the link first: update it instead
      }
      return ok({ Association: { UserId: body.UserId, CustomerNumber: customer!.customerNumber, OrganizationId: orgId } });
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
      const q = parseList(query, associationListSpec);
      const [rows, total] = await em.findAndCount(
        UserCustomer,
        { $and: [{ organization: orgId }, q.where] },
        { populate: ['customer'], orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
      );
      return ok(genericEnvelope(rows.map(associationView), total, q));
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
      const link = await em.findOne(UserCustomer, { organization: orgId, user: query.UserId }, { populate: ['customer'] });
      if (!link) throw AppError.notFound('Customer association');
      return ok(associationView(link));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/users/customer-associations',
    summary: "A user's customer associations across organizations (empty when the user is not a member of this organization)",
    tag: 'Users',
    auth: ['Admin'],
    query: yup.object({ UserId: uuid().required() }),
    responses: { 200: 'Array of UserCustomer', 400: 'UserId missing or malformed', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query, auth }) {
      if (!auth.isSuper && !(await em.count(OrganizationMember, { organization: orgId, user: query.UserId }))) return ok([]);
      const links = await em.find(UserCustomer, { user: query.UserId }, { populate: ['customer'], orderBy: { organization: 'asc' } });
      return ok(links.map(associationView));
    },
  }),
];
