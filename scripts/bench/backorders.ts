import '../../src/compat/node20.js';
/**
 * Backorder allocation benchmark (issue 41 item 6, docs/fulfillment.md "Backorders"). One tenant
 * with one tracked product that allows backorders and LINES (10,000) orders each waiting for one
 * unit of it (seeded by SQL, oldest first by order date). One receipt of LINES units, then the
 * allocation the allocateBackorders workflow's activity runs (src/services/stock/backorders.ts
 * `allocateBackorders`), each in its transaction, timed and with its statements counted (the
 * allocation must be set-based: a handful of statements whatever LINES is). Floor: one plain
 * set-based UPDATE of the same LINES order lines (the least any allocation writes), same run.
 * Checks after the run: every line served, reserved = LINES, the oldest order served first.
 * Writes bench/results/backorders.json. Target: the allocation under 10 s.
 *
 * Run: npm run bench:backorders (starts its own stack unless API_URL and DATABASE_URL are set).
 * Knobs (env): LINES (10000).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Sql } from '../../src/db/sql.js';
import { allocateBackorders } from '../../src/services/stock/backorders.js';
import { applyMovements } from '../../src/services/stock/ledger.js';
import { round, timeRatio, writeResults, type BenchRow } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { expectStatus, request, setupOrganization } from '../lib/api-client.js';

const LINES = Number(process.env.LINES ?? 10_000);
const say = (s: string) => console.log(`[bench] ${s}`);

/** LINES orders of one unit each of `sku`, all of it backordered, order dates one second apart (order n is the n-th oldest). */
async function seed(client: pg.Client, orgId: string, sku: string): Promise<void> {
  const started = performance.now();
  await client.query('begin');
  await client.query(
    `insert into sales_order (id, organization_id, order_number, order_date, order_status, order_type, currency_code, customer_number, customer,
                              subtotal, total, fulfillment_managed, created_at, updated_at)
     select gen_random_uuid(), $1, 'BO-' || lpad(g::text, 7, '0'), now() - make_interval(secs => $2::int - g), 'Pending', 'Direct', 'USD', 'C-BENCH',
            jsonb_build_object('customerNumber', 'C-BENCH', 'companyName', 'Bench Co'), 10, 10, true, now(), now()
       from generate_series(1, $2::int) g`,
    [orgId, LINES],
  );
  await client.query(
    `insert into order_item (id, organization_id, order_id, position, sku, product_name, quantity, price, sub_total, backordered_quantity)
     select gen_random_uuid(), o.organization_id, o.id, 0, $2, $2, 1, 10, 10, 1 from sales_order o where o.organization_id = $1 and o.order_number like 'BO-%'`,
    [orgId, sku],
  );
  await client.query('commit');
  await client.query('analyze sales_order');
  await client.query('analyze order_item');
  say(`seeded ${LINES} waiting orders (${Math.round(performance.now() - started)} ms)`);
}

/** One transaction on `client`; `fn` gets an Sql that counts its statements. */
async function timed<T>(client: pg.Client, fn: (sql: Sql) => Promise<T>): Promise<{ ms: number; statements: number; out: T }> {
  let statements = 0;
  const sql: Sql = async <R>(text: string, params: unknown[] = []) => {
    statements++;
    return (await client.query(text, params as never[])).rows as R[];
  };
  const started = performance.now();
  await client.query('begin');
  try {
    const out = await fn(sql);
    await client.query('commit');
    return { ms: performance.now() - started, statements: statements + 2, out };
  } catch (e) {
    await client.query('rollback');
    throw e;
  }
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  try {
    const tag = Date.now().toString(36);
    const org = await setupOrganization(target.api, { name: `Backorder bench ${tag}`, tag });
    const auth = { token: org.token };
    const loc = await expectStatus('location', request(target.api, 'POST', '/api/stock-locations', { name: 'Main', code: 'MAIN' }, auth), 201);
    const sku = `BO-BENCH-${tag}`;
    await expectStatus('product', request(target.api, 'PUT', '/api/products', { sku, name: sku, trackInventory: true, allowBackorder: true }, auth), 201);
    const productId = (await client.query<{ id: string }>('select id from product where organization_id = $1 and sku = $2', [org.orgId, sku])).rows[0].id;
    await seed(client, org.orgId, sku);

    // Floor: the plain set-based write of the same lines (then put back).
    const floor = await timed(client, (sql) => sql(`update order_item set backordered_quantity = 0 where organization_id = $1 and sku = $2 and backordered_quantity > 0`, [org.orgId, sku]));
    await client.query(`update order_item set backordered_quantity = 1 where organization_id = $1 and sku = $2`, [org.orgId, sku]);

    // The receipt (as PUT /api/inventory writes it: the movement, its level, the allocation request), then the allocation.
    const receipt = await timed(client, (sql) => applyMovements(sql, org.orgId, [{ productId, locationId: loc.body.locationId as string, kind: 'receipt', quantity: LINES, reference: 'bench' }]));
    const alloc = await timed(client, (sql) => allocateBackorders(sql, org.orgId, productId));

    const check = (
      await client.query<{ waiting: string; reserved: number; oldest: string; orders: string }>(
        `select (select coalesce(sum(backordered_quantity), 0) from order_item where organization_id = $1 and sku = $2) as waiting,
                (select reserved from stock_level where organization_id = $1 and product_id = $3) as reserved,
                (select count(*) from backorder_allocation where organization_id = $1 and sku = $2) as orders,
                (select o.order_number from backorder_allocation a join sales_order o on o.organization_id = a.organization_id and o.id = a.order_id
                  where a.organization_id = $1 order by o.order_date limit 1) as oldest`,
        [org.orgId, sku, productId],
      )
    ).rows[0];
    say(`receipt: ${round(receipt.ms)} ms, ${receipt.statements} statements`);
    say(`allocation of ${LINES} waiting lines: ${round(alloc.ms)} ms, ${alloc.statements} statements (begin and commit included); allocated ${alloc.out.allocated} units to ${alloc.out.orders.length} orders`);
    say(`floor (one UPDATE of the ${LINES} lines): ${round(floor.ms)} ms`);
    say(`after: ${check.waiting} units waiting, reserved ${check.reserved}, ${check.orders} allocations, oldest served ${check.oldest}`);
    if (Number(check.waiting) !== 0 || check.reserved !== LINES || alloc.out.allocated !== LINES) throw new Error('the allocation did not serve every waiting line exactly once');
    const rows: BenchRow[] = [
      {
        name: `allocate ${LINES} waiting backorder lines on one receipt`,
        figure: round(alloc.ms),
        unit: 'ms',
        floor: round(floor.ms),
        ratio: timeRatio(alloc.ms, floor.ms),
        statementsPerOp: alloc.statements,
        notes: `one transaction (allocateBackorders, set-based); target < 10000 ms; the receipt before it ${round(receipt.ms)} ms, ${receipt.statements} statements`,
      },
    ];
    writeResults('backorders', rows);
    if (alloc.ms > 10_000) throw new Error(`allocation took ${round(alloc.ms)} ms (target 10000)`);
  } finally {
    await client.end();
    await target.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
