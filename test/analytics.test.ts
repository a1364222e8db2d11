import { call, createMemberUser, createOrg, dbQuery, expectProblem, uniq, type OrgFixture } from './support/helpers';
import { invoiceBody } from './support/matrix-fixtures';

/** One order line: [sku, quantity, price, productName?]. */
type Line = [string, number, number, string?];
interface O {
  date: string;
  cust: string;
  company?: string;
  rep?: string | null;
  repName?: string;
  cur?: string;
  status?: string;
  active?: boolean;
  lines: Line[];
  orderNumber?: string;
}

const body = (o: O) => ({
  orderNumber: o.orderNumber ?? uniq('AN-'),
  orderDate: o.date,
  customer: { customerNumber: o.cust, companyName: o.company ?? `Company ${o.cust}` },
  orderType: 'Direct',
  poNumber: 'PO-1',
  priceTier: 'Retail',
  currencyCode: o.cur ?? 'USD',
  primarySalesRep: o.rep ? { repNumber: o.rep, fullName: o.repName ?? `Rep ${o.rep}` } : {},
  items: o.lines.map(([sku, quantity, price, productName]) => ({ sku, productName: productName ?? `Line ${sku}`, quantity, price })),
  user: { userId: 'u-1', userType: 'Admin' },
  ...(o.status ? { orderStatus: o.status } : {}),
  ...(o.active !== undefined ? { active: o.active } : {}),
});

/** Imports orders with chosen past dates (POST /api/orders/bulk); returns their ids and numbers. */
async function place(org: OrgFixture, orders: O[]): Promise<{ id: string; orderNumber: string }[]> {
  const res = await call('POST', '/api/orders/bulk', { base: org.base, token: org.adminToken, body: { orders: orders.map(body) } });
  if (res.status !== 201) throw new Error(`bulk: ${res.status} ${res.text}`);
  return res.body.map((r: { data: { id: string; orderNumber: string } }) => r.data);
}

const get = (org: OrgFixture, path: string, q: Record<string, string | number>) =>
  call('GET', `${path}?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString()}`, { base: org.base, token: org.adminToken });

