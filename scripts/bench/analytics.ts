import '../../src/compat/node20.js';
/**
 * Analytics benchmark (not a test). Seeds ORDERS orders x 3 lines over 24 months (2024-01 ..
 * 2025-12) in one organization, plus OTHER_ORDERS in each of two other organizations, with
 * set-based SQL through the real triggers (so the rollups are built the way production builds
 * them), and credits (docs/analytics.md "Credits": a returned unit on 2% of the orders 20 days after
 * the order, an amount-only credit of 1.00 on 1% 3 days after); then, for each of the ten analytics endpoints:
 *   - checks the response for a few ranges (aligned, offset edges, one month, 5 years, EUR)
 *     against a plain SQL aggregate over the raw rows, and
 *   - measures p50/p95 over HTTP for REQUESTS requests with random ranges (random edges, so
 *     every request touches raw rows at both ends), CONCURRENCY clients.
 * Prints the load average beside the figures. Exits 1 when a figure differs.
 * Floor: the plain SQL aggregate over the raw rows (the check's query) for FLOOR_SAMPLES random
 * ranges, timed directly on the database; statements per request counted with pg_stat_statements.
 * Writes bench/results/analytics.json.
 *
 * Run: npm run bench:analytics   (= npm run build && node dist/scripts/bench/analytics.js)
 * It starts the stack (scripts/lib/stack.ts, mode 'test') unless API_URL and DATABASE_URL are set.
 * Knobs (env): ORDERS (1000000), OTHER_ORDERS (24000, through the triggers), CUSTOMERS (5000), SKUS (2200; 2000 have
 * a product), REPS (50), REQUESTS per endpoint (200), CONCURRENCY (1).
 */
import { loadavg } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { analyticsBackfillSql } from '../../src/migrations/lib/analytics-sql.js';
import { round, statementCounter, timeRatio, writeResults, type BenchRow } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { request, clientIp, setupOrganization, type ApiResponse } from '../lib/api-client.js';

const ORDERS = Number(process.env.ORDERS ?? 1_000_000);
const OTHER_ORDERS = Number(process.env.OTHER_ORDERS ?? 24_000);
const CUSTOMERS = Number(process.env.CUSTOMERS ?? 5000);
const SKUS = Number(process.env.SKUS ?? 2200);
const REPS = Number(process.env.REPS ?? 50);
const REQUESTS = Number(process.env.REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 1);
const FLOOR_SAMPLES = Number(process.env.FLOOR_SAMPLES ?? 20);
const MONTHS = 24;
const FIRST = Date.UTC(2024, 0, 1);

