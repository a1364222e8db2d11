/**
 * Customer endpoints (camelCase): list, read, upsert, partial update, activate, delete.
 * Sales rep tokens see and edit only customers with their repNumber; Customer tokens read
 * only their own customer. Also registers the price-tier hooks (rename follows, delete is
 * refused while customers use the tier) and the login context resolver for associated users.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { findPriceTier } from '../services/catalog/pricing.js';
import { customerScope, findVisibleCustomer } from '../services/customers/visibility.js';

import { type AddressInput, type ContactInput, type CustomerFields, type CustomerInput } from '../domain/customers/rules.js';
import { salesRepCustomerRules, withRepDefault as repDefault } from '../domain/customers/rep-rules.js';
import { updateCustomer, upsertCustomer, type CustomerStore, type UpsertOptions } from '../domain/customers/upsert.js';
import { Customer, CustomerAddress, CustomerContact } from '../entities/index.js';
import { AppError, isUniqueViolation } from '../errors.js';
import type { Principal } from '../http/auth.js';
import { dataEnvelope, parseList, type ListSpec, escapeLike } from '../http/paging.js';
import { created, defineRoute, noContent, ok } from '../http/route.js';
import { customerPatchSchema, customerUpsertSchema } from '../domain/customers/schemas.js';

/** Drops keys whose value is undefined, so "omitted" and "included" stay distinguishable. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const addressView = (a: Partial<CustomerAddress>): AddressInput & Record<string, unknown> => ({
  externalId: a.externalId ?? null,
  line1: a.line1 ?? null,
  line2: a.line2 ?? null,
  city: a.city ?? null,
  state: a.state ?? null,
  postalCode: a.postalCode ?? null,
  country: a.country ?? null,
  addressType: a.addressType as AddressInput['addressType'],
  phone: a.phone ?? null,
  isPrimary: a.isPrimary,
});

const contactView = (c: Partial<CustomerContact>): ContactInput & Record<string, unknown> => ({
  externalId: c.externalId ?? null,
  title: c.title ?? null,
  firstName: c.firstName ?? null,
  lastName: c.lastName ?? null,
  email: c.email ?? null,
  phone: c.phone ?? null,
  fax: c.fax ?? null,
  isPrimary: c.isPrimary,
  contactType: c.contactType ?? null,
});

const byPosition = <T extends { position: number }>(items: Iterable<T>) => [...items].sort((a, b) => a.position - b.position);

function fieldsOf(c: Customer): CustomerFields {
  return {
    customerNumber: c.customerNumber,
    externalId: c.externalId ?? null,
    companyName: c.companyName,
    companyEmail: c.companyEmail,
    companyPhone: c.companyPhone ?? null,
    companyFax: c.companyFax ?? null,
    pricing: c.pricing,
    active: c.active,
    repNumber: c.repNumber ?? null,
    terms: c.terms ?? null,
    addresses: byPosition(c.addresses.getItems()).map(addressView),
    contacts: byPosition(c.contacts.getItems()).map(contactView),
    customerAttributes: c.customerAttributes ?? {},
  };
}

/** The customer resource exactly as SPEC names its fields. */
export function customerView(c: Customer) {
  const f = fieldsOf(c);
  return {
    customerNumber: f.customerNumber,
    organizationId: c.organization.id,
    companyName: f.companyName,
    companyEmail: f.companyEmail,
    companyPhone: f.companyPhone,
    companyFax: f.companyFax,
    pricing: f.pricing,
    active: f.active,
    repNumber: f.repNumber,
    terms: f.terms,
    externalId: f.externalId,
    addresses: f.addresses,
    contacts: f.contacts,
    customerAttributes: f.customerAttributes,
  };
}

const normalizeAddress = (a: AddressInput) => ({ ...addressView({}), ...defined(a), isPrimary: a.isPrimary ?? false });
const normalizeContact = (c: ContactInput) => ({ ...contactView({}), ...defined(c), isPrimary: c.isPrimary ?? false });