async function ok(org: OrgFixture, path: string, q: Record<string, string | number>) {
  const res = await get(org, path, q);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

const Q1 = { startDate: '2025-01-01T00:00:00Z', endDate: '2025-03-01T00:00:00Z' };

describe('analytics: revenue, trends, AOV, active customers', () => {
  let org: OrgFixture;
  let other: OrgFixture;
  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(), createOrg()]);
    await place(org, [
      {
        date: '2025-01-15T10:00:00Z',
        cust: 'C1',
        rep: 'R1',
        lines: [
          ['A', 2, 10.005],
          ['B', 1, 3],
        ],
      }, // 20.01 + 3 = 23.01
      { date: '2025-01-31T23:59:59.999Z', cust: 'C2', lines: [['A', 1, 7]] }, // 7
      { date: '2025-03-01T00:00:00Z', cust: 'C1', rep: 'R2', lines: [['C', 5, 1.1]] }, // 5.50, exactly at endDate
      { date: '2025-02-10T00:00:00Z', cust: 'C3', status: 'Cancelled', lines: [['A', 100, 1]] }, // cancelled
      { date: '2025-02-10T00:00:00Z', cust: 'C1', cur: 'EUR', lines: [['A', 1, 50]] }, // other currency
      { date: '2025-02-11T00:00:00Z', cust: 'C4', active: false, lines: [['A', 1, 40]] }, // soft-deleted
      { date: '2024-12-31T23:59:59.999Z', cust: 'C1', lines: [['B', 1, 2.5]] }, // just before startDate
      { date: '2025-03-01T00:00:00.001Z', cust: 'C5', lines: [['B', 1, 9]] }, // just after endDate
    ]);
    await place(other, [{ date: '2025-01-20T00:00:00Z', cust: 'C1', lines: [['A', 1, 1000]] }]);
  });

  test('when revenue is asked, then it is the exact subtotal of counted orders with both ends inclusive, per currency and organization', async () => {
    expect(await ok(org, '/api/analytics/revenue', Q1)).toEqual({ totalRevenue: 35.51, currencyCode: 'USD' });
    expect(await ok(org, '/api/analytics/revenue', { ...Q1, currencyCode: 'EUR' })).toEqual({ totalRevenue: 50, currencyCode: 'EUR' });
    // Offsets are converted to UTC: 12:00+02:00 is the first order's instant; 01:59:59+02:00 on March 1 excludes the March order.
    expect(await ok(org, '/api/analytics/revenue', { startDate: '2025-01-15T12:00:00+02:00', endDate: '2025-03-01T01:59:59+02:00' })).toEqual({
      totalRevenue: 30.01,
      currencyCode: 'USD',
    });
    expect(await ok(org, '/api/analytics/revenue', { startDate: '2025-01-15T10:00:00.001Z', endDate: '2025-01-31T23:59:59.999Z' })).toEqual({
      totalRevenue: 7,
      currencyCode: 'USD',
    });
    expect(await ok(other, '/api/analytics/revenue', Q1)).toEqual({ totalRevenue: 1000, currencyCode: 'USD' });
    // Bare dates mean whole UTC days: 2025-01-31 as endDate includes the order at 23:59:59.999Z; as startDate it excludes 2024-12-31T23:59:59.999Z.
    expect(await ok(org, '/api/analytics/revenue', { startDate: '2025-01-01', endDate: '2025-01-31' })).toEqual({ totalRevenue: 30.01, currencyCode: 'USD' });
    expect(await ok(org, '/api/analytics/revenue', { startDate: '2025-01-01', endDate: '2025-03-01' })).toEqual({ totalRevenue: 44.51, currencyCode: 'USD' });
    expect(await ok(org, '/api/analytics/revenue', { startDate: '2030-01-01T00:00:00Z', endDate: '2030-01-02T00:00:00Z' })).toEqual({
      totalRevenue: 0,
      currencyCode: 'USD',
    });
  });

  test('when trends are asked, then there is one entry per UTC month with 0 for months without orders', async () => {
    const q = { startDate: '2024-11-15T00:00:00Z', endDate: '2025-03-01T00:00:00Z' };
    expect(await ok(org, '/api/analytics/revenue/trend', q)).toEqual([
      { date: '2024-11-01', revenue: 0 },
      { date: '2024-12-01', revenue: 2.5 },
      { date: '2025-01-01', revenue: 30.01 },
      { date: '2025-02-01', revenue: 0 },
      { date: '2025-03-01', revenue: 5.5 },
    ]);
    expect(await ok(org, '/api/analytics/orders/trend', q)).toEqual([
      { date: '2024-11-01', orderCount: 0 },
      { date: '2024-12-01', orderCount: 1 },
      { date: '2025-01-01', orderCount: 2 },
      { date: '2025-02-01', orderCount: 0 },
      { date: '2025-03-01', orderCount: 1 },
    ]);
    // A range inside one month gives that month only; an offset start belongs to its UTC month.
    expect(await ok(org, '/api/analytics/orders/trend', { startDate: '2025-01-01T01:00:00+02:00', endDate: '2025-01-20T00:00:00Z' })).toEqual([
      { date: '2024-12-01', orderCount: 1 },
      { date: '2025-01-01', orderCount: 1 },
    ]);
  });

  test('when AOV is asked, then it is revenue / counted orders rounded half-up, and 0 without orders', async () => {
    expect(await ok(org, '/api/analytics/aov', Q1)).toEqual({ averageOrderValue: 11.84, currencyCode: 'USD' }); // 35.51 / 3 = 11.8366...
    expect(await ok(org, '/api/analytics/aov', { startDate: '2030-01-01T00:00:00Z', endDate: '2030-02-01T00:00:00Z' })).toEqual({
      averageOrderValue: 0,
      currencyCode: 'USD',
    });
  });

  test('when active customers are asked, then distinct customers count against the window of the same length before', async () => {
    // Jan 1 .. Mar 1 00:00: C1, C2 (C3 cancelled, C4 soft-deleted, EUR order not counted). Before: C1 on Dec 31 -> +100%.
    expect(await ok(org, '/api/analytics/active-customers', Q1)).toEqual({ activeCustomers: 2, percentChange: 100 });
    // Jan 1 .. Jan 31 end: C1, C2; the month before has C1 only at Dec 31 23:59:59.999 -> 100.
    expect(await ok(org, '/api/analytics/active-customers', { startDate: '2025-01-01T00:00:00Z', endDate: '2025-01-31T23:59:59.999Z' })).toEqual({
      activeCustomers: 2,
      percentChange: 100,
    });
    // Nothing before -> null.
    expect(await ok(org, '/api/analytics/active-customers', { startDate: '2024-12-31T00:00:00Z', endDate: '2025-01-01T00:00:00Z' })).toEqual({
      activeCustomers: 1,
      percentChange: null,
    });
    // Fewer than before -> negative, 2 decimals: Mar 1 (C1 only... plus C5 after) vs Jan-Feb window.
    expect(await ok(org, '/api/analytics/active-customers', { startDate: '2025-01-16T00:00:00Z', endDate: '2025-03-02T00:00:00Z' })).toEqual({
      activeCustomers: 3,
      percentChange: 200,
    });
  });

  test('when the organization has price tiers, then the default currency is that of the first created tier', async () => {
    const fresh = await createOrg();
    const first = (
      await dbQuery<{ currency_code: string }>('select currency_code from price_tier where organization_id = $1 order by created_at, id limit 1', [
        fresh.organizationId,
      ])
    )[0];
    const before = await ok(fresh, '/api/analytics/revenue', Q1);
    expect(before.currencyCode).toBe(first?.currency_code ?? 'USD');
    if (!first) {
      expect(
        (await call('POST', '/api/organizations/price-tiers', { base: fresh.base, token: fresh.adminToken, body: { Name: 'Euro', CurrencyCode: 'EUR' } }))
          .status,
      ).toBe(200);
      await call('POST', '/api/organizations/price-tiers', { base: fresh.base, token: fresh.adminToken, body: { Name: 'Yen', CurrencyCode: 'JPY' } });
      expect(await ok(fresh, '/api/analytics/revenue', Q1)).toEqual({ totalRevenue: 0, currencyCode: 'EUR' });
    }
  });
});

