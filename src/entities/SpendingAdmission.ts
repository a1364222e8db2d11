import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * A checkout (`cart:<id>`) or quote accept (`quote:<id>`) admitted within a limited buyer's spending
 * limits whose order does not exist yet: counted as spent this month until the order exists or
 * `expiresAt` (src/services/orders/admission.ts; migration 20261129102000).
 */
export const SpendingAdmission = defineEntity({
  name: 'SpendingAdmission',
  properties: {
    organizationId: p.uuid().primary(),
    subjectKey: p.string().length(60).primary(),
    customerId: p.uuid(),
    userId: p.uuid(),
    cartId: p.uuid().nullable(),
    quoteId: p.uuid().nullable(),
    amount: p.decimal().precision(19).scale(4),
    admittedAt: p.datetime().defaultRaw('now()'),
    expiresAt: p.datetime(),
  },
  indexes: [{ name: 'spending_admission_buyer_index', properties: ['organizationId', 'customerId', 'userId'] }],
});
export type SpendingAdmission = InferEntity<typeof SpendingAdmission>;
