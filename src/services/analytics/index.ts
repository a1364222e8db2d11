/**
 * Analytics queries (docs/analytics.md). The middle of a range is read from the rollups kept
 * by triggers (whole months, whole days), only the sub-day edges from the raw orders, so a
 * range costs about the same on a big tenant as on a small one and the figures are exact.
 * Every query is scoped by organization and currency; counted orders are active and not Cancelled,
 * net of their credits (partial cancellations, returns, credit notes) in the month of each credit.
 */
import type * as schema from '../../domain/analytics/responses.js';
import type { Out } from '../../domain/contract.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { boundRows, replicaRows } from '../../db/orm-sql.js';
import {
  fillMonths,
  monthSeries,
  monthToDateWindows,
  percentChange,
  previousWindow,
  rankTop,
  requestWindow,
  splitWindow,
  type Window,
} from '../../domain/analytics/index.js';
import { moneyNumber, roundMoney } from '../../domain/money.js';

export interface Scope {
  orgId: string;
  currency: string;
}

export interface Range {
  /** Epoch milliseconds, both inclusive. */
  start: number;
  end: number;
}

const COUNTS = `o.active and lower(o.order_status) <> 'cancelled'`;
const UNCATEGORIZED = 'Uncategorized';

/** Collects the bound parameters while SQL is assembled: each value becomes the next `$n` placeholder. */
class Sql {
  readonly params: unknown[] = [];
  p(v: unknown): string {
    this.params.push(v);
    return `$${this.params.length}`;
  }
  ts(ms: number): string {
    return `${this.p(new Date(ms).toISOString())}::timestamptz`;
  }
  date(d: string): string {
    return `${this.p(d)}::date`;
  }
}

// Reports read the replica when the request was sent there (src/db/replica.ts).
const run = <T>(em: EntityManager, q: Sql, sql: string) => replicaRows<T>(em, sql, q.params);

/** Raw orders of the window that count: `o` rows; the caller picks the columns. */
const rawOrders = (q: Sql, s: Scope, w: Window) =>
  `sales_order o where o.organization_id = ${q.p(s.orgId)} and o.currency_code = ${q.p(s.currency)} and o.order_date >= ${q.ts(w.from)} and o.order_date < ${q.ts(w.to)} and ${COUNTS}`;
/** Credits of the window whose order counts (docs/analytics.md "Credits"): `c` and `o` rows; `lines`: only credits of a sku. */
const rawCredits = (q: Sql, s: Scope, w: Window, lines: boolean) =>
  `analytics_credit c join sales_order o on o.organization_id = c.organization_id and o.id = c.order_id
    where c.organization_id = ${q.p(s.orgId)} and c.occurred_at >= ${q.ts(w.from)} and c.occurred_at < ${q.ts(w.to)} and o.currency_code = ${q.p(s.currency)} and ${COUNTS}${lines ? ' and c.sku is not null' : ''}`;
const orderRevenue = `coalesce((select sum(i.sub_total) from order_item i where i.order_id = o.id), 0)`;

/**
 * One row per (period rollup row or raw order) of the window: `k` (the key column), `rev`, `cnt`
 * (`units` for skus), `m` (YYYY-MM-01 of the row, for trends). `table` is a per-period rollup
 * with a `keyCol`, or analytics_daily (keyCol null).
 */