/** The ORM side of the customer upsert logic, for one organization. */
export function customerStore(em: EntityManager, orgId: string): CustomerStore<Customer> {
  const populate = ['addresses', 'contacts'] as const;
  const setChildren = (c: Customer, f: CustomerFields, current: CustomerFields | null) => {
    const addresses = f.addresses.map(normalizeAddress);
    if (!current || JSON.stringify(current.addresses) !== JSON.stringify(addresses))
      c.addresses.set(addresses.map((a, position) => em.create(CustomerAddress, { ...a, customer: c, position })));
    const contacts = f.contacts.map(normalizeContact);
    if (!current || JSON.stringify(current.contacts) !== JSON.stringify(contacts))
      c.contacts.set(contacts.map((x, position) => em.create(CustomerContact, { ...x, customer: c, position })));
  };
  const scalars = (f: CustomerFields) => ({
    customerNumber: f.customerNumber,
    externalId: f.externalId,
    companyName: f.companyName,
    companyEmail: f.companyEmail,
    companyPhone: f.companyPhone,
    companyFax: f.companyFax,
    pricing: f.pricing,
    active: f.active,
    repNumber: f.repNumber,
    terms: f.terms,
    customerAttributes: f.customerAttributes,
  });
  const flush = async () => {
    try {
      await em.flush();
    } catch (e) {
      if (isUniqueViolation(e, 'customer_org_number_unique')) throw AppError.conflict('A customer with this customerNumber already exists.');
      if (isUniqueViolation(e, 'customer_org_external_id_unique')) throw AppError.conflict('Another customer already has this externalId.');
      throw e;
    }
  };
  return {
    findByExternalId: (externalId) => em.findOne(Customer, { organization: orgId, externalId }, { populate }),
    findByNumber: (customerNumber) => em.findOne(Customer, { organization: orgId, customerNumber }, { populate }),
    async tierName(name) {
      const tier = await findPriceTier(em, orgId, name);
      return tier?.name ?? null;
    },
    fields: fieldsOf,
    async create(f) {
      const c = em.create(Customer, { organization: orgId, ...scalars(f) });
      setChildren(c, f, null);
      await flush();
      return c;
    },
    async update(c, f) {
      const current = fieldsOf(c);
      em.assign(c, scalars(f));
      setChildren(c, f, current);
      await flush();
      return c;
    },
  };
}

const findVisible = (em: EntityManager, orgId: string, auth: Principal, customerNumber: string) => findVisibleCustomer(em, orgId, auth, customerNumber, ['addresses', 'contacts']);

/** Sales reps write only customers of their own rep number (new ones default to it), never their tier or terms. */
function writeOptions(auth: Principal): UpsertOptions<Customer> {
  if (auth.isSuper || auth.role !== 'SalesRep') return {};
  return salesRepCustomerRules<Customer>(auth.repNumber);
}

function withRepDefault(auth: Principal, input: CustomerInput): CustomerInput {
  return auth.role === 'SalesRep' && !auth.isSuper ? repDefault(auth.repNumber, input) : input;
}

export const customerListSpec: ListSpec = {
  filters: {
    customerNumber: { prop: 'customerNumber', type: 'string' },
    companyName: { prop: 'companyName', type: 'string' },
    companyEmail: { prop: 'companyEmail', type: 'string' },
    repNumber: { prop: 'repNumber', type: 'string' },
    active: { prop: 'active', type: 'boolean' },
    pricing: { prop: 'pricing', type: 'string' },
    terms: { prop: 'terms', type: 'string' },
    createdAt: { prop: 'createdAt', type: 'date' },
  },
  sorts: { Name: 'companyName', CustomerNumber: 'customerNumber', CompanyEmail: 'companyEmail', Status: 'active' },
  defaultSort: 'Name',
  comparisons: true,
};

const CUSTOMER = 'Customer: customerNumber, organizationId, companyName, companyEmail, companyPhone, companyFax, pricing, active, repNumber, terms, externalId, addresses, contacts, customerAttributes';