const say = (s: string) => console.log(`[bench] ${s}`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

type Json = ApiResponse;
const json = (base: string, method: string, p: string, body?: unknown, token?: string): Promise<Json> => request(base, method, p, body, { token, forwardedFor: clientIp('10.8') });

async function setupOrg(base: string, label: string): Promise<{ orgId: string; token: string }> {
  const tag = `${label}-${Date.now().toString(36)}`;
  return setupOrganization(base, { name: `Bench ${tag}`, tag });
}

/** Orders numbered [from, to] of an organization, spread over the 24 months; 3 lines each. */
async function seedOrders(c: pg.Client, orgId: string, prefix: string, from: number, to: number, total: number): Promise<void> {
  const span = MONTHS * 30.4 * 86400;
  // Deterministic pseudo-random figures from g: date, status (3% Cancelled), currency (5% EUR),
  // customer, rep (10% none), active (0.5% soft-deleted), and per line sku, quantity, price.
  // One statement inserts the orders and their lines (a data-modifying CTE): both statement-level
  // triggers then fire after it, which is also the case the order-insert trigger must not double count.
  await c.query(
    `with o as (
       insert into sales_order (id, organization_id, order_number, order_date, order_status, order_type, currency_code, customer_number, customer,
                                primary_sales_rep, rep_number, subtotal, total, active, created_at, updated_at)
       select gen_random_uuid(), $1, $2 || g, to_timestamp($3::float8 / 1000 + floor((g::float8 / $4) * $5) + (g * 7919) % 3600),
              case when g % 33 = 0 then 'Cancelled' when g % 3 = 0 then 'Complete' else 'Pending' end, 'Direct',
              case when g % 20 = 7 then 'EUR' else 'USD' end,
              'C' || lpad(((g * 7919) % $6)::text, 5, '0'),
              jsonb_build_object('customerNumber', 'C' || lpad(((g * 7919) % $6)::text, 5, '0'), 'companyName', 'Company ' || ((g * 7919) % $6)),
              case when g % 10 = 3 then null else jsonb_build_object('repNumber', 'R' || lpad((g % $7)::text, 3, '0'), 'fullName', 'Rep ' || (g % $7)) end,
              null, 0, 0, g % 200 <> 5, now(), now()
         from generate_series($8::bigint, $9::bigint) g
       returning id, order_number)
     insert into order_item (id, organization_id, order_id, position, sku, product_name, quantity, price, sub_total)
     select gen_random_uuid(), $1, o.id, k, 'SKU-' || lpad(((g * 31 + k * 977) % $10)::text, 5, '0'), 'Line product ' || ((g * 31 + k * 977) % $10), q, p, round(q * p, 2)
       from o
       cross join lateral (select substr(o.order_number, length($2) + 1)::bigint as g) n
       cross join generate_series(1, 3) k
       cross join lateral (select 1 + (g * 13 + k) % 5 as q, round((1 + ((g * 17 + k * 13) % 10000) / 100.0)::numeric + (k % 2) * 0.005, 4) as p) v`,
    [orgId, prefix, FIRST, total, span, CUSTOMERS, REPS, from, to, SKUS],
  );
}

/** Credits of the orders `prefix` g in [from, to]: a returned unit of line 1 for g % 50 = 1, 1.00 by amount for g % 97 = 2. */
async function seedCredits(c: pg.Client, orgId: string, prefix: string, from: number, to: number): Promise<void> {
  await c.query(
    `with o as (select o.id, o.order_date, substr(o.order_number, length($2) + 1)::bigint as g from sales_order o
                 where o.organization_id = $1 and o.order_number = any (select $2 || g from generate_series($3::bigint, $4::bigint) g))
     insert into analytics_credit (organization_id, id, order_id, occurred_at, sku, quantity, amount, source_kind, source_id)
     select $1, gen_random_uuid(), o.id, o.order_date + interval '20 days', i.sku, 1, round(i.price, 2), 'return', gen_random_uuid()
       from o join order_item i on i.organization_id = $1 and i.order_id = o.id and i.position = 1 where o.g % 50 = 1
     union all
     select $1, gen_random_uuid(), o.id, o.order_date + interval '3 days', null, 0, 1.00, 'credit_note', gen_random_uuid() from o where o.g % 97 = 2`,
    [orgId, prefix, from, to],
  );
}

async function seed(databaseUrl: string, main: string, others: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const t0 = performance.now();
    // Catalog: 2000 of the SKUS skus have a product, in 20 categories (every 10th product none).
    await c.query(
      `insert into category (id, organization_id, name, active, created_at, updated_at)
       select gen_random_uuid(), $1, 'Category ' || lpad(g::text, 2, '0'), true, now(), now() from generate_series(1, 20) g`,
      [main],
    );
    await c.query(
      `insert into product (id, organization_id, sku, name, category_id, quantity_on_hand, minimum_order_quantity, quantity_increment, active, created_at, updated_at)
       select gen_random_uuid(), $1, 'SKU-' || lpad(g::text, 5, '0'), 'Product ' || g,
              case when g % 10 = 0 then null else (select id from category where organization_id = $1 and name = 'Category ' || lpad((1 + g % 20)::text, 2, '0')) end,
              0, 1, 1, true, now(), now()
         from generate_series(0, $2::int - 1) g`,
      [main, Math.min(2000, SKUS)],
    );
    // The big organization: bulk insert with triggers off (session_replication_role = replica),
    // then the migration's back-fill statement rebuilds every rollup from the raw rows, the way
    // the migration does on an existing database.
    const batches = MONTHS;
    await c.query(`set session_replication_role = replica`);
    for (let b = 0; b < batches; b++) {
      const from = Math.floor((b * ORDERS) / batches) + 1;
      const to = Math.floor(((b + 1) * ORDERS) / batches);
      await seedOrders(c, main, 'B-', from, to, ORDERS);
      await seedCredits(c, main, 'B-', from, to);
      if ((b + 1) % 4 === 0) say(`inserted ${to} orders x 3 lines (${Math.round((performance.now() - t0) / 1000)} s, load ${load()})`);
    }
    await c.query(`set session_replication_role = origin`);
    await c.query('analyze sales_order');
    await c.query('analyze order_item');
    const t1 = performance.now();
    await c.query('begin');
    await c.query('analyze analytics_credit');
    await c.query(
      'delete from analytics_daily; delete from analytics_customer_period; delete from analytics_rep_period; delete from analytics_sku_period; delete from analytics_label',
    );
    await c.query(`set local work_mem = '256MB'`); // as the migration does
    await c.query(analyticsBackfillSql(true));
    await c.query('commit');
    say(`back-filled the rollups in ${Math.round((performance.now() - t1) / 1000)} s`);
    // The other organizations: through the triggers, in batches of a month (as imports would).
    const t2 = performance.now();
    for (const [i, org] of others.entries())
      for (let b = 0; b < batches; b++) {
        const from = Math.floor((b * OTHER_ORDERS) / batches) + 1;
        const to = Math.floor(((b + 1) * OTHER_ORDERS) / batches);
        await seedOrders(c, org, `X${i}-`, from, to, OTHER_ORDERS);
        await seedCredits(c, org, `X${i}-`, from, to);
      }
    const trig = (performance.now() - t2) / 1000;
    say(
      `inserted ${others.length} x ${OTHER_ORDERS} orders x 3 lines through the triggers in ${trig.toFixed(1)} s (${((trig * 1e6) / (others.length * OTHER_ORDERS)).toFixed(0)} us per order incl. insert)`,
    );
    say(`seeded in ${Math.round((performance.now() - t0) / 1000)} s`);
    for (const t of [
      'sales_order',
      'order_item',
      'analytics_daily',
      'analytics_customer_period',
      'analytics_rep_period',
      'analytics_sku_period',
      'analytics_label',
      'analytics_credit',
      'product',
      'category',
    ])
      await c.query(`analyze ${t}`);
    const sizes = await c.query<{ t: string; n: string }>(
      `select 'analytics_daily' as t, count(*)::text as n from analytics_daily union all select 'analytics_customer_period', count(*)::text from analytics_customer_period
       union all select 'analytics_rep_period', count(*)::text from analytics_rep_period union all select 'analytics_sku_period', count(*)::text from analytics_sku_period`,
    );
    say(`rollup rows: ${sizes.rows.map((r) => `${r.t} ${r.n}`).join(', ')}`);
  } finally {
    await c.end();
  }
}

