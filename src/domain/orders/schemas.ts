/**
 * yup schemas of an order as POST /api/orders takes it and of a bulk order row (POST
 * /api/orders/bulk, the `orders` import kind): one set of rules for the routes and the importer.
 */
import * as yup from 'yup';
import { ORDER_STATUSES, parseOrderStatus } from './status.js';
import { currencyCode, UUID_RE } from '../schemas.js';

export const str = (max: number) => yup.string().trim().max(max);
export const addressSchema = yup.object({
  address1: str(200).nullable(),
  address2: str(200).nullable(),
  city: str(100).nullable(),
  stateProvince: str(100).nullable(),
  zipPostalCode: str(20).nullable(),
  country: str(2).nullable(),
});
const repSchema = yup.object({
  repNumber: str(50).nullable(),
  firstName: str(100).nullable(),
  lastName: str(100).nullable(),
  fullName: str(200).nullable(),
  email: str(254).nullable(),
  phoneNumber: str(40).nullable(),
});
const itemSchema = yup.object({
  sku: str(100).min(1).required(),
  productName: str(300).min(1).required(),
  quantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').required(),
  price: yup.number().min(0, '${path} must be at least 0.').required(),
});
const shippingSchema = yup.object({ method: str(100).nullable(), total: yup.number().min(0, '${path} must be at least 0.').default(0) });
/** Compared case-insensitively; documented as the enum of the canonical spellings. */
export const statusSchema = yup.string().meta({ openapi: { enum: [...ORDER_STATUSES] } }).test('status', '${path} must be one of: ' + ORDER_STATUSES.join(', ') + '.', (v) => v === undefined || v === null || !!parseOrderStatus(v));
/**
 * The status an order is created or imported with: any status but PendingApproval, which only the
 * admission of a buyer's order sets (docs/security.md "Admission of orders"); an order entered as
 * PendingApproval would wait for an approval that no request holds, or pose as one.
 */
export const enteredStatusSchema = statusSchema.meta({ openapi: { enum: ORDER_STATUSES.filter((s) => s !== 'PendingApproval') } }).test(
  'not-pending-approval',
  "${path} PendingApproval is set only by the admission of a buyer's order; create or import the order with another status.",
  (v) => v === undefined || v === null || parseOrderStatus(v) !== 'PendingApproval',
);

const orderFields = {
  customer: yup
    .object({
      customerNumber: str(50).min(1).required(),
      companyName: str(200).min(1).required(),
      companyEmail: str(254).nullable(),
      companyPhone: str(40).nullable(),
      companyFax: str(40).nullable(),
      billingAddress: addressSchema.nullable().default(undefined),
      shippingAddress: addressSchema.nullable().default(undefined),
    })
    .required(),
  orderType: str(50).min(1).required(),
  poNumber: str(100).required(),
  priceTier: str(100).min(1).required(),
  currencyCode: currencyCode().required(),
  primarySalesRep: repSchema.required(),
  items: yup.array(itemSchema.required()).min(1, '${path} must have at least one item.').max(1000).required(),
  user: yup.object({ userId: str(100).nullable(), userType: str(50).nullable() }).required(),
  shippingDetails: shippingSchema.nullable().default(undefined),
  takenBySalesRep: repSchema.nullable().default(undefined),
  terms: str(50).nullable(),
  notes: str(4000).nullable(),
  orderStatus: enteredStatusSchema,
  channel: str(50).nullable(),
  externalId: str(200).nullable(),
  tax: yup.number().min(0, '${path} must be at least 0.').nullable(),
  originationCartId: yup.string().matches(UUID_RE, '${path} must be a valid id (UUID).').nullable(),
};
export const orderSchema = yup.object(orderFields);
/**
 * A bulk or imported line (POST /api/orders/bulk, the `orders` import kind): `price` may be left out,
 * and the line is then priced by the one resolver for the order's customer (docs/imports.md "Order lines without a price").
 */
const bulkItemSchema = itemSchema.shape({
  price: yup
    .number()
    .min(0, '${path} must be at least 0.')
    .nullable()
    .meta({ description: "Taken as given; left out (or null), the line is priced by the customer's price list in force, else its tier (docs/imports.md)" }),
});
export const bulkOrderSchema = yup.object({ ...orderFields, items: yup.array(bulkItemSchema.required()).min(1, '${path} must have at least one item.').max(1000).required(), orderNumber: str(50).min(1).nullable(), orderDate: yup.string().test('iso', '${path} must be an ISO 8601 date.', (v) => v === undefined || v === null || (/^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)))).nullable(), active: yup.boolean().nullable() });


/** An order as the API receives it (POST /api/orders, a bulk row, an `orders` import record). */
export type BulkOrderInput = yup.InferType<typeof bulkOrderSchema>;
/**
 * An order as the order services take it (POST /api/orders, a bulk row once its lines are priced):
 * every line has its price; priceListId names the list that priced an imported line without one.
 */
export type OrderInput = Omit<BulkOrderInput, 'items'> & { items: (Omit<BulkOrderInput['items'][number], 'price'> & { price: number; priceListId?: string | null })[] };
