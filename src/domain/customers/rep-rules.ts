/**
 * What a SalesRep token may write on a customer (DESIGN "Security decisions"; one rule for
 * PUT /api/customers, PUT /api/customers/{customerNumber} and the customers applier): only
 * customers of its own rep number (another rep's: 403), never assigned to another rep number,
 * and never a changed price tier (`pricing`) or `terms`, which are an Admin's (or an import's):
 * 403 naming the field. Sending the stored value back is not a change. A new customer needs a
 * tier (SPEC: `pricing` is required), so the rep names one; its terms are left to an Admin.
 */
import { AppError, type FieldErrors } from '../../errors.js';
import type { CustomerFields, CustomerInput } from './rules.js';
import type { UpsertOptions } from './upsert.js';

export function salesRepCustomerRules<C>(repNumber: string | null): UpsertOptions<C> {
  return {
    guard: (_existing, current) => {
      if (!repNumber || current.repNumber !== repNumber) throw AppError.forbidden('This customer is not assigned to your rep number.');
    },
    guardFields: (fields, current) => {
      if (fields.repNumber !== repNumber) throw AppError.forbidden('A sales rep can only assign customers to their own rep number.');
      const errors = adminOnlyCustomerChanges(fields, current);
      if (Object.keys(errors).length) throw new AppError('forbidden', "A customer's price tier and terms are set by an Admin.", errors);
    },
  };
}

/** `pricing` or `terms` that differ from `current` (null: a new customer, whose terms stay unset). */
export function adminOnlyCustomerChanges(fields: CustomerFields, current: CustomerFields | null): FieldErrors {
  const errors: FieldErrors = {};
  if (current && fields.pricing.toLowerCase() !== current.pricing.toLowerCase()) errors.pricing = ["A sales rep cannot change a customer's price tier."];
  if ((fields.terms ?? null) !== (current?.terms ?? null)) errors.terms = [current ? "A sales rep cannot change a customer's terms." : 'A sales rep cannot set the terms of a new customer.'];
  return errors;
}

/** A sales rep's new customer is assigned to the rep unless the input names a rep number. */
export const withRepDefault = (repNumber: string | null, input: CustomerInput): CustomerInput => (input.repNumber === undefined ? { ...input, repNumber } : input);
