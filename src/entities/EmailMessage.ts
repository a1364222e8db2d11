import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * Record of an e-mail the service sends, keyed by a business id (the workflow id).
 * Delivery marks it sent; a retried activity that finds it sent does nothing.
 */
export const EmailMessage = defineEntity({
  name: 'EmailMessage',
  properties: {
    id: p.string().primary(),
    organizationId: p.uuid().nullable().index(),
    template: p.string(),
    /** One address, or a comma-separated list (an invoice's company e-mail and billing contacts). */
    toAddress: p.text(),
    subject: p.string().nullable(),
    status: p.string().$type<'pending' | 'sent'>().default('pending'),
    attempts: p.integer().default(0),
    sentAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type EmailMessage = InferEntity<typeof EmailMessage>;
