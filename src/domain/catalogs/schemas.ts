/** Record shapes of catalogs (docs/catalogs.md): one catalog assignment, as the `catalog-assignments` import reads it. */
import * as yup from 'yup';

/**
 * One assignment of a catalog (by name, case-insensitive) to a customer or to a price tier (exactly
 * one of the two); `assigned: false` removes it.
 */
export const catalogAssignmentSchema = yup
  .object({
    catalog: yup.string().trim().min(1).max(255).required(),
    customerNumber: yup.string().trim().min(1).max(50),
    priceTier: yup.string().trim().min(1).max(255),
    assigned: yup.boolean().default(true),
  })
  .test('one-target', 'Give exactly one of customerNumber or priceTier.', (v, ctx) =>
    !v || !v.customerNumber === !v.priceTier ? ctx.createError({ path: 'customerNumber', message: 'Give exactly one of customerNumber or priceTier.' }) : true,
  );
export type CatalogAssignmentInput = yup.InferType<typeof catalogAssignmentSchema>;