// ------------------------------------------------------------------------------------------
// Plain SQL over the raw rows (the reference figures)

interface Q {
  startDate: string;
  endDate: string;
  currencyCode?: string;
  limit?: number;
}

const COUNTED = `o.organization_id = $1 and o.currency_code = $2 and o.active and o.order_status <> 'Cancelled'`;
const IN_RANGE = `o.order_date between $3::timestamptz and $4::timestamptz`;
/**
 * Net line contributions of the counted orders of organization $1 in currency $2: each line at its
 * order's date, each credit (negative) at its own instant (docs/analytics.md "Credits"); `n.sku`
 * null: a credit by amount, counted in totals only.
 */
const NET = `(select o.customer_number, o.primary_sales_rep, o.order_date as ts, i.sku, i.sub_total as amt, i.quantity::bigint as units
                from sales_order o join order_item i on i.order_id = o.id where ${COUNTED}
              union all
              select o.customer_number, o.primary_sales_rep, c.occurred_at, c.sku, -c.amount, -c.quantity::bigint
                from analytics_credit c join sales_order o on o.organization_id = c.organization_id and o.id = c.order_id where ${COUNTED})`;
const NET_IN_RANGE = `n.ts between $3::timestamptz and $4::timestamptz`;
const num = (v: string | null) => Number(Number(v ?? 0).toFixed(2));

