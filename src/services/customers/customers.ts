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
import { dataEnvelope, escapeLike, parseAfter, parseList, type ListSpec } from '../../http/paging.js';
import { rowsOf } from '../../db/sql.js';
import { customerStore, defined, fieldsOf } from './store.js';
import { customerScope, findVisibleCustomer } from './visibility.js';
import type { Out } from '../../domain/contract.js';
import type { customer } from '../../domain/resources.js';

/** The customer resource exactly as SPEC names its fields. */
export function customerView(c: Customer): Out<typeof customer> {
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
  // Keyset paging: `after` = the last customer number of the previous page (sortOn=CustomerNumber), so
  // a deep page costs what page 1 costs; the total still counts every matching customer.
  const after = parseAfter(raw, q, { prop: 'customerNumber', what: 'a customer number', by: 'customer number', sortHint: 'sortOn=CustomerNumber' });
  const pageAnd = after ? [...and, { customerNumber: after.desc ? { $lt: after.value } : { $gt: after.value } }] : and;
  const [rows, total] = await Promise.all([
    em.find(Customer, { $and: pageAnd }, { populate: ['addresses', 'contacts'], orderBy: [q.orderBy, { customerNumber: 'asc' }], limit: q.pageSize, offset: after ? 0 : q.offset }),
    em.count(Customer, { $and: and }),
  ]);
  return dataEnvelope(rows.map(customerView), total, q);
}

/**
 * The customer with its addresses and contacts in one statement (bound parameters, no hydration):
 * $3 is the visibility kind (all, rep, own), $4 the rep or customer number it matches.
 */
const CUSTOMER_VIEW_SQL = `select c.customer_number as "customerNumber", c.organization_id as "organizationId", c.company_name as "companyName",
    c.company_email as "companyEmail", c.company_phone as "companyPhone", c.company_fax as "companyFax", c.pricing, c.active,
    c.rep_number as "repNumber", c.terms, c.external_id as "externalId",
    coalesce((select json_agg(json_build_object('externalId', a.external_id, 'line1', a.line1, 'line2', a.line2, 'city', a.city, 'state', a.state,
                                                'postalCode', a.postal_code, 'country', a.country, 'addressType', a.address_type, 'phone', a.phone,
                                                'isPrimary', a.is_primary) order by a.position)
                from customer_address a where a.customer_id = c.id), '[]') as addresses,
    coalesce((select json_agg(json_build_object('externalId', k.external_id, 'title', k.title, 'firstName', k.first_name, 'lastName', k.last_name,
                                                'email', k.email, 'phone', k.phone, 'fax', k.fax, 'isPrimary', k.is_primary, 'contactType', k.contact_type)
                      order by k.position)
                from customer_contact k where k.customer_id = c.id), '[]') as contacts,
    coalesce(c.customer_attributes, '{}'::jsonb) as "customerAttributes"
  from customer c
 where c.organization_id = $1 and c.customer_number = $2
   and case $3::text when 'all' then true when 'rep' then c.rep_number = $4 else c.customer_number = $4 end`;

/** GET /api/customers/:customerNumber as SPEC's view, in one statement (404 when not visible; same rules as customerScope). */
export async function readCustomerView(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<ReturnType<typeof customerView>> {
  const all = auth.isSuper || auth.role === 'Admin';
  const kind = all ? 'all' : auth.role === 'SalesRep' ? 'rep' : 'own';
  const match = all ? null : kind === 'rep' ? auth.repNumber : auth.customerNumber;
  if (!all && !match) throw AppError.notFound('Customer');
  const rows = await rowsOf<ReturnType<typeof customerView>>(em, CUSTOMER_VIEW_SQL, [orgId, customerNumber, kind, match]);
  if (!rows[0]) throw AppError.notFound('Customer');
  return rows[0];
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
