/**
 * Invoice fields only an Admin (or an import) writes (DESIGN "Security decisions"): an imported
 * total and balance make an invoice look paid without a payment, so a SalesRep token may not
 * change them. Sending the stored value back (a read-modify-write) is not a change.
 */
import { Decimal } from 'decimal.js';
import type { FieldErrors } from '../../errors.js';
import type { Amount } from '../money.js';

export const ADMIN_ONLY_INVOICE_FIELDS = ['importedInvoiceTotal', 'importedBalance'] as const;
type AdminOnly = (typeof ADMIN_ONLY_INVOICE_FIELDS)[number];

/** The Admin-only fields `input` would change on `stored` (null: a new invoice), each named with its reason; empty when none. */
export function adminOnlyChanges(input: Partial<Record<AdminOnly, Amount | null>>, stored: Partial<Record<AdminOnly, Amount | null>> | null): FieldErrors {
  const errors: FieldErrors = {};
  for (const k of ADMIN_ONLY_INVOICE_FIELDS) {
    const v = input[k];
    if (v === undefined) continue;
    const before = stored?.[k] ?? null;
    const same = v === null || before === null ? v === before : new Decimal(v).equals(before);
    if (!same) errors[k] = [`${k} is set by an Admin or an import only; a sales rep cannot set or change it.`];
  }
  return errors;
}
