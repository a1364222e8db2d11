import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/**
 * One hosted-payment transaction setup (the provider's page for one payment or card save),
 * driven by the `hostedPayment` workflow `hosted-payment-<transactionSetupId>`.
 * status: pending -> approved | declined (callback reconciled) or expired (timer fired first).
 * The status moves away from pending once (conditional update), so a duplicate or late
 * callback reconciles nothing twice.
 */
export const HostedPaymentSetup = defineEntity({
  name: 'HostedPaymentSetup',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    transactionSetupId: p.string().length(100).unique('hosted_payment_setup_transaction_setup_id_unique'),
    customerNumber: p.string().length(50),
    /** The customer record this row belongs to (DESIGN "Security decisions"); null once that customer is deleted. FK (organization_id, customer_id) in the migration. */
    customerId: p.uuid().nullable(),
    invoiceId: p.uuid().nullable(),
    invoiceNumber: p.string().length(100).nullable(),
    amount: p.decimal().precision(19).scale(2),
    currency: p.string().length(3),
    returnUrl: p.text(),
    marketCode: p.string().length(50).default('Default'),
    /** Save the card as a payment method when approved (amount 0.00 or isDefault). */
    saveCard: p.boolean().default(false),
    isDefault: p.boolean().default(false),
    /** Billing address to keep with the saved card (payment-methods hosted flow). */
    billingAddress: p.json<Record<string, unknown>>().nullable(),
    status: p.string().length(20).$type<'pending' | 'approved' | 'declined' | 'expired'>().default('pending'),
    expiresAt: p.datetime(),
    result: p.string().length(40).nullable(),
    cardType: p.string().length(40).nullable(),
    lastFour: p.string().length(4).nullable(),
    paymentProfileId: p.string().length(200).nullable(),
    providerTransactionId: p.string().length(200).nullable(),
    paymentMethodId: p.uuid().nullable(),
    invoicePaymentId: p.string().length(100).nullable(),
    completedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [
    { name: 'hosted_payment_setup_org_customer_index', properties: ['organization', 'customerNumber'] },
    { name: 'hosted_payment_setup_org_customer_id_index', properties: ['organization', 'customerId'] },
  ],
  checks: [
    { name: 'hosted_payment_setup_status_check', expression: "status in ('pending', 'approved', 'declined', 'expired')" },
    { name: 'hosted_payment_setup_amount_check', expression: 'amount >= 0' },
  ],
});
export type HostedPaymentSetup = InferEntity<typeof HostedPaymentSetup>;