function pieces(q: Sql, s: Scope, w: Window, kind: 'daily' | 'customer' | 'rep' | 'sku'): string {
  const split = splitWindow(w);
  const parts: string[] = [];
  const scope = () => `organization_id = ${q.p(s.orgId)} and currency_code = ${q.p(s.currency)}`;
  if (kind === 'daily') {
    if (split.allDays)
      parts.push(
        `select null::varchar as k, revenue as rev, order_count as cnt, date_trunc('month', day)::date as m from analytics_daily
          where ${scope()} and day >= ${q.date(split.allDays.from)} and day < ${q.date(split.allDays.to)}`,
      );
    for (const r of split.raw) {
      parts.push(
        `select null::varchar as k, ${orderRevenue} as rev, 1::bigint as cnt, date_trunc('month', o.order_date at time zone 'UTC')::date as m from ${rawOrders(q, s, r)}`,
      );
      parts.push(`select null::varchar as k, -c.amount as rev, 0::bigint as cnt, date_trunc('month', c.occurred_at at time zone 'UTC')::date as m from ${rawCredits(q, s, r, false)}`);
    }
  } else {
    const table = { customer: 'analytics_customer_period', rep: 'analytics_rep_period', sku: 'analytics_sku_period' }[kind];
    const key = { customer: 'customer_number', rep: 'rep_number', sku: 'sku' }[kind];
    const cnt = kind === 'sku' ? 'units' : 'order_count';
    const grains: [string, { from: string; to: string }][] = [
      ...split.days.map((d) => ['D', d] as [string, typeof d]),
      ...split.months.map((m) => ['M', m] as [string, typeof m]),
    ];
    for (const [g, r] of grains)
      parts.push(
        `select ${key}::varchar as k, revenue as rev, ${cnt} as cnt, date_trunc('month', period)::date as m from ${table}
          where ${scope()} and grain = '${g}' and period >= ${q.date(r.from)} and period < ${q.date(r.to)}`,
      );
    const creditKey = { customer: 'o.customer_number', rep: `coalesce(o.primary_sales_rep->>'repNumber', '')`, sku: 'c.sku' }[kind];
    const creditCnt = kind === 'sku' ? '-c.quantity' : '0';
    for (const r of split.raw) {
      if (kind === 'customer')
        parts.push(`select o.customer_number::varchar as k, ${orderRevenue} as rev, 1::bigint as cnt, null::date as m from ${rawOrders(q, s, r)}`);
      else if (kind === 'rep')
        parts.push(
          `select coalesce(o.primary_sales_rep->>'repNumber', '')::varchar as k, ${orderRevenue} as rev, 1::bigint as cnt, null::date as m from ${rawOrders(q, s, r)}`,
        );
      else
        parts.push(
          `select i.sku::varchar as k, i.sub_total as rev, i.quantity::bigint as cnt, null::date as m from order_item i join ${rawOrders(q, s, r).replace(/^sales_order o where /, 'sales_order o on o.id = i.order_id where ')}`,
        );
      parts.push(`select ${creditKey}::varchar as k, -c.amount as rev, ${creditCnt}::bigint as cnt, null::date as m from ${rawCredits(q, s, r, true)}`);
    }
  }
  if (!parts.length) parts.push(`select null::varchar as k, 0::numeric as rev, 0::bigint as cnt, null::date as m where false`);
  return parts.join('\n union all\n');
}

/** Currency of the organization's first created price tier; USD without tiers. */
export async function defaultCurrency(em: EntityManager, orgId: string): Promise<string> {
  const rows = await boundRows<{ currency_code: string }>(em, 'select currency_code from price_tier where organization_id = $1 order by created_at, id limit 1', [orgId]);
  return rows[0]?.currency_code ?? 'USD';
}

async function totals(em: EntityManager, s: Scope, w: Window): Promise<{ revenue: Decimal; orders: number }> {
  const q = new Sql();
  const rows = await run<{ rev: string; cnt: string }>(
    em,
    q,
    `select coalesce(sum(x.rev), 0)::text as rev, coalesce(sum(x.cnt), 0)::text as cnt from (${pieces(q, s, w, 'daily')}) x`,
  );
  return { revenue: new Decimal(rows[0].rev), orders: Number(rows[0].cnt) };
}

export async function revenue(em: EntityManager, s: Scope, r: Range) {
  const t = await totals(em, s, requestWindow(r.start, r.end));
  return { totalRevenue: moneyNumber(t.revenue, s.currency), currencyCode: s.currency } satisfies Out<typeof schema.revenue>;
}

export async function averageOrderValue(em: EntityManager, s: Scope, r: Range) {
  const t = await totals(em, s, requestWindow(r.start, r.end));
  const aov = t.orders === 0 ? new Decimal(0) : roundMoney(t.revenue.div(t.orders), s.currency);
  return { averageOrderValue: moneyNumber(aov, s.currency), currencyCode: s.currency } satisfies Out<typeof schema.averageOrderValue>;
}

