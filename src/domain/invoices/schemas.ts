/**
 * yup schemas of an invoice: the create body (POST /api/invoices, a bulk invoice row of POST
 * /api/invoices/bulk and the `invoices` import kind) and the update body. One set of rules for
 * the routes and the importer.
 */
import * as yup from 'yup';
import { currencyCode, dateInput, email, uuid } from '../schemas.js';

export const str = (max = 200) => yup.string().max(max).nullable();
/** Invoice dates take the shared date input (a date or a date-time with an offset). */
export const isoDate = dateInput;
export const money = () => yup.number().min(0, '${path} must be at least 0.').max(1e13, '${path} is too large.');

const address = () =>
  yup.object({ address1: str(), address2: str(), city: str(), stateProvince: str(), zipPostalCode: str(40), country: str(100) }).nullable().default(undefined);
const customerSchema = yup
  .object({
    customerNumber: yup.string().trim().min(1).max(100).required(),
    companyName: str(),
    companyEmail: email().nullable(),
    companyPhone: str(40),
    billingAddress: address(),
    shippingAddress: address(),
  })
  .default(undefined);
const repSchema = yup.object({ repNumber: str(50), firstName: str(100), lastName: str(100), email: email().nullable(), phoneNumber: str(40) }).default(undefined);
const itemSchema = yup.object({
  sku: yup.string().trim().min(1).max(100).required(),
  productName: str(300),
  quantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').max(1e9).required(),
  price: money().required(),
});
export const discountFields = {
  code: str(100),
  type: yup.string().oneOf(['Percentage', 'Amount'], '${path} must be Percentage or Amount.').required(),
  value: money()
    .required()
    .when('type', { is: 'Percentage', then: (s) => s.max(100, '${path} must be at most 100 for a Percentage discount.') }),
  description: str(500),
};
const discountSchema = yup.object(discountFields).nullable().default(undefined);

const invoiceFields = {
  orderId: uuid(),
  orderNumber: str(100),
  invoiceNumber: yup.string().trim().min(1).max(100).nullable(),
  externalId: str(200),
  customer: customerSchema,
  primarySalesRep: repSchema,
  invoiceDate: isoDate(),
  dueDate: isoDate(),
  terms: yup.string().trim().min(1).max(100),
  currencyCode: currencyCode(),
  items: yup.array(itemSchema).min(1, '${path} must have at least one item.').max(1000),
  poNumber: str(100),
  notes: yup.string().max(4000).nullable(),
  tax: money().nullable(),
  discount: discountSchema,
  importedInvoiceTotal: money().nullable(),
  importedBalance: money().nullable(),
  active: yup.boolean(),
};
export const createSchema = yup.object({
  ...invoiceFields,
  orderId: uuid().required(),
  customer: customerSchema.required(),
  primarySalesRep: repSchema.required(),
  invoiceDate: isoDate().required(),
  dueDate: isoDate().required(),
  terms: yup.string().trim().min(1).max(100).required(),
  currencyCode: currencyCode().required(),
  items: yup.array(itemSchema).min(1, '${path} must have at least one item.').max(1000).required(),
});
export const updateSchema = yup.object(invoiceFields);

