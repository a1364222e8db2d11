import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { TermType } from '../domain/credit/terms.js';

/**
 * Payment terms of an organization (docs/credit.md): `Net` N days, `DueOnReceipt`, or `EndOfMonth`
 * + N days. Primary key (organization_id, id) (DESIGN "Scale-out"); names unique per organization,
 * case-insensitively. Customers point at one with (organization_id, payment_terms_id).
 */
export const PaymentTerm = defineEntity({
  name: 'PaymentTerm',
  properties: {
    organizationId: p.uuid().primary(),
    id: p.uuid().primary().onCreate(() => randomUUID()),
    name: p.string().length(100),
    type: p.string().length(20).$type<TermType>(),
    days: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [{ name: 'payment_term_org_name_unique', expression: 'create unique index "payment_term_org_name_unique" on "payment_term" ("organization_id", lower("name"))' }],
});
export type PaymentTerm = InferEntity<typeof PaymentTerm>;
