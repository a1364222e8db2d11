/**
 * yup schemas of the product upsert (PUT /api/products) and of a price replacement entry
 * (PUT /api/products/prices). Shared by those routes and by bulk imports, which validate each
 * record with exactly these rules.
 */
import * as yup from 'yup';

export const priceEntry = yup.object({
  tier: yup.string().trim().min(1).max(100).required(),
  price: yup.number().min(0, '${path} must be at least 0.').required(),
  atQuantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').default(1),
});

export const productInput = yup.object({
  sku: yup.string().trim().min(1).max(100).required(),
  name: yup.string().trim().min(1).max(300),
  description: yup.string().max(20000).nullable(),
  category: yup.string().trim().max(255).nullable(),
  quantityOnHand: yup.number().integer('${path} must be a whole number.'),
  minimumOrderQuantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.'),
  quantityIncrement: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.'),
  maximumOrderQuantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').nullable(),
  weight: yup.number().min(0).max(1e12).nullable(),
  weightUnit: yup.string().trim().max(20).nullable(),
  dimensions: yup.string().trim().max(100).nullable(),
  dimensionsUnit: yup.string().trim().max(20).nullable(),
  upc: yup.string().trim().max(50).nullable(),
  active: yup.boolean(),
  images: yup.array(yup.string().max(255).required()).nullable(),
  productAttributes: yup
    .mixed<Record<string, unknown>>()
    .nullable()
    .meta({ openapi: { type: 'object', description: 'Free attributes (a JSON object)' } })
    .test('object', '${path} must be a JSON object.', (v) => v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v))),
  externalId: yup.string().trim().max(200).nullable(),
  prices: yup.array(priceEntry.required()).max(1000).nullable(),
  trackInventory: yup.boolean(),
  allowBackorder: yup.boolean(),
  leadTimeDays: yup.number().integer('${path} must be a whole number.').min(0, '${path} must be at least 0.').max(3650).nullable(),
});
export type ProductInput = yup.InferType<typeof productInput>;
export type PriceInput = yup.InferType<typeof priceEntry>;

export const priceUpdateEntry = yup.object({
  sku: yup.string().trim().min(1).max(100).required(),
  prices: yup.array(priceEntry.required()).max(1000).required(),
});
export type PriceUpdateInput = yup.InferType<typeof priceUpdateEntry>;