describe('analytics: month to date', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
    await place(org, [
      { date: '2025-01-31T12:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-02-01T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-02-15T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-02-28T23:59:59.999Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-03-01T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-03-15T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-03-16T00:00:00Z', cust: 'C1', status: 'Cancelled', lines: [['A', 1, 1]] },
      { date: '2025-03-31T12:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-03-31T12:00:01Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-04-01T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-04-02T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-04-03T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
      { date: '2025-05-01T00:00:00Z', cust: 'C1', lines: [['A', 1, 1]] },
    ]);
  });
  const mtd = (endDate: string) => ok(org, '/api/analytics/orders/mtd', { startDate: '2025-01-01T00:00:00Z', endDate });

  test('when endDate is mid-month, then the previous month counts to the same day and time', async () => {
    // Mar 1 .. Mar 15 00:00 -> 2; Feb 1 .. Feb 15 00:00 -> 2; +0%.
    expect(await mtd('2025-03-15T00:00:00Z')).toEqual({ count: 2, previousMonthCount: 2, percentChange: 0 });
    // Mar 1 .. Mar 14 23:59 -> 1; Feb 1 .. Feb 14 23:59 -> 1.
    expect(await mtd('2025-03-14T23:59:59Z')).toEqual({ count: 1, previousMonthCount: 1, percentChange: 0 });
  });

  test('when the same day does not exist in the previous month, then it is clamped to that month end', async () => {
    // Mar 1 .. Mar 31 12:00 -> 3 (cancelled and 12:00:01 left out); Feb 1 .. Feb 28 end -> 3.
    expect(await mtd('2025-03-31T12:00:00Z')).toEqual({ count: 3, previousMonthCount: 3, percentChange: 0 });
    // Apr 1 .. Apr 30 -> 3; Mar 1 .. Mar 30 end -> 2: +50%.
    expect(await mtd('2025-04-30T23:59:59.999Z')).toEqual({ count: 3, previousMonthCount: 2, percentChange: 50 });
  });

  test('when the previous month has no orders, then percentChange is null; fewer orders give a negative 2-decimal change', async () => {
    expect(await mtd('2025-01-31T23:59:59Z')).toEqual({ count: 1, previousMonthCount: 0, percentChange: null });
    // May 1 .. May 20 -> 1; Apr 1 .. Apr 20 -> 3: -66.67%.
    expect(await mtd('2025-05-20T00:00:00Z')).toEqual({ count: 1, previousMonthCount: 3, percentChange: -66.67 });
    expect(await mtd('2025-06-10T00:00:00Z')).toEqual({ count: 0, previousMonthCount: 1, percentChange: -100 });
  });
});