async function expected(c: pg.Client, orgId: string, endpoint: string, q: Q): Promise<unknown> {
  const cur = q.currencyCode ?? 'USD';
  const p = [orgId, cur, q.startDate, q.endDate];
  const limit = q.limit ?? 10;
  const rev = async (from: string, to: string, incl = true) => {
    const upper = incl ? '<=' : '<';
    const r = await c.query<{ rev: string | null; n: string }>(
      `select (select round(sum(n.amt), 2) from ${NET} n where n.ts >= $3::timestamptz and n.ts ${upper} $4::timestamptz)::text as rev,
              (select count(*) from sales_order o where ${COUNTED} and o.order_date >= $3::timestamptz and o.order_date ${upper} $4::timestamptz)::text as n`,
      [orgId, cur, from, to],
    );
    return { rev: num(r.rows[0].rev), n: Number(r.rows[0].n) };
  };
  // Half-up to 2 decimals in integer arithmetic: sign x floor((|a-b| x 10000 x 2 + b) / 2b) / 100.
  const pct = (a: number, b: number) => (b === 0 ? null : (Math.sign(a - b) * Math.floor((Math.abs(a - b) * 20000 + b) / (2 * b))) / 100);
  /** Per key of a ranking: net revenue of lines and line credits (sku not null), and counted orders, in the range. */
  const byKey = (key: (o: string) => string) => `select k, sum(rev) as rev, sum(n) as n from (
      select ${key('n')} as k, n.amt as rev, 0 as n from ${NET} n where n.sku is not null and ${NET_IN_RANGE}
      union all select ${key('o')}, 0, 1 from sales_order o where ${COUNTED} and ${IN_RANGE}) x group by k having sum(rev) <> 0 or sum(n) <> 0`;
  switch (endpoint) {
    case 'revenue':
      return { totalRevenue: (await rev(q.startDate, q.endDate)).rev, currencyCode: cur };
    case 'aov': {
      const t = await rev(q.startDate, q.endDate);
      const r = await c.query<{ v: string }>(`select coalesce(round($1::numeric / nullif($2::numeric, 0), 2), 0)::text as v`, [
        (
          await c.query<{ s: string | null }>(`select sum(n.amt)::text as s from ${NET} n where ${NET_IN_RANGE}`, p)
        ).rows[0].s ?? '0',
        t.n,
      ]);
      return { averageOrderValue: num(r.rows[0].v), currencyCode: cur };
    }
    case 'revenue/trend':
    case 'orders/trend': {
      const r = await c.query<{ m: string; rev: string | null; n: string }>(
        `with months as (select to_char(m, 'YYYY-MM-DD') as m from generate_series(date_trunc('month', $3::timestamptz at time zone 'UTC'), date_trunc('month', $4::timestamptz at time zone 'UTC'), interval '1 month') m)
         select months.m,
                round(coalesce((select sum(n.amt) from ${NET} n where ${NET_IN_RANGE} and to_char(date_trunc('month', n.ts at time zone 'UTC'), 'YYYY-MM-DD') = months.m), 0), 2)::text as rev,
                (select count(*) from sales_order o where ${COUNTED} and ${IN_RANGE} and to_char(date_trunc('month', o.order_date at time zone 'UTC'), 'YYYY-MM-DD') = months.m)::text as n
           from months order by months.m`,
        p,
      );
      return endpoint === 'revenue/trend'
        ? r.rows.map((x) => ({ date: x.m, revenue: num(x.rev) }))
        : r.rows.map((x) => ({ date: x.m, orderCount: Number(x.n) }));
    }
    case 'orders/mtd': {
      const e = new Date(q.endDate);
      const first = new Date(Date.UTC(e.getUTCFullYear(), e.getUTCMonth(), 1));
      const prevFirst = new Date(Date.UTC(e.getUTCFullYear(), e.getUTCMonth() - 1, 1));
      const daysInPrev = new Date(Date.UTC(e.getUTCFullYear(), e.getUTCMonth(), 0)).getUTCDate();
      const cnt = async (from: Date, to: Date, incl: boolean) => (await rev(from.toISOString(), to.toISOString(), incl)).n;
      const count = await cnt(first, e, true);
      const prev =
        e.getUTCDate() > daysInPrev
          ? await cnt(prevFirst, first, false)
          : await cnt(
              prevFirst,
              new Date(
                Date.UTC(
                  e.getUTCFullYear(),
                  e.getUTCMonth() - 1,
                  e.getUTCDate(),
                  e.getUTCHours(),
                  e.getUTCMinutes(),
                  e.getUTCSeconds(),
                  e.getUTCMilliseconds(),
                ),
              ),
              true,
            );
      return { count, previousMonthCount: prev, percentChange: pct(count, prev) };
    }
    case 'active-customers': {
      const s = Date.parse(q.startDate);
      const len = Date.parse(q.endDate) + 1 - s;
      const r = await c.query<{ a: string; b: string }>(
        `select count(distinct o.customer_number) filter (where ${IN_RANGE})::text as a,
                count(distinct o.customer_number) filter (where o.order_date >= $5::timestamptz and o.order_date < $3::timestamptz)::text as b
           from sales_order o where ${COUNTED} and o.order_date >= $5::timestamptz and o.order_date <= $4::timestamptz`,
        [...p, new Date(s - len).toISOString()],
      );
      const [a, b] = [Number(r.rows[0].a), Number(r.rows[0].b)];
      return { activeCustomers: a, percentChange: pct(a, b) };
    }
    case 'products/top-by-revenue': {
      const r = await c.query<{ product_id: string | null; sku: string; name: string; rev: string; units: string }>(
        `select p.id as product_id, t.sku, coalesce(p.name, (select i2.product_name from order_item i2 join sales_order o2 on o2.id = i2.order_id
                  where o2.organization_id = $1 and i2.sku = t.sku and o2.active and o2.order_status <> 'Cancelled' order by o2.order_date desc limit 1)) as name, t.rev::text, t.units::text
           from (select n.sku, sum(n.amt) as rev, sum(n.units) as units from ${NET} n
                  where n.sku is not null and ${NET_IN_RANGE} group by n.sku having sum(n.amt) <> 0 or sum(n.units) <> 0 order by sum(n.amt) desc, n.sku collate "C" limit $5) t
           left join product p on p.organization_id = $1 and p.sku = t.sku order by t.rev desc, t.sku collate "C"`,
        [...p, limit],
      );
      return r.rows.map((x) => ({ productId: x.product_id, sku: x.sku, name: x.name, revenue: num(x.rev), unitsOrdered: Number(x.units) }));
    }
    case 'customers/top-by-revenue': {
      const r = await c.query<{ k: string; name: string; rev: string; n: string }>(
        `select t.k, coalesce(cu.company_name, (select o2.customer->>'companyName' from sales_order o2 where o2.organization_id = $1 and o2.customer_number = t.k
                  and o2.active and o2.order_status <> 'Cancelled' order by o2.order_date desc limit 1)) as name, t.rev::text, t.n::text
           from (${byKey((a) => `${a}.customer_number`)} order by sum(rev) desc, k collate "C" limit $5) t
           left join customer cu on cu.organization_id = $1 and cu.customer_number = t.k order by t.rev desc, t.k collate "C"`,
        [...p, limit],
      );
      return r.rows.map((x) => ({ customerNumber: x.k, companyName: x.name, revenue: num(x.rev), orderCount: Number(x.n) }));
    }
    case 'sales-reps/top-by-revenue': {
      const r = await c.query<{ k: string | null; name: string | null; rev: string; n: string }>(
        `select t.k, case when t.k is null then 'Unassigned' else (select o2.primary_sales_rep->>'fullName' from sales_order o2 where o2.organization_id = $1
                  and o2.primary_sales_rep->>'repNumber' = t.k and o2.active and o2.order_status <> 'Cancelled' order by o2.order_date desc limit 1) end as name, t.rev::text, t.n::text
           from (${byKey((a) => `nullif(${a}.primary_sales_rep->>'repNumber', '')`)} order by sum(rev) desc, k collate "C" nulls last limit $5) t order by t.rev desc, t.k collate "C" nulls last`,
        [...p, limit],
      );
      return r.rows.map((x) => ({ salesRepNumber: x.k, name: x.name, revenue: num(x.rev), orderCount: Number(x.n) }));
    }
    case 'categories/top-by-revenue': {
      const r = await c.query<{ id: string | null; name: string; rev: string }>(
        `select c.id::text as id, coalesce(c.name, 'Uncategorized') as name, sum(n.amt)::text as rev
           from ${NET} n
           left join product p on p.organization_id = $1 and p.sku = n.sku left join category c on c.id = p.category_id
          where n.sku is not null and ${NET_IN_RANGE} group by c.id, c.name having sum(n.amt) <> 0 or sum(n.units) <> 0 order by sum(n.amt) desc, c.id::text collate "C" nulls last limit $5`,
        [...p, limit],
      );
      return r.rows.map((x) => ({ categoryId: x.id, name: x.name, revenue: num(x.rev) }));
    }
  }
  throw new Error(endpoint);
}

