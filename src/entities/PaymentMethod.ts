import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/**
 * A card on file of a customer (SPEC "Payment method"): only the provider's tokens and the
 * masked details, never the card number or CVV. `paymentProfileId` is unique per organization
 * (a duplicate hosted callback cannot save the card twice); at most one active default card
 * per customer (partial unique index).
 */
export const PaymentMethod = defineEntity({
  name: 'PaymentMethod',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    customerNumber: p.string().length(50),
    /** The customer record this row belongs to (DESIGN "Security decisions"); null once that customer is deleted. FK (organization_id, customer_id) in the migration. */
    customerId: p.uuid().nullable(),
    paymentProfileId: p.string().length(200),
    customerProfileId: p.string().length(200),
    maskedCardNumber: p.string().length(40),
    cardType: p.string().length(40),
    expirationDate: p.string().length(10),
    expMonth: p.integer(),
    expYear: p.integer(),
    billingAddress: p.json<Record<string, unknown>>().nullable(),
    isDefault: p.boolean().default(false),
    paymentProvider: p.string().length(40),
    active: p.boolean().default(true),
    networkTransactionId: p.string().length(100).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    { name: 'payment_method_org_customer_index', properties: ['organization', 'customerNumber'] },
    { name: 'payment_method_org_customer_id_index', properties: ['organization', 'customerId'] },
  ],
  uniques: [
    { name: 'payment_method_org_profile_unique', properties: ['organization', 'paymentProfileId'] },
    {
      name: 'payment_method_one_default_unique',
      expression:
        'create unique index "payment_method_one_default_unique" on "payment_method" ("organization_id", "customer_id") where "is_default" and "active"',
    },
  ],
  checks: [
    { name: 'payment_method_exp_month_check', expression: '(exp_month >= 1) AND (exp_month <= 12)' },
    { name: 'payment_method_provider_check', expression: "payment_provider in ('ProviderDirect', 'ProviderHosted')" },
  ],
});
export type PaymentMethod = InferEntity<typeof PaymentMethod>;