describe('analytics: rankings', () => {
  let org: OrgFixture;
  const ids: Record<string, string> = {};
  const categoryIds: Record<string, string> = {};
  const Q = { startDate: '2025-06-01T00:00:00Z', endDate: '2025-06-30T23:59:59Z' };
  beforeAll(async () => {
    org = await createOrg();
    const A = { base: org.base, token: org.adminToken };
    for (const [sku, name, category] of [
      ['P-A', 'Alpha', 'Tools'],
      ['P-B', 'Beta', 'Tools'],
      ['P-C', 'Current C', 'Garden'],
      ['P-D', 'Delta', null],
      ['P-E', 'Echo', 'Hardware'],
    ] as const) {
      const r = await call('PUT', '/api/products', { ...A, body: { sku, name, category } });
      if (r.status >= 300) throw new Error(`product: ${r.status} ${r.text}`);
    }
    for (const r of await dbQuery<{ sku: string; id: string; cid: string | null; cname: string | null }>(
      'select p.sku, p.id, c.id as cid, c.name as cname from product p left join category c on c.id = p.category_id where p.organization_id = $1',
      [org.organizationId],
    )) {
      ids[r.sku] = r.id;
      if (r.cname && r.cid) categoryIds[r.cname] = r.cid;
    }
    const rep = await call('PUT', '/api/organizations/salesreps', {
      ...A,
      body: { firstName: 'Rita', lastName: 'Record', email: `${uniq('rep')}@example.com`, repNumber: 'R1' },
    });
    if (rep.status !== 201) throw new Error(`rep: ${rep.status} ${rep.text}`);
    await place(org, [
      {
        date: '2025-06-02T00:00:00Z',
        cust: 'C-B',
        rep: 'R2',
        repName: 'Sam Second',
        lines: [
          ['P-A', 1, 10],
          ['P-B', 2, 5],
        ],
      }, // 20
      {
        date: '2025-06-03T00:00:00Z',
        cust: 'C-A',
        company: 'Old Name A',
        rep: 'R1',
        lines: [
          ['P-C', 1, 14, 'Line C'],
          ['GONE', 1, 4, 'Gone Thing'],
        ],
      }, // 18
      { date: '2025-06-20T00:00:00Z', cust: 'C-A', company: 'Acme A', status: 'Cancelled', lines: [['P-A', 100, 1]] },
      {
        date: '2025-06-04T00:00:00Z',
        cust: 'C-C',
        lines: [
          ['P-D', 3, 2],
          ['GONE', 2, 2, 'Gone Thing'],
        ],
      }, // 10
      { date: '2025-06-05T00:00:00Z', cust: 'C-0', rep: 'R1', lines: [['P-E', 1, 10]] }, // 10
      { date: '2025-06-06T00:00:00Z', cust: 'C-Z', rep: 'R3', cur: 'EUR', lines: [['P-A', 1, 99]] },
      { date: '2025-07-01T00:00:00Z', cust: 'C-Z', rep: 'R3', lines: [['P-A', 1, 99]] }, // after the range
    ]);
  });

  test('when products are ranked, then by revenue with ties by sku, current product name, and productId null for unknown skus', async () => {
    expect(await ok(org, '/api/analytics/products/top-by-revenue', Q)).toEqual([
      { productId: ids['P-C'], sku: 'P-C', name: 'Current C', revenue: 14, unitsOrdered: 1 },
      { productId: ids['P-A'], sku: 'P-A', name: 'Alpha', revenue: 10, unitsOrdered: 1 },
      { productId: ids['P-B'], sku: 'P-B', name: 'Beta', revenue: 10, unitsOrdered: 2 },
      { productId: ids['P-E'], sku: 'P-E', name: 'Echo', revenue: 10, unitsOrdered: 1 },
      { productId: null, sku: 'GONE', name: 'Gone Thing', revenue: 8, unitsOrdered: 3 },
      { productId: ids['P-D'], sku: 'P-D', name: 'Delta', revenue: 6, unitsOrdered: 3 },
    ]);
    expect((await ok(org, '/api/analytics/products/top-by-revenue', { ...Q, limit: 2 })).map((r: { sku: string }) => r.sku)).toEqual(['P-C', 'P-A']);
  });

  test('when categories are ranked, then by the current category with ties by id and an Uncategorized bucket', async () => {
    expect(await ok(org, '/api/analytics/categories/top-by-revenue', Q)).toEqual([
      { categoryId: categoryIds.Tools, name: 'Tools', revenue: 20 },
      { categoryId: categoryIds.Garden, name: 'Garden', revenue: 14 },
      { categoryId: null, name: 'Uncategorized', revenue: 14 },
      { categoryId: categoryIds.Hardware, name: 'Hardware', revenue: 10 },
    ]);
    expect(await ok(org, '/api/analytics/categories/top-by-revenue', { ...Q, limit: 1 })).toEqual([
      { categoryId: categoryIds.Tools, name: 'Tools', revenue: 20 },
    ]);
    // Moving P-A to Garden moves its revenue there at once (current category).
    expect((await call('PUT', '/api/products', { base: org.base, token: org.adminToken, body: { sku: 'P-A', category: 'Garden' } })).status).toBeLessThan(300);
    expect(await ok(org, '/api/analytics/categories/top-by-revenue', { ...Q, limit: 2 })).toEqual([
      { categoryId: categoryIds.Garden, name: 'Garden', revenue: 24 },
      { categoryId: null, name: 'Uncategorized', revenue: 14 },
    ]);
    expect((await call('PUT', '/api/products', { base: org.base, token: org.adminToken, body: { sku: 'P-A', category: 'Tools' } })).status).toBeLessThan(300);
  });

  test('when customers are ranked, then by revenue with order counts, ties by customerNumber, and the name of the latest counted order', async () => {
    expect(await ok(org, '/api/analytics/customers/top-by-revenue', Q)).toEqual([
      { customerNumber: 'C-B', companyName: 'Company C-B', revenue: 20, orderCount: 1 },
      { customerNumber: 'C-A', companyName: 'Old Name A', revenue: 18, orderCount: 1 },
      { customerNumber: 'C-0', companyName: 'Company C-0', revenue: 10, orderCount: 1 },
      { customerNumber: 'C-C', companyName: 'Company C-C', revenue: 10, orderCount: 1 },
    ]);
    expect(await ok(org, '/api/analytics/customers/top-by-revenue', { ...Q, limit: 1 })).toEqual([
      { customerNumber: 'C-B', companyName: 'Company C-B', revenue: 20, orderCount: 1 },
    ]);
  });

  test("when sales reps are ranked, then by the order's primary rep, with the rep record's name, and orders without a rep as Unassigned", async () => {
    expect(await ok(org, '/api/analytics/sales-reps/top-by-revenue', Q)).toEqual([
      { salesRepNumber: 'R1', name: 'Rita Record', revenue: 28, orderCount: 2 },
      { salesRepNumber: 'R2', name: 'Sam Second', revenue: 20, orderCount: 1 },
      { salesRepNumber: null, name: 'Unassigned', revenue: 10, orderCount: 1 },
    ]);
    expect(await ok(org, '/api/analytics/sales-reps/top-by-revenue', { ...Q, limit: 2, currencyCode: 'EUR' })).toEqual([
      { salesRepNumber: 'R3', name: 'Rep R3', revenue: 99, orderCount: 1 },
    ]);
  });
});