export const customerRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/customers',
    summary: 'List customers (paged; sortOn Name, CustomerNumber, CompanyEmail, Status; filters incl. gt/gte/lt/lte; search and active)',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: 'data, totalRecords, currentPage, totalPages', 400: 'Bad paging, sorting, filter, search or active', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query }) {
      const raw = query;
      const q = parseList(raw, customerListSpec);
      const and: FilterQuery<Customer>[] = [{ organization: orgId }, customerScope(auth), q.where as FilterQuery<Customer>];
      const param = (n: string) => raw[Object.keys(raw).find((k) => k.toLowerCase() === n.toLowerCase()) ?? ''];
      const active = param('active');
      if (active !== undefined && active !== '') {
        if (active !== 'true' && active !== 'false') throw AppError.field('active', 'active must be true or false.');
        and.push({ active: active === 'true' });
      }
      const search = param('search');
      if (search !== undefined && search !== '') {
        if (typeof search !== 'string') throw AppError.field('search', 'search must be a string.');
        const like = `%${escapeLike(search.trim())}%`;
        and.push({ $or: [{ customerNumber: { $ilike: like } }, { companyName: { $ilike: like } }, { companyEmail: { $ilike: like } }] });
      }
      const [rows, total] = await em.findAndCount(
        Customer,
        { $and: and },
        { populate: ['addresses', 'contacts'], orderBy: [q.orderBy, { customerNumber: 'asc' }], limit: q.pageSize, offset: q.offset },
      );
      return ok(dataEnvelope(rows.map(customerView), total, q));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/customers/:customerNumber',
    summary: 'Read a customer',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep', 'Customer'],
    responses: { 200: CUSTOMER, 401: 'Unauthenticated', 404: 'No such customer in the organization (or not visible to the caller)' },
    async handler({ em, orgId, auth, params }) {
      return ok(customerView(await findVisible(em, orgId, auth, params.customerNumber)));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/customers',
    summary: 'Create or update a customer by externalId or customerNumber (never a duplicate); omitted optional fields keep their values on update',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep'],
    body: customerUpsertSchema,
    responses: {
      200: `${CUSTOMER} (updated)`,
      201: `${CUSTOMER} (created)`,
      400: 'Missing or malformed fields, unknown pricing tier, several primaries',
      401: 'Unauthenticated',
      403: 'Not Admin or SalesRep, another rep number, or a SalesRep changing pricing or terms (errors name the field)',
      409: 'The customerNumber belongs to a customer with another externalId',
    },
    async handler({ em, orgId, auth, body }) {
      const input = withRepDefault(auth, defined(body) as CustomerInput);
      const res = await upsertCustomer(customerStore(em, orgId), input, writeOptions(auth));
      return res.created ? created(customerView(res.customer)) : ok(customerView(res.customer));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/customers/:customerNumber',
    summary: 'Update a customer: included fields overwrite, omitted fields keep their values (addresses/contacts replace as a whole)',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep'],
    body: customerPatchSchema,
    responses: {
      200: CUSTOMER,
      400: 'Malformed fields, unknown pricing tier, several primaries',
      401: 'Unauthenticated',
      403: 'Not Admin or SalesRep, another rep number, or a SalesRep changing pricing or terms (errors name the field)',
      404: 'No such customer',
      409: 'The new customerNumber or externalId is taken',
    },
    async handler({ em, orgId, auth, body, params }) {
      const existing = await findVisible(em, orgId, auth, params.customerNumber);
      const customer = await updateCustomer(customerStore(em, orgId), existing, defined(body) as CustomerInput, writeOptions(auth));
      return ok(customerView(customer));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/customers/:customerNumber/activate',
    summary: 'Activate a customer (deactivate with active: false on update)',
    tag: 'Customers',
    auth: ['Admin', 'SalesRep'],
    responses: { 204: 'Activated', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such customer' },
    async handler({ em, orgId, auth, params }) {
      const c = await findVisible(em, orgId, auth, params.customerNumber);
      c.active = true;
      await em.flush();
      return noContent();
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/customers/:customerNumber',
    summary: 'Permanently delete a customer with its addresses, contacts and user associations (order history remains)',
    tag: 'Customers',
    auth: ['Admin'],
    responses: { 204: 'Deleted', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such customer' },
    async handler({ em, orgId, auth, params }) {
      const c = await findVisible(em, orgId, auth, params.customerNumber);
      await em.nativeDelete(Customer, { id: c.id });
      em.clear();
      return noContent();
    },
  }),
];