async function monthly(em: EntityManager, s: Scope, r: Range): Promise<Map<string, { rev: Decimal; cnt: number }>> {
  const q = new Sql();
  const rows = await run<{ m: string; rev: string; cnt: string }>(
    em,
    q,
    `select to_char(x.m, 'YYYY-MM-DD') as m, sum(x.rev)::text as rev, sum(x.cnt)::text as cnt from (${pieces(q, s, requestWindow(r.start, r.end), 'daily')}) x group by x.m`,
  );
  return new Map(rows.map((x) => [x.m, { rev: new Decimal(x.rev), cnt: Number(x.cnt) }]));
}

export async function revenueTrend(em: EntityManager, s: Scope, r: Range) {
  const found = await monthly(em, s, r);
  return fillMonths(monthSeries(r.start, r.end), found, { rev: new Decimal(0), cnt: 0 }).map((e) => ({
    date: e.date,
    revenue: moneyNumber(e.value.rev, s.currency),
  }));
}

export async function ordersTrend(em: EntityManager, s: Scope, r: Range) {
  const found = await monthly(em, s, r);
  return fillMonths(monthSeries(r.start, r.end), found, { rev: new Decimal(0), cnt: 0 }).map((e) => ({ date: e.date, orderCount: e.value.cnt }));
}

export async function ordersMonthToDate(em: EntityManager, s: Scope, r: Range) {
  const w = monthToDateWindows(r.end);
  const [cur, prev] = [await totals(em, s, w.current), await totals(em, s, w.previous)];
  return { count: cur.orders, previousMonthCount: prev.orders, percentChange: percentChange(cur.orders, prev.orders) } satisfies Out<typeof schema.ordersMonthToDate>;
}

async function activeCustomerCount(em: EntityManager, s: Scope, w: Window): Promise<number> {
  const q = new Sql();
  const rows = await run<{ n: string }>(
    em,
    q,
    `select count(*)::text as n from (select x.k from (${pieces(q, s, w, 'customer')}) x where x.cnt > 0 group by x.k) g`,
  );
  return Number(rows[0].n);
}

export async function activeCustomers(em: EntityManager, s: Scope, r: Range) {
  const w = requestWindow(r.start, r.end);
  const [cur, prev] = [await activeCustomerCount(em, s, w), await activeCustomerCount(em, s, previousWindow(w))];
  return { activeCustomers: cur, percentChange: percentChange(cur, prev) } satisfies Out<typeof schema.activeCustomers>;
}

/** Top rows of a breakdown (key `k`, `rev`, `cnt` = orders, or units for skus) in ranking order, joined by `select`. */
async function ranked(em: EntityManager, s: Scope, r: Range, kind: 'customer' | 'rep' | 'sku', limit: number, select: (inner: string, q: Sql) => string) {
  const q = new Sql();
  const key = kind === 'rep' ? `nullif(x.k, '')` : 'x.k';
  const inner = `select x.k, sum(x.rev) as rev, sum(x.cnt) as cnt from (${pieces(q, s, requestWindow(r.start, r.end), kind)}) x
    group by x.k having sum(x.cnt) <> 0 or sum(x.rev) <> 0 order by sum(x.rev) desc, ${key} collate "C" asc nulls last limit ${q.p(limit)}`;
  const sql = select(inner, q);
  return run<Record<string, string | null>>(em, q, `${sql} order by t.rev desc, ${key.replace('x.', 't.')} collate "C" asc nulls last`);
}

const label = (q: Sql, orgId: string, kind: 'C' | 'R' | 'P') =>
  `left join analytics_label l on l.organization_id = ${q.p(orgId)} and l.kind = '${kind}' and l.key = t.k`;

