/**
 * Who may see which customer, decided once: Admin (and Super) every customer of the
 * organization, a SalesRep the customers assigned to its rep number, a Customer its own.
 * Carts, orders, invoices, payment methods and customers themselves are scoped through here.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { Customer } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { UUID_RE } from '../../domain/ids.js';
import { rowsOf } from '../../db/sql.js';

/** Matches no row (a principal without a customer or rep number sees nothing). */
const NOTHING = { id: { $in: [] as string[] } };

/** Filter on Customer rows the principal may see. */
export function customerScope(auth: Principal): FilterQuery<Customer> {
  if (auth.isSuper || auth.role === 'Admin') return {};
  if (auth.role === 'SalesRep') return auth.repNumber ? { repNumber: auth.repNumber } : NOTHING;
  return auth.customerNumber ? { customerNumber: auth.customerNumber } : NOTHING;
}

/**
 * The same rule for one-statement reads with bound parameters: `[kind, match]` to bind, or null when
 * the principal sees nothing. Use with `visibleCustomerSql`.
 */
export function visibilityArgs(auth: Principal): ['all' | 'rep' | 'own', string | null] | null {
  if (auth.isSuper || auth.role === 'Admin') return ['all', null];
  const match = auth.role === 'SalesRep' ? auth.repNumber : auth.customerNumber;
  return match ? [auth.role === 'SalesRep' ? 'rep' : 'own', match] : null;
}

/** SQL condition: `column` (a customer id) is a customer the principal may see; `$org`, `$kind`, `$match` as bound by visibilityArgs. */
export const visibleCustomerSql = (column: string, org: string, kind: string, match: string) =>
  `(${kind}::text = 'all' or ${column} in (select c.id from customer c where c.organization_id = ${org}
     and case ${kind}::text when 'rep' then c.rep_number = ${match} else c.customer_number = ${match} end))`;

/**
 * One row by id under the caller's visibility, in one bound statement: `sql` takes $1 the
 * organization, $2 the id, $3 and $4 the visibility (visibleCustomerSql). 404 naming `what` when the
 * id is malformed, the caller sees no customer, or no visible row matches.
 */
export async function readVisibleRow<T>(em: EntityManager, sql: string, orgId: string, auth: Principal, id: string, what: string): Promise<T> {
  if (!UUID_RE.test(id)) throw AppError.notFound(what);
  const visible = visibilityArgs(auth);
  if (!visible) throw AppError.notFound(what);
  const [row] = await rowsOf<T>(em, sql, [orgId, id, ...visible]);
  if (!row) throw AppError.notFound(what);
  return row;
}

/** Customer numbers the principal may see, or null when it sees every customer of the organization. */
export async function visibleCustomerNumbers(em: EntityManager, orgId: string, auth: Principal): Promise<string[] | null> {
  if (auth.isSuper || auth.role === 'Admin') return null;
  if (auth.role === 'Customer') return auth.customerNumber ? [auth.customerNumber] : [];
  if (!auth.repNumber) return [];
  const rows = await em.find(Customer, { organization: orgId, repNumber: auth.repNumber }, { fields: ['customerNumber'] });
  return rows.map((r) => r.customerNumber);
}

/** Ids of the stored customers the principal may see, or null when it sees every customer of the organization. */
export async function visibleCustomerIds(em: EntityManager, orgId: string, auth: Principal): Promise<string[] | null> {
  if (auth.isSuper || auth.role === 'Admin') return null;
  const scope = customerScope(auth);
  const rows = await em.find(Customer, { $and: [{ organization: orgId }, scope] }, { fields: ['id'] });
  return rows.map((r) => r.id);
}

/**
 * Filter for rows that belong to a customer record (cards, carts, orders, invoices): only rows
 * of the stored customers the principal may see, matched by the customer's id (never by its
 * number, which a deleted customer's successor can reuse). Admin: no restriction.
 */
export async function byVisibleCustomer(em: EntityManager, orgId: string, auth: Principal): Promise<{ customerId?: { $in: string[] } }> {
  const ids = await visibleCustomerIds(em, orgId, auth);
  return ids === null ? {} : { customerId: { $in: ids } };
}

/** The id of the organization's stored customer with this number, or null when there is none. */
export async function liveCustomerId(em: EntityManager, orgId: string, customerNumber: string): Promise<string | null> {
  const c = await em.findOne(Customer, { organization: orgId, customerNumber }, { fields: ['id'] });
  return c?.id ?? null;
}

/**
 * Rewrites list filters on `customerNumber` (as src/http/paging.ts builds them) into filters on
 * the customer record: a row matches when it belongs (by id) to a stored customer whose number
 * matches, so a deleted customer's rows never show under the number of the customer that reuses
 * it. With `unlinked` (orders, invoices), rows written for a number no customer has yet match by
 * their own number too, unless their customer was deleted.
 */
export async function customerNumberFiltersById(em: EntityManager, orgId: string, where: Record<string, unknown>, opts: { unlinked?: boolean } = {}): Promise<Record<string, unknown>> {
  const and = where.$and;
  if (!Array.isArray(and)) return where;
  const ids = async (cond: unknown) =>
    (await em.find(Customer, { organization: orgId, customerNumber: cond } as FilterQuery<Customer>, { fields: ['id'] })).map((c) => c.id);
  const unlinked = (numberCond: Record<string, unknown>) => ({ $and: [{ customerId: null }, { customerDeleted: false }, numberCond] });
  const out: unknown[] = [];
  for (const c of and as Record<string, unknown>[]) {
    const negated = c.$not as Record<string, unknown> | undefined;
    if (c && 'customerNumber' in c) {
      const linked = { customerId: { $in: await ids(c.customerNumber) } };
      out.push(opts.unlinked ? { $or: [linked, unlinked(c)] } : linked);
    } else if (negated && typeof negated === 'object' && 'customerNumber' in negated) {
      const linked = { customerId: { $ne: null, $nin: await ids(negated.customerNumber) } };
      out.push(opts.unlinked ? { $or: [linked, unlinked(c)] } : linked);
    } else out.push(c);
  }
  return { ...where, $and: out };
}

/** Rows (orders, invoices) of the customer with this number: its own by id, or, while no customer has the number, the unlinked rows written for it. */
export async function ofCustomerNumber(em: EntityManager, orgId: string, customerNumber: string) {
  const id = await liveCustomerId(em, orgId, customerNumber);
  return id ? { customerId: id } : { customerId: null, customerDeleted: false, customerNumber };
}

/** Whether the principal may see or act for the customer with this number. */
export async function mayActFor(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<boolean> {
  const numbers = await visibleCustomerNumbers(em, orgId, auth);
  return numbers === null || numbers.includes(customerNumber);
}

/** The customer `customerNumber` of the organization if the principal may see it; else 404. */
export async function findVisibleCustomer(
  em: EntityManager,
  orgId: string,
  auth: Principal,
  customerNumber: string,
  populate: readonly ('addresses' | 'contacts')[] = [],
): Promise<Customer> {
  const c = await em.findOne(Customer, { $and: [{ organization: orgId, customerNumber }, customerScope(auth)] }, { populate });
  if (!c) throw AppError.notFound('Customer');
  return c;
}