// ------------------------------------------------------------------------------------------
// Measuring

const ENDPOINTS = [
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

const qs = (q: Q) => new URLSearchParams(Object.entries(q).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]]))).toString();

/** A random range: start in the first 12 months, end in the last 12, at random times (edges never aligned). */
function randomRange(): Q {
  const s = FIRST + Math.floor(Math.random() * 365 * 86400_000);
  const e = FIRST + 365 * 86400_000 + Math.floor(Math.random() * 364 * 86400_000);
  return { startDate: new Date(s).toISOString(), endDate: new Date(e).toISOString() };
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function measure(api: string, token: string, endpoint: string): Promise<{ p50: number; p95: number; max: number; errors: number }> {
  for (let i = 0; i < 5; i++)
    await fetch(`${api}/api/analytics/${endpoint}?${qs(randomRange())}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());
  const lat: number[] = [];
  let errors = 0;
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      next++;
      const t0 = performance.now();
      const res = await fetch(`${api}/api/analytics/${endpoint}?${qs(randomRange())}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      lat.push(performance.now() - t0);
      if (res.status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  lat.sort((a, b) => a - b);
  return { p50: pct(lat, 50), p95: pct(lat, 95), max: lat[lat.length - 1], errors };
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const { api, databaseUrl } = target;
  let failed = 0;
  try {
    const main = await setupOrg(api, 'main');
    const others = [await setupOrg(api, 'other1'), await setupOrg(api, 'other2')];
    say(`seeding ${ORDERS} orders x 3 lines over ${MONTHS} months (+ ${OTHER_ORDERS} in each of ${others.length} other organizations) through the triggers...`);
    await seed(
      databaseUrl,
      main.orgId,
      others.map((o) => o.orgId),
    );

    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      const checks: Q[] = [
        { startDate: '2024-01-01T00:00:00Z', endDate: '2025-12-31T23:59:59.999Z' },
        { startDate: '2024-03-17T13:37:21.123+02:00', endDate: '2025-10-04T08:15:00-05:00', limit: 25 },
        { startDate: '2025-02-01T00:00:00Z', endDate: '2025-02-28T12:00:00Z', limit: 3 },
        { startDate: '2021-06-01T00:00:00Z', endDate: '2026-05-31T00:00:00Z', currencyCode: 'EUR', limit: 100 },
      ];
      say(`checking ${ENDPOINTS.length} endpoints x ${checks.length} ranges against plain SQL over the raw rows...`);
      for (const endpoint of ENDPOINTS)
        for (const q of checks) {
          const got = await json(api, 'GET', `/api/analytics/${endpoint}?${qs(q)}`, undefined, main.token);
          const want = await expected(c, main.orgId, endpoint, q);
          if (got.status !== 200 || !isDeepStrictEqual(got.body, want)) {
            failed++;
            say(`MISMATCH ${endpoint} ${qs(q)}\n  api: ${got.status} ${JSON.stringify(got.body).slice(0, 600)}\n  sql: ${JSON.stringify(want).slice(0, 600)}`);
          }
        }
      // Another organization's figures are its own.
      const q = checks[0];
      const got = await json(api, 'GET', `/api/analytics/revenue?${qs(q)}`, undefined, others[0].token);
      const want = await expected(c, others[0].orgId, 'revenue', q);
      if (!isDeepStrictEqual(got.body, want)) {
        failed++;
        say(`MISMATCH other organization revenue: ${JSON.stringify(got.body)} vs ${JSON.stringify(want)}`);
      }
      say(failed ? `${failed} figures differ` : `all ${ENDPOINTS.length * checks.length + 1} figures equal the raw-row aggregates`);
    } finally {
      await c.end();
    }

    say(`measuring: ${REQUESTS} requests per endpoint with random ranges, concurrency ${CONCURRENCY}`);
    const rows: string[] = [];
    const results: BenchRow[] = [];
    const counter = await statementCounter(databaseUrl);
    const idle = 0; // the webhook poller is left out by count(); nothing else runs idle
    const raw = new pg.Client({ connectionString: databaseUrl });
    await raw.connect();
    for (const endpoint of ENDPOINTS) {
      const before = load();
      await counter.reset();
      const m0 = performance.now();
      const r = await measure(api, main.token, endpoint);
      const statements = counter.available ? Math.max(0, (await counter.count()) - idle * (performance.now() - m0)) / (REQUESTS + 5) : null;
      const floors: number[] = [];
      for (let i = 0; i < FLOOR_SAMPLES; i++) {
        const t0 = performance.now();
        await expected(raw, main.orgId, endpoint, randomRange());
        floors.push(performance.now() - t0);
      }
      floors.sort((a, b) => a - b);
      const floor = pct(floors, 50);
      results.push({
        name: `GET /api/analytics/${endpoint}`,
        figure: round(r.p50, 1),
        unit: 'ms p50',
        floor: round(floor, 1),
        ratio: timeRatio(r.p50, floor),
        statementsPerOp: statements === null ? null : round(statements, 1),
        notes: `p95 ${r.p95.toFixed(1)} ms, ${REQUESTS} random ranges, ${CONCURRENCY} client(s), ${ORDERS.toLocaleString('en-US')} orders x 3 lines; floor: plain aggregate over the raw rows, p50 of ${FLOOR_SAMPLES}${r.errors ? `; ${r.errors} non-200` : ''}`,
      });
      rows.push(
        `GET /api/analytics/${endpoint}`.padEnd(48) +
          `p50 ${r.p50.toFixed(1).padStart(7)} ms   p95 ${r.p95.toFixed(1).padStart(7)} ms   max ${r.max.toFixed(1).padStart(7)} ms   non-200 ${r.errors}   load ${before}`,
      );
      console.log(rows[rows.length - 1]);
    }
    console.log('');
    console.log(
      `analytics: ${ORDERS} orders x 3 lines over ${MONTHS} months (+ ${others.length} x ${OTHER_ORDERS}); ${REQUESTS} requests each, concurrency ${CONCURRENCY}; figures ${failed ? 'DIFFER' : 'exact'}`,
    );
    for (const r of rows) console.log(r);
    await raw.end();
    await counter.close();
    if (!failed) writeResults('analytics', results);
  } finally {
    await target.stop();
  }
  if (failed) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
