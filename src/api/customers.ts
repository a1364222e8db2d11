/**
 * Customer endpoints (camelCase): list, read, upsert, partial update, activate, delete. The use
 * cases live in src/services/customers/customers.ts: sales rep tokens see and edit only customers
 * with their repNumber; Customer tokens read only their own customer.
 */
import { customerPatchSchema, customerUpsertSchema } from '../domain/customers/schemas.js';
import { created, defineRoute, json, noContent, ok } from '../http/route.js';
import {
  activateCustomer,
  customerListSpec,
  customerView,
  deleteCustomer,
  listCustomers,
  readCustomerView,
  putCustomer,
  updateCustomerByNumber,
} from '../services/customers/customers.js';
import { customer, customerPage } from '../domain/resources.js';

const CUSTOMER = 'Customer: customerNumber, organizationId, companyName, companyEmail, companyPhone, companyFax, pricing, active, repNumber, terms, externalId, addresses, contacts, customerAttributes';

export const customerRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/customers',
    operationId: 'listCustomers',
    summary: 'List customers (paged; sortOn Name, CustomerNumber, CompanyEmail, Status; filters incl. gt/gte/lt/lte; search and active)',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep', 'Customer'],
    paged: customerListSpec,
    queryParams: {
      search: { description: 'Matches customer number, company name or e-mail (contains, case-insensitive)', schema: { type: 'string', maxLength: 200 } },
      active: { description: 'Only active (true) or inactive (false) customers', schema: { type: 'string', enum: ['true', 'false'] } },
      after: { description: 'Keyset paging: the last customerNumber of the previous page (sortOn CustomerNumber only); faster than pageNumber for deep pages', schema: { type: 'string', maxLength: 100 } },
    },
    responses: { 200: json(customerPage, 'A page of customers'), 400: 'Bad paging, sorting, filter, search or active', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listCustomers(em, orgId, auth, query));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/customers/:customerNumber',
    operationId: 'getCustomer',
    summary: 'Read a customer',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: json(customer, CUSTOMER), 401: 'Unauthenticated', 404: 'No such customer in the organization (or not visible to the caller)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readCustomerView(em, orgId, auth, params.customerNumber));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/customers',
    operationId: 'upsertCustomer',
    summary: 'Create or update a customer by externalId or customerNumber (never a duplicate); omitted optional fields keep their values on update',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep'],
    body: customerUpsertSchema,
    responses: {
      200: json(customer, 'The updated customer'),
      201: json(customer, 'The created customer'),
      400: 'Missing or malformed fields, unknown pricing tier, several primaries',
      401: 'Unauthenticated',
      403: 'Not Admin or SalesRep, another rep number, or a SalesRep changing pricing or terms (errors name the field)',
      409: 'The customerNumber belongs to a customer with another externalId',
    },
    async handler({ em, orgId, auth, body }) {
      const res = await putCustomer(em, orgId, auth, body);
      const view = customerView(res.customer);
      return res.created ? created(view, `/api/customers/${encodeURIComponent(view.customerNumber)}`) : ok(view);
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/customers/:customerNumber',
    operationId: 'updateCustomer',
    summary: 'Update a customer: included fields overwrite, omitted fields keep their values (addresses/contacts replace as a whole)',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep'],
    body: customerPatchSchema,
    responses: {
      200: json(customer, 'The updated customer'),
      400: 'Malformed fields, unknown pricing tier, several primaries',
      401: 'Unauthenticated',
      403: 'Not Admin or SalesRep, another rep number, or a SalesRep changing pricing or terms (errors name the field)',
      404: 'No such customer',
      409: 'The new customerNumber or externalId is taken',
    },
    async handler({ em, orgId, auth, body, params }) {
      return ok(customerView(await updateCustomerByNumber(em, orgId, auth, params.customerNumber, body)));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/customers/:customerNumber/activate',
    operationId: 'activateCustomer',
    summary: 'Activate a customer (deactivate with active: false on update)',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep'],
    responses: { 204: 'Activated', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such customer' },
    async handler({ em, orgId, auth, params }) {
      await activateCustomer(em, orgId, auth, params.customerNumber);
      return noContent();
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/customers/:customerNumber',
    operationId: 'deleteCustomer',
    summary: 'Permanently delete a customer with its addresses, contacts and user associations; its saved cards are deactivated and open carts closed (order and invoice history remains, unlinked: a customer re-created with the number starts empty)',
    tag: 'Customers',
    auth: ['Admin'],
    responses: { 204: 'Deleted', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such customer' },
    async handler({ em, orgId, auth, params }) {
      await deleteCustomer(em, orgId, auth, params.customerNumber);
      return noContent();
    },
  }),
];
