/**
 * Analytics endpoints (Admin): revenue, trends, month to date, AOV, active customers and
 * rankings, per DESIGN "Analytics (Admin)". Queries live in src/services/analytics, the rules
 * (ranges, months, percent changes, ranking order) in src/domain/analytics.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import * as yup from 'yup';
import { ISO_WITH_OFFSET, withinSpan } from '../domain/analytics/index.js';
import { defineRoute, ok, type Reply } from '../http/route.js';
import * as analytics from '../services/analytics/index.js';
import { currencyCode } from './schemas.js';

const instant = () =>
  yup
    .string()
    .required('${path} is required.')
    .matches(ISO_WITH_OFFSET, { message: '${path} must be an ISO 8601 date-time with an offset, e.g. 2025-01-31T00:00:00Z.', excludeEmptyString: false })
    .test('valid', '${path} is not a valid date-time.', (v) => v === undefined || !ISO_WITH_OFFSET.test(v) || !Number.isNaN(Date.parse(v)));

const time = (v: unknown) => (typeof v === 'string' && ISO_WITH_OFFSET.test(v) ? Date.parse(v) : NaN);

/** The sibling startDate of a yup test context's parent (typed `any` by yup). */
const startOf = (parent: unknown): unknown => (parent && typeof parent === 'object' ? (parent as { startDate?: unknown }).startDate : undefined);

const rangeFields = {
  startDate: instant(),
  endDate: instant()
    .test('order', 'endDate must not be before startDate.', function (v) {
      const [s, e] = [time(startOf(this.parent)), time(v)];
      return Number.isNaN(s) || Number.isNaN(e) || s <= e;
    })
    .test('span', 'startDate and endDate must be at most 5 years apart.', function (v) {
      const [s, e] = [time(startOf(this.parent)), time(v)];
      return Number.isNaN(s) || Number.isNaN(e) || withinSpan(s, e);
    }),
  currencyCode: currencyCode(),
  organizationId: yup.mixed().test('absent', 'organizationId must not be passed: the organization comes from the token.', (v) => v === undefined),
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
  return { scope: { orgId, currency }, range: { start: Date.parse(q.startDate), end: Date.parse(q.endDate) } };
}

const AUTH = ['Admin'] as const;
const ERRORS = {
  400: 'Missing or invalid startDate/endDate (ISO 8601 with offset, start <= end, at most 5 years), currencyCode, limit, or an organizationId',
  401: 'Unauthenticated',
  403: 'Not Admin',
};
const ABOUT = 'Orders not Cancelled, with orderDate in [startDate, endDate] (UTC), in currencyCode (default: currency of the first price tier, else USD)';

function route(path: string, summary: string, response: string, get: (em: EntityManager, s: analytics.Scope, r: analytics.Range) => Promise<unknown>) {
  return defineRoute({
    method: 'get',
    path,
    summary: `${summary}. ${ABOUT}`,
    tag: 'Analytics',
    auth: AUTH,
    query: rangeQuery,
    responses: { 200: response, ...ERRORS },
    async handler({ em, orgId, query }): Promise<Reply> {
      const { scope, range } = await scopeOf(em, orgId, query);
      return ok(await get(em, scope, range));
    },
  });
}

function ranking(
  path: string,
  summary: string,
  response: string,
  get: (em: EntityManager, s: analytics.Scope, r: analytics.Range, limit: number) => Promise<unknown>,
) {
  return defineRoute({
    method: 'get',
    path,
    summary: `${summary} (limit 1 to 100, default 10; ties by key ascending). ${ABOUT}`,
    tag: 'Analytics',
    auth: AUTH,
    query: rankingQuery,
    responses: { 200: response, ...ERRORS },
    async handler({ em, orgId, query }): Promise<Reply> {
      const { scope, range } = await scopeOf(em, orgId, query);
      return ok(await get(em, scope, range, query.limit));
    },
  });
}

export const analyticsRoutes = [
  route('/api/analytics/revenue', 'Total revenue (merchandise subtotal)', '{ totalRevenue, currencyCode }', analytics.revenue),
  route('/api/analytics/revenue/trend', 'Revenue per UTC month, months without orders as 0', 'array of { date (YYYY-MM-01), revenue }', analytics.revenueTrend),
  route(
    '/api/analytics/orders/trend',
    'Order count per UTC month, months without orders as 0',
    'array of { date (YYYY-MM-01), orderCount }',
    analytics.ordersTrend,
  ),
  route(
    '/api/analytics/orders/mtd',
    "Orders from the first of endDate's month to endDate, against the previous month to the same day and time",
    '{ count, previousMonthCount, percentChange (2 decimals, null when previousMonthCount is 0) }',
    analytics.ordersMonthToDate,
  ),
  route('/api/analytics/aov', 'Average order value (revenue / orders, 0 without orders)', '{ averageOrderValue, currencyCode }', analytics.averageOrderValue),
  route(
    '/api/analytics/active-customers',
    'Distinct customers with an order, against the window of the same length just before',
    '{ activeCustomers, percentChange (2 decimals, null when the earlier figure is 0) }',
    analytics.activeCustomers,
  ),
  ranking(
    '/api/analytics/products/top-by-revenue',
    'Products by revenue, grouped by sku (current name; productId null when the product is gone)',
    'array of { productId, sku, name, revenue, unitsOrdered }',
    analytics.topProducts,
  ),
  ranking(
    '/api/analytics/customers/top-by-revenue',
    'Customers by revenue',
    'array of { customerNumber, companyName, revenue, orderCount }',
    analytics.topCustomers,
  ),
  ranking(
    '/api/analytics/categories/top-by-revenue',
    "Categories by revenue, by the product's current category (categoryId null, name Uncategorized when none)",
    'array of { categoryId, name, revenue }',
    analytics.topCategories,
  ),
  ranking(
    '/api/analytics/sales-reps/top-by-revenue',
    "Sales reps by revenue, by the order's primary rep (salesRepNumber null, name Unassigned when none)",
    'array of { salesRepNumber, name, revenue, orderCount }',
    analytics.topSalesReps,
  ),
];
