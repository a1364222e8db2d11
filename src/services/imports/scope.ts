/**
 * The write scope of a bulk call (DESIGN "Security decisions"): the appliers find stored records
 * by natural key only among the customers the caller may see, so a SalesRep's bulk upsert cannot
 * reach another rep's invoice, order or customer by its number or externalId.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../../http/auth.js';
import { visibleCustomerIds, visibleCustomerNumbers } from '../customers/visibility.js';
import type { RecordFailure, WriteScope } from './types.js';

/** The caller's scope; undefined for an Admin (or Super), who sees every record of the organization. */
export async function writeScopeOf(em: EntityManager, orgId: string, auth: Principal): Promise<WriteScope | undefined> {
  const numbers = await visibleCustomerNumbers(em, orgId, auth);
  const ids = await visibleCustomerIds(em, orgId, auth);
  if (numbers === null || ids === null) return undefined;
  return { customers: new Set(numbers), customerIds: new Set(ids), repNumber: auth.role === 'SalesRep' ? auth.repNumber : null };
}

/** Whether a stored record is outside the caller's scope: it must belong (by id) to a customer the caller sees, not merely carry its number. */
export const outsideStored = (scope: WriteScope | undefined, stored: { customerId?: string | null }) => !!scope && !(stored.customerId && scope.customerIds.has(stored.customerId));

/** Whether a record of this customer is outside the caller's scope (never for an Admin). */
export const outside = (scope: WriteScope | undefined, customerNumber: string) => !!scope && !scope.customers.has(customerNumber);

/** Row `n` matched, by `field`, a stored record the caller may not see: 404, nothing changes. */
export const hiddenMatch = (n: number, field: string, what: string): RecordFailure => ({
  n,
  kind: 'not_found',
  errors: { [field]: [`No ${what} with this ${field} is visible to you; nothing was changed.`] },
});

/** Row `n` names a customer the caller may not act for: 403 (the convention of rep creates). */
export const unassignedCustomer = (n: number): RecordFailure => ({
  n,
  kind: 'forbidden',
  errors: { 'customer.customerNumber': ['This customer is not assigned to your rep number.'] },
});
