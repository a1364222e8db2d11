import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * One action of the payment janitor (issue 21) on a provider charge no payment recorded: Recorded
 * (on its invoice), Voided or Refunded. The audit trail finance reads (GET /api/payments/reconciliation).
 */
export const PaymentReconciliation = defineEntity({
  name: 'PaymentReconciliation',
  properties: {
    organizationId: p.uuid().primary(),
    chargeId: p.string().length(200).primary(),
    action: p.string().length(20),
    amount: p.decimal().precision(19).scale(4),
    currencyCode: p.string().length(3),
    invoiceId: p.uuid().nullable(),
    paymentProfileId: p.string().length(200).nullable(),
    reference: p.string().nullable(),
    reason: p.text(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
  indexes: [{ name: 'payment_reconciliation_org_created_index', properties: ['organizationId', 'createdAt'] }],
});
export type PaymentReconciliation = InferEntity<typeof PaymentReconciliation>;