describe('analytics: the rollups follow every order change at once', () => {
  test('when orders are cancelled and back, edited, moved, soft- and hard-deleted, then every figure follows', async () => {
    const org = await createOrg();
    const Q = { startDate: '2025-01-01T00:00:00Z', endDate: '2025-12-31T23:59:59Z' };
    const o1 = {
      date: '2025-02-10T08:00:00Z',
      cust: 'K1',
      rep: 'R1',
      lines: [
        ['S1', 2, 5],
        ['S2', 1, 1.25],
      ] as Line[],
      orderNumber: uniq('X-'),
    };
    const o2 = { date: '2025-03-10T08:00:00Z', cust: 'K2', lines: [['S1', 1, 5]] as Line[], orderNumber: uniq('X-') };
    const [r1, r2] = await place(org, [o1, o2]);
    const revenue = async () => (await ok(org, '/api/analytics/revenue', Q)).totalRevenue;
    const trend = async () =>
      (await ok(org, '/api/analytics/orders/trend', { startDate: '2025-02-01T00:00:00Z', endDate: '2025-04-30T00:00:00Z' })).map(
        (e: { orderCount: number }) => e.orderCount,
      );
    const products = async () =>
      (await ok(org, '/api/analytics/products/top-by-revenue', Q)).map((p: { sku: string; revenue: number; unitsOrdered: number }) => [
        p.sku,
        p.revenue,
        p.unitsOrdered,
      ]);
    expect(await revenue()).toBe(16.25);
    expect(await trend()).toEqual([1, 1, 0]);

    // Cancel through the API (Pending -> Cancelled).
    expect((await call('PUT', `/api/orders/${r2.id}`, { base: org.base, token: org.adminToken, body: { orderStatus: 'Cancelled' } })).status).toBe(200);
    expect(await revenue()).toBe(11.25);
    expect(await trend()).toEqual([1, 0, 0]);
    expect(await ok(org, '/api/analytics/active-customers', Q)).toEqual({ activeCustomers: 1, percentChange: null });

    // Back to Pending by re-import (orderNumber matches), with new quantities and a new date in April.
    await place(org, [
      {
        ...o2,
        status: 'Pending',
        date: '2025-04-05T00:00:00Z',
        lines: [
          ['S1', 3, 5],
          ['S3', 1, 0.1],
        ],
      },
    ]);
    expect(await revenue()).toBe(26.35);
    expect(await trend()).toEqual([1, 0, 1]);
    expect(await products()).toEqual([
      ['S1', 25, 5],
      ['S2', 1.25, 1],
      ['S3', 0.1, 1],
    ]);

    // Another customer and currency by re-import: leaves USD.
    await place(org, [{ ...o1, cur: 'CAD', cust: 'K9' }]);
    expect(await revenue()).toBe(15.1);
    expect(await ok(org, '/api/analytics/revenue', { ...Q, currencyCode: 'CAD' })).toEqual({ totalRevenue: 11.25, currencyCode: 'CAD' });
    expect((await ok(org, '/api/analytics/customers/top-by-revenue', { ...Q, currencyCode: 'CAD' }))[0]).toMatchObject({
      customerNumber: 'K9',
      revenue: 11.25,
      orderCount: 1,
    });
    expect(await ok(org, '/api/analytics/sales-reps/top-by-revenue', Q)).toEqual([{ salesRepNumber: null, name: 'Unassigned', revenue: 15.1, orderCount: 1 }]);

    // Soft delete (active:false) and back.
    await place(org, [
      {
        ...o2,
        date: '2025-04-05T00:00:00Z',
        lines: [
          ['S1', 3, 5],
          ['S3', 1, 0.1],
        ],
        active: false,
      },
    ]);
    expect(await revenue()).toBe(0);
    expect(await products()).toEqual([]);
    await place(org, [
      {
        ...o2,
        date: '2025-04-05T00:00:00Z',
        lines: [
          ['S1', 3, 5],
          ['S3', 1, 0.1],
        ],
        active: true,
      },
    ]);
    expect(await revenue()).toBe(15.1);

    // Hard delete (the rows go; the lines cascade).
    await dbQuery('delete from sales_order where id = $1', [r2.id]);
    expect(await revenue()).toBe(0);
    expect(await ok(org, '/api/analytics/revenue', { ...Q, currencyCode: 'CAD' })).toEqual({ totalRevenue: 11.25, currencyCode: 'CAD' });
    await dbQuery('delete from order_item where order_id = $1 and sku = $2', [r1.id, 'S2']);
    expect(await ok(org, '/api/analytics/revenue', { ...Q, currencyCode: 'CAD' })).toEqual({ totalRevenue: 10, currencyCode: 'CAD' });

    // The rollups equal a recomputation from the raw rows.
    const raw = await dbQuery<{ rev: string; n: string }>(
      `select coalesce(sum(i.sub_total), 0)::text as rev, count(distinct o.id)::text as n from sales_order o join order_item i on i.order_id = o.id
        where o.organization_id = $1 and o.active and o.order_status <> 'Cancelled'`,
      [org.organizationId],
    );
    const rolled = await dbQuery<{ rev: string; n: string }>(
      'select sum(revenue)::text as rev, sum(order_count)::text as n from analytics_daily where organization_id = $1',
      [org.organizationId],
    );
    expect([Number(rolled[0].rev), Number(rolled[0].n)]).toEqual([Number(raw[0].rev), Number(raw[0].n)]);
  });

  test("when an order is created through POST /api/orders, then it is in today's figures before the response returns", async () => {
    const org = await createOrg();
    const b = body({ date: '', cust: 'N1', lines: [['Q', 3, 1.5]] });
    delete (b as { orderDate?: string }).orderDate;
    delete (b as { orderNumber?: string }).orderNumber;
    expect((await call('POST', '/api/orders', { base: org.base, token: org.adminToken, body: b })).status).toBe(201);
    const now = Date.now();
    const q = { startDate: new Date(now - 3_600_000).toISOString(), endDate: new Date(now + 60_000).toISOString() };
    expect(await ok(org, '/api/analytics/revenue', q)).toEqual({ totalRevenue: 4.5, currencyCode: 'USD' });
    expect(await ok(org, '/api/analytics/orders/mtd', q)).toMatchObject({ count: 1 });
  });
});

