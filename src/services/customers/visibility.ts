/**
 * Who may see which customer, decided once: Admin (and Super) every customer of the
 * organization, a SalesRep the customers assigned to its rep number, a Customer its own.
 * Carts, orders, invoices, payment methods and customers themselves are scoped through here.
 */
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { Customer } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';

/** Matches no row (a principal without a customer or rep number sees nothing). */
const NOTHING = { id: { $in: [] as string[] } };

/** Filter on Customer rows the principal may see. */
export function customerScope(auth: Principal): FilterQuery<Customer> {
  if (auth.isSuper || auth.role === 'Admin') return {};
  if (auth.role === 'SalesRep') return auth.repNumber ? { repNumber: auth.repNumber } : NOTHING;
  return auth.customerNumber ? { customerNumber: auth.customerNumber } : NOTHING;
}

/** Customer numbers the principal may see, or null when it sees every customer of the organization. */
export async function visibleCustomerNumbers(em: EntityManager, orgId: string, auth: Principal): Promise<string[] | null> {
  if (auth.isSuper || auth.role === 'Admin') return null;
  if (auth.role === 'Customer') return auth.customerNumber ? [auth.customerNumber] : [];
  if (!auth.repNumber) return [];
  const rows = await em.find(Customer, { organization: orgId, repNumber: auth.repNumber }, { fields: ['customerNumber'] });
  return rows.map((r) => r.customerNumber);
}

/** Filter for rows that carry a `customerNumber` column (carts, orders, invoices): only the principal's customers. */
export async function byVisibleCustomer(em: EntityManager, orgId: string, auth: Principal): Promise<{ customerNumber?: { $in: string[] } }> {
  const numbers = await visibleCustomerNumbers(em, orgId, auth);
  return numbers === null ? {} : { customerNumber: { $in: numbers } };
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
