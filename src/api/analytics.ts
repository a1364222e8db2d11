/**
 * Analytics endpoints (Admin): revenue, trends, month to date, AOV, active customers and
 * rankings, per DESIGN "Analytics (Admin)". Queries live in src/services/analytics, the rules
 * (ranges, months, percent changes, ranking order) in src/domain/analytics.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import * as yup from 'yup';
import { withinSpan } from '../domain/analytics/index.js';
import { instantOf } from '../domain/dates.js';
import type { AnySchema } from 'yup';
import * as schema from '../domain/analytics/responses.js';
import { defineRoute, json, ok, type Reply } from '../http/route.js';
import * as analytics from '../services/analytics/index.js';
import { currencyCode, dateInput } from './schemas.js';

const instant = () => dateInput().required('${path} is required.');

/** A range edge: a bare date is its UTC day's first instant as startDate and its last as endDate (the range is inclusive). */
const time = (v: unknown, edge: 'start' | 'end') => (typeof v === 'string' ? instantOf(v, edge) : NaN);

/** The sibling startDate of a yup test context's parent (typed `any` by yup). */
const startOf = (parent: unknown): unknown => (parent && typeof parent === 'object' ? (parent as { startDate?: unknown }).startDate : undefined);

const rangeFields = {
  startDate: instant(),
  endDate: instant()
    .test('order', 'endDate must not be before startDate.', function (v) {
      const [s, e] = [time(startOf(this.parent), 'start'), time(v, 'end')];
      return Number.isNaN(s) || Number.isNaN(e) || s <= e;
    })
    .test('span', 'startDate and endDate must be at most 5 years apart.', function (v) {
      const [s, e] = [time(startOf(this.parent), 'start'), time(v, 'end')];
      return Number.isNaN(s) || Number.isNaN(e) || withinSpan(s, e);
    }),
  currencyCode: currencyCode(),
  organizationId: yup
    .mixed()
    .meta({ openapi: { type: 'string', deprecated: true, description: 'Not accepted (400): the organization comes from the token' } })
    .test('absent', 'organizationId must not be passed: the organization comes from the token.', (v) => v === undefined),
};
const rangeQuery = yup.object(rangeFields);
const rankingQuery = yup.object({
  ...rangeFields,
  limit: yup
    .number()
    .typeError('${path} must be a whole number from 1 to 100.')
    .integer('${path} must be a whole number from 1 to 100.')
    .min(1, '${path} must be a whole number from 1 to 100.')
    .max(100, '${path} must be a whole number from 1 to 100.')
    .default(10),
});

type RangeInput = yup.InferType<typeof rangeQuery>;

async function scopeOf(em: EntityManager, orgId: string, q: RangeInput) {
  const currency = q.currencyCode ?? (await analytics.defaultCurrency(em, orgId));
  return { scope: { orgId, currency }, range: { start: instantOf(q.startDate, 'start'), end: instantOf(q.endDate, 'end') } };
}

const AUTH = ['Admin'] as const;
const ERRORS = {
  400: 'Missing or invalid startDate/endDate (a date such as 2025-01-31, meaning the whole UTC day, or an ISO 8601 date-time with an offset; start <= end, at most 5 years), currencyCode, limit, or an organizationId',
  401: 'Unauthenticated',
  403: 'Not Admin',
};
const ABOUT = 'Orders not Cancelled, with orderDate in [startDate, endDate] (UTC), in currencyCode (default: currency of the first price tier, else USD)';

function route(operationId: string, path: string, summary: string, response: AnySchema, get: (em: EntityManager, s: analytics.Scope, r: analytics.Range) => Promise<unknown>) {
  return defineRoute({
    method: 'get',
    path,
    operationId,
    summary: `${summary}. ${ABOUT}`,
    tag: 'Analytics',
    reads: 'replica',
    auth: AUTH,
    query: rangeQuery,
    responses: { 200: json(response, summary), ...ERRORS },
    async handler({ em, orgId, query }): Promise<Reply> {
      const { scope, range } = await scopeOf(em, orgId, query);
      return ok(await get(em, scope, range));
    },
  });
}

function ranking(
  operationId: string,
  path: string,
  summary: string,
  response: AnySchema,
  get: (em: EntityManager, s: analytics.Scope, r: analytics.Range, limit: number) => Promise<unknown>,
) {
  return defineRoute({
    method: 'get',
    path,
    operationId,
    summary: `${summary} (limit 1 to 100, default 10; ties by key ascending). ${ABOUT}`,
    tag: 'Analytics',
    reads: 'replica',
    auth: AUTH,
    query: rankingQuery,
    responses: { 200: json(response, summary), ...ERRORS },
    async handler({ em, orgId, query }): Promise<Reply> {
      const { scope, range } = await scopeOf(em, orgId, query);
      return ok(await get(em, scope, range, query.limit));
    },
  });
}

export const analyticsRoutes = [
  route('getRevenue', '/api/analytics/revenue', 'Total revenue (merchandise subtotal)', schema.revenue, analytics.revenue),
  route('getRevenueTrend', '/api/analytics/revenue/trend', 'Revenue per UTC month, months without orders as 0', schema.revenueTrend, analytics.revenueTrend),
  route(
    'getOrdersTrend',
    '/api/analytics/orders/trend',
    'Order count per UTC month, months without orders as 0',
    schema.ordersTrend,
    analytics.ordersTrend,
  ),
  route(
    'getOrdersMonthToDate',
    '/api/analytics/orders/mtd',
    "Orders from the first of endDate's month to endDate, against the previous month to the same day and time",
    schema.ordersMonthToDate,
    analytics.ordersMonthToDate,
  ),
  route('getAverageOrderValue', '/api/analytics/aov', 'Average order value (revenue / orders, 0 without orders)', schema.averageOrderValue, analytics.averageOrderValue),
  route(
    'getActiveCustomers',
    '/api/analytics/active-customers',
    'Distinct customers with an order, against the window of the same length just before',
    schema.activeCustomers,
    analytics.activeCustomers,
  ),
  ranking(
    'listTopProductsByRevenue',
    '/api/analytics/products/top-by-revenue',
    'Products by revenue, grouped by sku (current name; productId null when the product is gone)',
    schema.topProducts,
    analytics.topProducts,
  ),
  ranking(
    'listTopCustomersByRevenue',
    '/api/analytics/customers/top-by-revenue',
    'Customers by revenue',
    schema.topCustomers,
    analytics.topCustomers,
  ),
  ranking(
    'listTopCategoriesByRevenue',
    '/api/analytics/categories/top-by-revenue',
    "Categories by revenue, by the product's current category (categoryId null, name Uncategorized when none)",
    schema.topCategories,
    analytics.topCategories,
  ),
  ranking(
    'listTopSalesRepsByRevenue',
    '/api/analytics/sales-reps/top-by-revenue',
    "Sales reps by revenue, by the order's primary rep (salesRepNumber null, name Unassigned when none)",
    schema.topSalesReps,
    analytics.topSalesReps,
  ),
];