describe('analytics: validation and access', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });
  const bad = async (path: string, q: Record<string, string | number>, fields: string[]) => {
    const res = await get(org, path, q);
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual([...fields].sort());
    return res;
  };

  test('when startDate and endDate are missing, then 400 names both', async () => {
    const res = await bad('/api/analytics/revenue', {}, ['startDate', 'endDate']);
    expect(res.body.errors.startDate).toEqual(['startDate is required.']);
  });

  test('when date-times have no offset or dates are impossible, then 400 per field', async () => {
    await bad('/api/analytics/revenue', { startDate: '2025-01-01T00:00:00', endDate: '2025-02-30' }, ['startDate', 'endDate']);
    await bad('/api/analytics/aov', { startDate: '2025-13-01T00:00:00Z', endDate: 'yesterday' }, ['startDate', 'endDate']);
  });

  test('when endDate is before startDate or the span exceeds 5 years, then 400 on endDate', async () => {
    const r1 = await bad('/api/analytics/revenue/trend', { startDate: '2025-02-01T00:00:00Z', endDate: '2025-01-31T23:59:59Z' }, ['endDate']);
    expect(r1.body.errors.endDate).toEqual(['endDate must not be before startDate.']);
    const r2 = await bad('/api/analytics/orders/trend', { startDate: '2020-01-01T00:00:00Z', endDate: '2025-01-02T00:00:00Z' }, ['endDate']);
    expect(r2.body.errors.endDate).toEqual(['startDate and endDate must be at most 5 years apart.']);
    expect((await get(org, '/api/analytics/orders/trend', { startDate: '2020-01-01T00:00:00Z', endDate: '2024-12-31T23:59:59Z' })).status).toBe(200);
  });

  test('when organizationId is passed, then 400 even when it is the own organization', async () => {
    await bad('/api/analytics/revenue', { ...Q1, organizationId: org.organizationId }, ['organizationId']);
    await bad('/api/analytics/customers/top-by-revenue', { ...Q1, organizationId: 'x' }, ['organizationId']);
  });

  test('when limit is outside 1..100 or not a whole number, or currencyCode is malformed, then 400', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '-3']) await bad('/api/analytics/products/top-by-revenue', { ...Q1, limit }, ['limit']);
    await bad('/api/analytics/sales-reps/top-by-revenue', { ...Q1, limit: 0, currencyCode: 'usd' }, ['limit', 'currencyCode']);
    expect((await get(org, '/api/analytics/categories/top-by-revenue', { ...Q1, limit: 100 })).status).toBe(200);
    expect((await get(org, '/api/analytics/categories/top-by-revenue', { ...Q1, limit: 1 })).status).toBe(200);
  });

  test('when the caller is not an Admin or has no token, then 403 or 401', async () => {
    const member = await createMemberUser(org);
    const paths = [
      'revenue',
      'revenue/trend',
      'orders/trend',
      'orders/mtd',
      'aov',
      'active-customers',
      'products/top-by-revenue',
      'customers/top-by-revenue',
      'categories/top-by-revenue',
      'sales-reps/top-by-revenue',
    ];
    for (const p of paths) {
      const qs = new URLSearchParams(Q1).toString();
      expectProblem(await call('GET', `/api/analytics/${p}?${qs}`, { base: org.base, token: member.token }), 403);
      expect((await call('GET', `/api/analytics/${p}?${qs}`, { base: org.base })).status).toBe(401);
      expect((await call('GET', `/api/analytics/${p}?${qs}`, { base: org.base, token: org.adminToken })).status).toBe(200);
    }
  });
});

