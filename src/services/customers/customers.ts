/**
 * Customer use cases (GET/PUT/POST/DELETE /api/customers...): list, read, upsert by externalId
 * or customerNumber, partial update, activate, delete. Who sees which customer is decided in
 * ./visibility.ts; the upsert rules live in src/domain/customers/upsert.ts over ./store.ts.
 * Sales reps write only customers of their own rep number (and new ones default to it).
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { salesRepCustomerRules, withRepDefault as repDefault } from '../../domain/customers/rep-rules.js';
import type { CustomerInput } from '../../domain/customers/rules.js';
import { updateCustomer, upsertCustomer, type UpsertOptions } from '../../domain/customers/upsert.js';
import { Customer } from '../../entities/index.js';
import { removeCustomer } from './links.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { dataEnvelope, escapeLike, parseList, type ListSpec } from '../../http/paging.js';
import { customerStore, defined, fieldsOf } from './store.js';
import { customerScope, findVisibleCustomer } from './visibility.js';

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

/** GET /api/customers: paging, sorting, filters, `active` and `search` (number, name, e-mail), only customers the caller may see. */
export async function listCustomers(em: EntityManager, orgId: string, auth: Principal, raw: Record<string, unknown>) {
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
  return dataEnvelope(rows.map(customerView), total, q);
}

/** GET /api/customers/:customerNumber (404 when not visible). */
export function getCustomer(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<Customer> {
  return findVisible(em, orgId, auth, customerNumber);
}

/** PUT /api/customers: creates or updates by externalId or customerNumber (never a duplicate). */
export function putCustomer(em: EntityManager, orgId: string, auth: Principal, body: CustomerInput): Promise<{ customer: Customer; created: boolean }> {
  const input = withRepDefault(auth, defined(body));
  return upsertCustomer(customerStore(em, orgId), input, writeOptions(auth));
}

/** PUT /api/customers/:customerNumber: included fields overwrite, omitted ones keep their values. */
export async function updateCustomerByNumber(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, body: CustomerInput): Promise<Customer> {
  const existing = await findVisible(em, orgId, auth, customerNumber);
  return updateCustomer(customerStore(em, orgId), existing, defined(body), writeOptions(auth));
}

/** POST /api/customers/:customerNumber/activate. */
export async function activateCustomer(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<void> {
  const c = await findVisible(em, orgId, auth, customerNumber);
  c.active = true;
  await em.flush();
}

/**
 * DELETE /api/customers/:customerNumber: removes the customer with its addresses, contacts and
 * user associations (./links.ts): its saved cards are deactivated and its open carts closed; its
 * orders and invoices stay as history, unlinked, so a customer that later takes the same number
 * starts with no cards, carts, orders or invoices (DESIGN "Security decisions").
 */
export async function deleteCustomer(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<void> {
  const c = await findVisible(em, orgId, auth, customerNumber);
  await removeCustomer(em, orgId, c.id);
  em.clear();
}
