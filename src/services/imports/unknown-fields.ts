/**
 * Fields an import kind does not know (issue 38 item 8). A JSON body field no operation knows is a
 * 400 (src/http/validate.ts `unknownFieldErrors`); an import keeps importing such a record without
 * the field and lists the field once on the job (`warnings`). A field is known when the kind's
 * record schema (the single-record endpoint's body) or the resource's read declares it, as for
 * the endpoint itself, so records exported from a GET import without noise.
 */
import type { AnyObject, AnySchema, ObjectSchema } from 'yup';
import { bulkOrderSchema } from '../../domain/orders/schemas.js';
import { createSchema } from '../../domain/invoices/schemas.js';
import { associationSchema, customerUpsertSchema } from '../../domain/customers/schemas.js';
import { priceUpdateEntry, productInput } from '../../domain/products/schemas.js';
import { customer, invoice, order, product } from '../../domain/resources.js';
import { csvRowToRecord, warningField, type ImportKindName } from '../../domain/imports/records.js';
import { unknownFieldErrors } from '../../http/validate.js';
import { inventoryEntry } from '../../domain/stock/schemas.js';
import { catalogAssignmentSchema } from '../../domain/catalogs/schemas.js';
import { priceListBreakSchema } from '../../domain/pricing/price-lists.js';

const SHAPES: Record<ImportKindName, { schema: ObjectSchema<AnyObject>; read: AnySchema[] }> = {
  products: { schema: productInput, read: [product] },
  prices: { schema: priceUpdateEntry, read: [] },
  customers: { schema: customerUpsertSchema, read: [customer] },
  'user-customer-links': { schema: associationSchema, read: [] },
  'catalog-assignments': { schema: catalogAssignmentSchema, read: [] },
  'price-lists': { schema: priceListBreakSchema, read: [] },
  orders: { schema: bulkOrderSchema, read: [order] },
  invoices: { schema: createSchema, read: [invoice] },
  inventory: { schema: inventoryEntry, read: [] },
};

/** The unknown fields of one record (`addresses[].postCode` for a field of array elements), each once. */
export function unknownFields(kind: ImportKindName, record: unknown): string[] {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return [];
  const { schema, read } = SHAPES[kind];
  const errors = unknownFieldErrors(schema, read, record);
  return errors ? [...new Set(Object.keys(errors).map(warningField))] : [];
}

/** The CSV header's columns that name no field of the kind (`price:` and `attr:` columns map as on import). */
export function unknownColumns(kind: ImportKindName, columns: readonly string[]): string[] {
  return columns.filter((c) => c.trim() !== '' && unknownFields(kind, csvRowToRecord(kind, { [c]: 'x' })).length > 0);
}
