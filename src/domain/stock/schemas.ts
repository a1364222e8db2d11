/**
 * yup schema of one inventory entry: PUT /api/inventory's `items[i]` and one record of the
 * `inventory` import (docs/imports.md), validated with exactly these rules.
 */
import * as yup from 'yup';

const count = (what: string) => yup.number().integer('${path} must be a whole number.').nullable().meta({ openapi: { description: what } });

export const inventoryEntry = yup.object({
  sku: yup.string().trim().min(1).max(100).required(),
  location: yup.string().trim().min(1).max(50).required().meta({ openapi: { description: 'The location code (or its id)' } }),
  quantityOnHand: count('A count: on hand at the location becomes this (an adjustment by the difference)').min(0, '${path} must be at least 0.'),
  receive: count('Units received (a receipt)').min(1, '${path} must be at least 1.'),
  adjust: count('Signed adjustment (reason required)'),
  reason: yup.string().trim().max(500).nullable(),
  reference: yup.string().trim().max(200).nullable(),
});
export type InventoryEntryInput = yup.InferType<typeof inventoryEntry>;