describe('analytics: net of partial cancellations and credit notes, in the month of the credit', () => {
  test('when part of an old order is cancelled and another is credited, then the credit month loses the merchandise, the order month keeps it, and a later whole cancel takes both out', async () => {
    const org = await createOrg();
    const t0 = new Date(Date.now() - 60_000).toISOString();
    const now = new Date();
    const month = `${now.toISOString().slice(0, 7)}-01`;
    const monthStart = `${month}T00:00:00Z`;
    const monthEnd = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - 1).toISOString();
    const [a, b] = await place(org, [
      { date: '2025-01-15T10:00:00Z', cust: 'K1', rep: 'R1', lines: [['X', 4, 10], ['Y', 2, 5]] }, // 50
      { date: '2025-01-20T10:00:00Z', cust: 'K2', lines: [['X', 1, 10]] }, // 10
    ]);
    const A = { base: org.base, token: org.adminToken };
    const cancel = await call('POST', `/api/orders/${a.id}/cancel`, { ...A, body: { lines: [{ sku: 'X', quantity: 1 }], reason: 'One fewer' } });
    expect(cancel.status).toBe(200);

    // The order's month keeps its figures; the month of the cancellation loses one X (10).
    const jan = { startDate: '2025-01-01T00:00:00Z', endDate: '2025-01-31T23:59:59.999Z' };
    const thisMonth = { startDate: monthStart, endDate: monthEnd };
    const edges = { startDate: t0, endDate: new Date(Date.now() + 60_000).toISOString() };
    expect((await ok(org, '/api/analytics/revenue', jan)).totalRevenue).toBe(60);
    expect((await ok(org, '/api/analytics/revenue', thisMonth)).totalRevenue).toBe(-10);
    // Read from the raw rows at sub-day edges: the same figure.
    expect((await ok(org, '/api/analytics/revenue', edges)).totalRevenue).toBe(-10);
    const span = { startDate: '2025-01-01T00:00:00Z', endDate: monthEnd };
    expect((await ok(org, '/api/analytics/revenue', span)).totalRevenue).toBe(50);
    const trend = await ok(org, '/api/analytics/revenue/trend', span);
    expect(trend.find((e: { date: string }) => e.date === '2025-01-01').revenue).toBe(60);
    expect(trend.find((e: { date: string }) => e.date === month).revenue).toBe(-10);
    // Order counts are not changed by credits; AOV over the span is net revenue / orders.
    expect((await ok(org, '/api/analytics/orders/trend', span)).find((e: { date: string }) => e.date === month).orderCount).toBe(0);
    expect((await ok(org, '/api/analytics/aov', span)).averageOrderValue).toBe(25);
    const skus = async (q: Record<string, string>) =>
      (await ok(org, '/api/analytics/products/top-by-revenue', q)).map((p: { sku: string; revenue: number; unitsOrdered: number }) => [p.sku, p.revenue, p.unitsOrdered]);
    expect(await skus(span)).toEqual([['X', 40, 4], ['Y', 10, 2]]);
    expect(await skus(edges)).toEqual([['X', -10, -1]]);
    const customers = async (q: Record<string, string>) =>
      (await ok(org, '/api/analytics/customers/top-by-revenue', q)).map((c: { customerNumber: string; revenue: number; orderCount: number }) => [c.customerNumber, c.revenue, c.orderCount]);
    expect(await customers(thisMonth)).toEqual([['K1', -10, 0]]);
    expect(await customers(edges)).toEqual([['K1', -10, 0]]);
    expect((await ok(org, '/api/analytics/sales-reps/top-by-revenue', span)).map((r: { salesRepNumber: string | null; revenue: number }) => [r.salesRepNumber, r.revenue])).toEqual([
      ['R1', 40],
      [null, 10],
    ]);
    // A customer with only a credit in the window is not an active customer.
    expect((await ok(org, '/api/analytics/active-customers', thisMonth)).activeCustomers).toBe(0);

    // A credit note by lines on the invoice of order b takes its line out; one by amount lowers the totals only.
    // (The invoice bills X and a service line Z, so it can still be credited by amount after X.)
    const inv = await call('POST', '/api/invoices', {
      ...A,
      body: invoiceBody({ orderId: b.id, orderNumber: b.orderNumber, invoiceDate: '2025-01-21T00:00:00.000Z', dueDate: '2025-02-20T00:00:00.000Z', items: [{ sku: 'X', productName: 'X', quantity: 1, price: 10 }, { sku: 'Z', productName: 'Z', quantity: 1, price: 10 }] }),
    });
    expect(inv.status).toBe(201);
    expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, A)).status).toBe(200);
    const byLines = await call('POST', '/api/credit-notes', { ...A, body: { invoiceId: inv.body.id, lines: [{ sku: 'X', quantity: 1 }], reason: 'Damaged' } });
    expect(byLines.status).toBe(201);
    expect((await ok(org, '/api/analytics/revenue', thisMonth)).totalRevenue).toBe(-20);
    expect(await customers(thisMonth)).toEqual([['K1', -10, 0], ['K2', -10, 0]]);
    const byAmount = await call('POST', '/api/credit-notes', { ...A, body: { invoiceId: inv.body.id, amount: 2.5, reason: 'Goodwill' } });
    expect(byAmount.status).toBe(201);
    expect((await ok(org, '/api/analytics/revenue', thisMonth)).totalRevenue).toBe(-22.5);
    expect((await ok(org, '/api/analytics/revenue', edges)).totalRevenue).toBe(-22.5);
    expect(await customers(thisMonth)).toEqual([['K1', -10, 0], ['K2', -10, 0]]);
    expect(await skus(thisMonth)).toEqual([['X', -20, -2]]);

    // Cancelling the rest of order a takes the order and its credits out together (DESIGN's rule for Cancelled).
    const rest = await call('POST', `/api/orders/${a.id}/cancel`, { ...A, body: { reason: 'All of it' } });
    expect(rest.status).toBe(200);
    expect((await ok(org, '/api/analytics/revenue', jan)).totalRevenue).toBe(10);
    expect((await ok(org, '/api/analytics/revenue', thisMonth)).totalRevenue).toBe(-12.5);
    expect((await ok(org, '/api/analytics/revenue', edges)).totalRevenue).toBe(-12.5);
    // X: order b's line and its credit net to nothing, so it is not listed.
    expect(await skus(span)).toEqual([]);
    expect(await customers(thisMonth)).toEqual([['K2', -10, 0]]);

    // The rollups equal the raw rows: rebuilding them from scratch gives the same figures.
    const before = await dbQuery(`select day::text, revenue::text, order_count::text from analytics_daily where organization_id = $1 and (revenue <> 0 or order_count <> 0) order by day`, [org.organizationId]);
    const raw = await dbQuery(
      `select day::text, sum(rev)::text as revenue, sum(cnt)::text as order_count from (
         select (o.order_date at time zone 'UTC')::date as day, coalesce((select sum(i.sub_total) from order_item i where i.order_id = o.id), 0) as rev, 1 as cnt
           from sales_order o where o.organization_id = $1 and o.active and o.order_status <> 'Cancelled'
         union all
         select (c.occurred_at at time zone 'UTC')::date, -c.amount, 0 from analytics_credit c join sales_order o on o.organization_id = c.organization_id and o.id = c.order_id
          where c.organization_id = $1 and o.active and o.order_status <> 'Cancelled') x group by day having sum(rev) <> 0 or sum(cnt) <> 0 order by day`,
      [org.organizationId],
    );
    expect(before).toEqual(raw);
  });
});
