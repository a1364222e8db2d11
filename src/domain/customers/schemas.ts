/**
 * yup schemas of the customer upsert and update (PUT /api/customers[/{customerNumber}]).
 * Shared by those routes and by bulk imports, which validate each record with these rules.
 */
import * as yup from 'yup';
import { countryCode, email, uuid } from '../schemas.js';

const text = (max: number) => yup.string().trim().max(max);
const optText = (max: number) => text(max).nullable();

const addressSchema = yup.object({
  externalId: optText(100),
  line1: optText(200),
  line2: optText(200),
  city: optText(100),
  state: optText(100),
  postalCode: optText(20),
  country: countryCode().nullable(),
  addressType: yup.string().oneOf(['Billing', 'Shipping'], '${path} must be Billing or Shipping.').required(),
  phone: optText(40),
  isPrimary: yup.boolean(),
});

const contactSchema = yup.object({
  externalId: optText(100),
  title: optText(100),
  firstName: optText(100),
  lastName: optText(100),
  email: email().nullable(),
  phone: optText(40),
  fax: optText(40),
  isPrimary: yup.boolean(),
  contactType: optText(100),
});

const attributesSchema = yup
  .mixed<Record<string, string>>()
  .nullable()
  .meta({ openapi: { type: 'object', additionalProperties: { type: 'string' }, description: 'Free attributes, string values' } })
  .test('attributes', '${path} must be an object whose values are strings.', (v) => {
    if (v === undefined || v === null) return true;
    if (typeof v !== 'object' || Array.isArray(v)) return false;
    return Object.values(v).every((x) => typeof x === 'string');
  });

const customerFields = {
  customerNumber: text(50).min(1),
  externalId: optText(100),
  companyName: text(200).min(1),
  companyEmail: email(),
  companyPhone: optText(40),
  companyFax: optText(40),
  pricing: text(100).min(1),
  active: yup.boolean(),
  repNumber: optText(50),
  terms: optText(50),
  addresses: yup.array().of(addressSchema).max(100),
  contacts: yup.array().of(contactSchema).max(100),
  customerAttributes: attributesSchema,
};

export const customerPatchSchema = yup.object(customerFields);
export const customerUpsertSchema = yup.object({
  ...customerFields,
  customerNumber: customerFields.customerNumber.required(),
  companyName: customerFields.companyName.required(),
  companyEmail: customerFields.companyEmail.required(),
  pricing: customerFields.pricing.required(),
});


/** A user-customer association (POST /api/organizations/users/associate-customer; imports of user-customer-links). */
export const associationSchema = yup.object({ UserId: uuid().required(), CustomerNumber: yup.string().trim().min(1).max(50).required() });
export type AssociationInput = yup.InferType<typeof associationSchema>;
