import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A tenant. `credentialVersion` is bumped when API credentials are issued; tokens carry it. */
export const Organization = defineEntity({
  name: 'Organization',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    identityOrganizationId: p.string().unique(),
    name: p.string(),
    slug: p.string().unique(),
    billingAddress1: p.string().nullable(),
    billingAddress2: p.string().nullable(),
    billingCity: p.string().nullable(),
    billingStateProvince: p.string().nullable(),
    billingPostalCode: p.string().nullable(),
    billingCountry: p.string().length(2).nullable(),
    phoneNumber: p.string().nullable(),
    email: p.string().nullable(),
    website: p.string().nullable(),
    credentialVersion: p.integer().default(1),
    /** Origins (scheme://host[:port]) a hosted payment may return the browser to, besides the API's own. Admin-editable. */
    allowedReturnOrigins: p.json<string[]>().default('[]'),
    /** Authenticated requests per minute for the whole organization; null = the deployment default (RATE_LIMIT_ORGANIZATION_PER_MINUTE). Super-editable. */
    rateLimitPerMinute: p.integer().nullable(),
    /** Days after the shipment a buyer may request a return (docs/returns.md "Returns"; staff any time). Admin-editable. */
    returnWindowDays: p.integer().default(30),
    /** How a received return pays back: `card` (to the order's card when it has one, else credit) or `credit` (a credit note on account). */
    returnRefundPolicy: p.string().length(10).$type<'card' | 'credit'>().default('card'),
    /** Days a backordered order waits before its fulfillment workflow escalates it to the admins (docs/fulfillment.md "Backorders"). Admin-editable. */
    backorderEscalationDays: p.integer().default(7),
    /** Whether a buyer (a Customer user of the order's customer) may cancel their own order before anything of it shipped (docs/returns.md "Cancellation"). Admin-editable. */
    buyersMayCancel: p.boolean().default(false),
    /** How on-account orders are invoiced: `order` (one invoice at placement) or `shipment` (one per shipment; docs/fulfillment.md "Invoicing"). Admin-editable. */
    invoiceOn: p.string().length(10).$type<'order' | 'shipment'>().default('order'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [{ name: 'organization_name_lower_unique', expression: 'create unique index "organization_name_lower_unique" on "organization" (lower("name"))' }],
});
export type Organization = InferEntity<typeof Organization>;