export async function topProducts(em: EntityManager, s: Scope, r: Range, limit: number) {
  const rows = await ranked(
    em,
    s,
    r,
    'sku',
    limit,
    (inner, q) => `select t.k, t.rev::text as rev, t.cnt::text as cnt, p.id as product_id, coalesce(p.name, l.label) as name
      from (${inner}) t left join product p on p.organization_id = ${q.p(s.orgId)} and p.sku = t.k ${label(q, s.orgId, 'P')}`,
  );
  return rankTop(
    rows.map((x) => ({ key: x.k, revenue: x.rev ?? '0', productId: x.product_id, name: x.name, units: Number(x.cnt) })),
    limit,
  ).map((x) => ({ productId: x.productId, sku: x.key, name: x.name, revenue: moneyNumber(x.revenue, s.currency), unitsOrdered: x.units }));
}

export async function topCustomers(em: EntityManager, s: Scope, r: Range, limit: number) {
  const rows = await ranked(
    em,
    s,
    r,
    'customer',
    limit,
    (inner, q) => `select t.k, t.rev::text as rev, t.cnt::text as cnt, coalesce(c.company_name, l.label) as name
      from (${inner}) t left join customer c on c.organization_id = ${q.p(s.orgId)} and c.customer_number = t.k ${label(q, s.orgId, 'C')}`,
  );
  return rankTop(
    rows.map((x) => ({ key: x.k, revenue: x.rev ?? '0', name: x.name, orders: Number(x.cnt) })),
    limit,
  ).map((x) => ({ customerNumber: x.key, companyName: x.name, revenue: moneyNumber(x.revenue, s.currency), orderCount: x.orders }));
}

/** Orders without a primary rep number form one bucket: salesRepNumber null, name "Unassigned". */
export const UNASSIGNED = 'Unassigned';

export async function topSalesReps(em: EntityManager, s: Scope, r: Range, limit: number) {
  const rows = await ranked(
    em,
    s,
    r,
    'rep',
    limit,
    (inner, q) => `select nullif(t.k, '') as k, t.rev::text as rev, t.cnt::text as cnt,
        case when t.k = '' then '${UNASSIGNED}' else coalesce(nullif(trim(
          case when om.status = 'pending' then concat_ws(' ', om.invited_first_name, om.invited_last_name) else concat_ws(' ', sr.first_name, sr.last_name) end), ''), l.label) end as name
      from (${inner}) t
      left join organization_sales_rep osr on osr.organization_id = ${q.p(s.orgId)} and osr.rep_number = t.k
      left join sales_rep sr on sr.id = osr.sales_rep_id
      left join organization_member om on om.organization_id = osr.organization_id and om.user_id = sr.user_id ${label(q, s.orgId, 'R')}`,
  );
  return rankTop(
    rows.map((x) => ({ key: x.k, revenue: x.rev ?? '0', name: x.name, orders: Number(x.cnt) })),
    limit,
  ).map((x) => ({ salesRepNumber: x.key, name: x.name, revenue: moneyNumber(x.revenue, s.currency), orderCount: x.orders }));
}

/** Categories by the product's current category; lines of skus without one (or without a product) are "Uncategorized". */
export async function topCategories(em: EntityManager, s: Scope, r: Range, limit: number) {
  const q = new Sql();
  const rows = await run<{ k: string | null; rev: string; name: string }>(
    em,
    q,
    `select c.id::text as k, coalesce(c.name, '${UNCATEGORIZED}') as name, sum(t.rev)::text as rev
       from (select x.k, sum(x.rev) as rev, sum(x.cnt) as cnt from (${pieces(q, s, requestWindow(r.start, r.end), 'sku')}) x group by x.k) t
       left join product p on p.organization_id = ${q.p(s.orgId)} and p.sku = t.k
       left join category c on c.organization_id = ${q.p(s.orgId)} and c.id = p.category_id
      group by c.id, c.name having sum(t.cnt) <> 0 or sum(t.rev) <> 0
      order by sum(t.rev) desc, c.id::text collate "C" asc nulls last limit ${q.p(limit)}`,
  );
  return rankTop(
    rows.map((x) => ({ key: x.k, revenue: x.rev, name: x.name })),
    limit,
  ).map((x) => ({ categoryId: x.key, name: x.name, revenue: moneyNumber(x.revenue, s.currency) }));
}
