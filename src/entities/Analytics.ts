import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/**
 * Analytics rollups (docs/analytics.md). Maintained ONLY by PostgreSQL triggers on
 * sales_order / order_item (migration Migration*_analytics), in the same transaction as the
 * order write, so they never lag an acknowledged order. The application never writes them.
 * A row counts orders that are not Cancelled and active, in one currency; `revenue` is the
 * sum of the lines' sub_total. Rows may fall back to zero (cancelled orders); reads filter them.
 */
const money = () => p.decimal().precision(24).scale(4).default('0');

/** Revenue and order count per organization, currency and UTC day. */
export const AnalyticsDaily = defineEntity({
  name: 'AnalyticsDaily',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    currencyCode: p.string().length(3).primary(),
    day: p.date().primary(),
    revenue: money(),
    orderCount: p.bigint().default(0),
  },
});
export type AnalyticsDaily = InferEntity<typeof AnalyticsDaily>;

/** Per customer number; `grain` 'D' (period = UTC day) or 'M' (period = first of the UTC month). */
export const AnalyticsCustomerPeriod = defineEntity({
  name: 'AnalyticsCustomerPeriod',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    currencyCode: p.string().length(3).primary(),
    grain: p.string().length(1).primary(),
    period: p.date().primary(),
    customerNumber: p.string().primary(),
    revenue: money(),
    orderCount: p.bigint().default(0),
  },
});
export type AnalyticsCustomerPeriod = InferEntity<typeof AnalyticsCustomerPeriod>;

/** Per primary sales rep number ('' when the order has none); grains as above. */
export const AnalyticsRepPeriod = defineEntity({
  name: 'AnalyticsRepPeriod',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    currencyCode: p.string().length(3).primary(),
    grain: p.string().length(1).primary(),
    period: p.date().primary(),
    repNumber: p.string().primary(),
    revenue: money(),
    orderCount: p.bigint().default(0),
  },
});
export type AnalyticsRepPeriod = InferEntity<typeof AnalyticsRepPeriod>;

/** Per line sku; grains as above. */
export const AnalyticsSkuPeriod = defineEntity({
  name: 'AnalyticsSkuPeriod',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    currencyCode: p.string().length(3).primary(),
    grain: p.string().length(1).primary(),
    period: p.date().primary(),
    sku: p.string().length(100).primary(),
    revenue: money(),
    units: p.bigint().default(0),
  },
});
export type AnalyticsSkuPeriod = InferEntity<typeof AnalyticsSkuPeriod>;

/**
 * The name last seen on an order for a customer ('C'), primary rep ('R') or sku ('P'): the
 * fallback label of a ranking row whose customer, rep or product record no longer exists.
 */
export const AnalyticsLabel = defineEntity({
  name: 'AnalyticsLabel',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    kind: p.string().length(1).primary(),
    key: p.string().primary(),
    label: p.string().length(300).nullable(),
    seenAt: p.datetime(),
  },
});
export type AnalyticsLabel = InferEntity<typeof AnalyticsLabel>;
