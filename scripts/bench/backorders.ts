import '../../src/compat/node20.js';
/**
 * Backorder allocation through the real stack (issue 41 item 6, docs/fulfillment.md "Backorders",
 * docs/benchmarks.md "Backorder allocation"). One tenant, one stock location, one tracked product
 * that allows backorders, and LINES (10,000) orders each waiting for one unit of it.
 *
 * - Waiting state: the first order is placed through the API (POST /api/orders with no stock: the
 *   service records the line's backorderedQuantity, makes the order fulfillment-managed, Pending,
 *   writes order.backordered and its fulfillOrder start). The other LINES - 1 are copies of that
 *   order's rows (every column of sales_order and order_item as the service wrote them; new ids,
 *   numbers and order dates one second apart, oldest first), so the allocation finds exactly the
 *   state the service produces. Their fulfillOrder workflows are not started (the allocation
 *   signals them after its commit and tolerates their absence; a running one would only send the
 *   buyer's e-mail afterwards).
 * - Figure: from `PUT /api/inventory` (a receipt of LINES units at the location) until the
 *   database shows no waiting unit left (polled every POLL_MS on its own connection): the API's
 *   receipt and allocation request, the relay's signal (every 2 s), the allocateBackorders
 *   workflow and its activity's one transaction. Broken down into the receipt's answer, the wait
 *   until the allocation's transaction began, and that transaction.
 * - Floor, same run, same rows: the receipt and the allocation's SQL (`applyMovements` then
 *   `allocateBackorders`, src/services/stock/backorders.ts) called directly in one transaction,
 *   rolled back; and, printed beside it, one plain UPDATE of the same LINES lines (rolled back).
 *   Then VACUUM ANALYZE, so the real run does not pay for the floors' dead rows.
 * - Statements: counted at the server with pg_stat_statements (every client: API, relay, worker)
 *   from the receipt until the last waiting unit is gone, less this script's polls and the idle
 *   stack's rate (measured before), as the other benchmarks count.
 * - Checks after the run: nothing waits, reserved = LINES, one allocation per order, every order
 *   Processing. Fails above the goal (10 s) and writes bench/results/backorders.json.
 *
 * Run: npm run bench:backorders (its own stack unless API_URL and DATABASE_URL are set).
 * Knobs (env): LINES (10000), POLL_MS (100), BENCH_NOTE (appended to the row's notes, e.g. the load beside it).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { Sql } from '../../src/db/sql.js';
import { allocateBackorders } from '../../src/services/stock/backorders.js';
import { applyMovements } from '../../src/services/stock/ledger.js';
import { round, statementCounter, timeRatio, writeResults, type BenchRow } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { expectStatus, request, setupOrganization } from '../lib/api-client.js';

const LINES = Number(process.env.LINES ?? 10_000);
const POLL_MS = Number(process.env.POLL_MS ?? 100);
const say = (s: string) => console.log(`[bench] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function columnsOf(client: pg.Client, table: string): Promise<string[]> {
  const r = await client.query<{ c: string }>(
    `select column_name as c from information_schema.columns where table_schema = current_schema() and table_name = $1 and is_generated = 'NEVER' order by ordinal_position`,
    [table],
  );
  return r.rows.map((x) => x.c);
}

/**
 * LINES - 1 copies of the API-placed order `templateId` (its sales_order and order_item rows, every
 * column as the service wrote it), numbered BO-0000001.., dated one second apart before it.
 */
async function cloneWaitingOrders(client: pg.Client, orgId: string, templateId: string): Promise<void> {
  const started = performance.now();
  const n = LINES - 1;
  const override: Record<string, string> = {
    id: 'gen_random_uuid()',
    order_number: `'BO-' || lpad(b.g::text, 7, '0')`,
    order_date: `t.order_date - make_interval(secs => $3::int - b.g + 1)`,
    external_id: 'null',
    origination_cart_id: 'null',
    quote_id: 'null',
  };
  const orderCols = await columnsOf(client, 'sales_order');
  const itemCols = await columnsOf(client, 'order_item');
  await client.query('begin');
  await client.query(`create temporary table bench_clone (g int primary key, id uuid not null) on commit drop`);
  await client.query(`insert into bench_clone select g, gen_random_uuid() from generate_series(1, $1::int) g`, [n]);
  await client.query(
    `insert into sales_order (${orderCols.join(', ')})
     select ${orderCols.map((c) => (c === 'id' ? 'b.id' : c in override ? override[c] : `t.${c}`)).join(', ')}
       from sales_order t cross join bench_clone b
      where t.organization_id = $1 and t.id = $2`,
    [orgId, templateId, n],
  );
  await client.query(
    `insert into order_item (${itemCols.join(', ')})
     select ${itemCols.map((c) => (c === 'id' ? 'gen_random_uuid()' : c === 'order_id' ? 'b.id' : `t.${c}`)).join(', ')}
       from order_item t cross join bench_clone b where t.organization_id = $1 and t.order_id = $2`,
    [orgId, templateId],
  );
  await client.query('commit');
  await client.query('analyze sales_order');
  await client.query('analyze order_item');
  say(`copied the API-placed waiting order ${n} times (${Math.round(performance.now() - started)} ms)`);
}

/** One transaction on `client`, rolled back; `fn` gets an Sql that counts its statements. */
async function rolledBack<T>(client: pg.Client, fn: (sql: Sql) => Promise<T>): Promise<{ ms: number; statements: number; out: T }> {
  let statements = 0;
  const sql: Sql = async <R>(text: string, params: unknown[] = []) => {
    statements++;
    return (await client.query(text, params as never[])).rows as R[];
  };
  const started = performance.now();
  await client.query('begin');
  try {
    const out = await fn(sql);
    return { ms: performance.now() - started, statements: statements + 2, out };
  } finally {
    await client.query('rollback');
  }
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const client = new pg.Client({ connectionString: target.databaseUrl });
  await client.connect();
  const counter = await statementCounter(target.databaseUrl);
  const loadBefore = loadavg()[0];
  try {
    const tag = Date.now().toString(36);
    const org = await setupOrganization(target.api, { name: `Backorder bench ${tag}`, tag });
    const auth = { token: org.token };
    const loc = await expectStatus('location', request(target.api, 'POST', '/api/stock-locations', { name: 'Main', code: 'MAIN' }, auth), 201);
    const locationId = loc.body.locationId as string;
    const sku = `BO-BENCH-${tag}`;
    await expectStatus('product', request(target.api, 'PUT', '/api/products', { sku, name: sku, trackInventory: true, allowBackorder: true, leadTimeDays: 5 }, auth), 201);
    const productId = (await client.query<{ id: string }>('select id from product where organization_id = $1 and sku = $2', [org.orgId, sku])).rows[0].id;

    // The waiting state as the service produces it: one order through the API, nothing in stock.
    const placed = await expectStatus(
      'order',
      request(
        target.api,
        'POST',
        '/api/orders',
        {
          customer: { customerNumber: `C-${tag}`, companyName: 'Bench Co', companyEmail: `bench-${tag}@backorders.example` },
          orderType: 'Direct',
          poNumber: `PO-${tag}`,
          priceTier: 'Retail',
          currencyCode: 'USD',
          primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Rep' },
          items: [{ sku, productName: sku, quantity: 1, price: 10 }],
          user: { userId: 'u-1', userType: 'Admin' },
        },
        auth,
      ),
      201,
    );
    const templateId = placed.body.data.id as string;
    const tpl = (
      await client.query<{ status: string; managed: boolean; backordered: number }>(
        `select o.order_status as status, o.fulfillment_managed as managed, i.backordered_quantity as backordered
           from sales_order o join order_item i on i.organization_id = o.organization_id and i.order_id = o.id where o.organization_id = $1 and o.id = $2`,
        [org.orgId, templateId],
      )
    ).rows[0];
    if (tpl.status !== 'Pending' || !tpl.managed || tpl.backordered !== 1) throw new Error(`the API-placed order does not wait as expected: ${JSON.stringify(tpl)}`);
    await cloneWaitingOrders(client, org.orgId, templateId);
    const waitingNow = async () =>
      Number((await client.query<{ n: string }>('select coalesce(sum(backordered_quantity), 0) as n from order_item where organization_id = $1 and sku = $2', [org.orgId, sku])).rows[0].n);
    if ((await waitingNow()) !== LINES) throw new Error('seeding did not leave LINES waiting units');

    // Floors (same rows, rolled back): the receipt and the allocation's SQL called directly; a plain UPDATE of the lines.
    const floor = await rolledBack(client, async (sql) => {
      await applyMovements(sql, org.orgId, [{ productId, locationId, kind: 'receipt', quantity: LINES, reference: 'bench floor' }]);
      return allocateBackorders(sql, org.orgId, productId);
    });
    if (floor.out.allocated !== LINES) throw new Error(`the floor allocated ${floor.out.allocated} units, not ${LINES}`);
    const plain = await rolledBack(client, (sql) => sql('update order_item set backordered_quantity = 0 where organization_id = $1 and sku = $2 and backordered_quantity > 0', [org.orgId, sku]));
    await client.query('vacuum analyze order_item');
    await client.query('vacuum analyze sales_order');
    await client.query('vacuum analyze stock_level');
    say(`floor: receipt + allocation SQL in one transaction ${round(floor.ms)} ms (${floor.statements} statements); plain UPDATE of the lines ${round(plain.ms)} ms`);

    // The real thing: the receipt through the API, then wait until nothing waits.
    const idle = await counter.idleRate(3000);
    await counter.reset();
    let polls = 0;
    const t0 = performance.now();
    const dbAtStart = Number((await client.query<{ ms: string }>('select extract(epoch from clock_timestamp()) * 1000 as ms')).rows[0].ms);
    polls++;
    const receipt = await request(target.api, 'PUT', '/api/inventory', { items: [{ sku, location: 'MAIN', receive: LINES, reference: 'bench receipt' }] }, auth);
    const receiptMs = performance.now() - t0;
    if (receipt.status !== 200) throw new Error(`PUT /api/inventory: ${receipt.status} ${receipt.bytes.toString('utf8')}`);
    let elapsed = 0;
    for (;;) {
      const r = await client.query<{ waiting: boolean }>(
        'select exists (select 1 from order_item where organization_id = $1 and sku = $2 and backordered_quantity > 0) as waiting',
        [org.orgId, sku],
      );
      polls++;
      elapsed = performance.now() - t0;
      if (!r.rows[0].waiting) break;
      if (elapsed > 120_000) throw new Error('not allocated within 120 s');
      await sleep(POLL_MS);
    }
    const counted = await counter.count();
    const statements = Math.round(counted - polls - idle * elapsed);
    const top = await counter.top(12);
    const began = Number(
      (await client.query<{ ms: string }>('select extract(epoch from min(allocated_at)) * 1000 as ms from backorder_allocation where organization_id = $1 and sku = $2', [org.orgId, sku])).rows[0].ms,
    );
    const untilBegan = began - dbAtStart;
    const loadAfter = loadavg()[0];

    const check = (
      await client.query<{ waiting: string; reserved: number; allocations: string; orders: string; processing: string }>(
        `select (select coalesce(sum(backordered_quantity), 0) from order_item where organization_id = $1 and sku = $2) as waiting,
                (select reserved from stock_level where organization_id = $1 and product_id = $3) as reserved,
                (select count(*) from backorder_allocation where organization_id = $1 and sku = $2) as allocations,
                (select count(distinct order_id) from backorder_allocation where organization_id = $1 and sku = $2) as orders,
                (select count(*) from sales_order where organization_id = $1 and order_status = 'Processing') as processing`,
        [org.orgId, sku, productId],
      )
    ).rows[0];
    say(`receipt answered in ${round(receiptMs)} ms; the allocation's transaction began ${round(untilBegan)} ms after the receipt was sent (relay pass, workflow start, activity) and ran about ${round(elapsed - untilBegan)} ms`);
    say(`allocated ${LINES} waiting lines through the stack in ${round(elapsed)} ms (polled every ${POLL_MS} ms) beside the floor's ${round(floor.ms)} ms`);
    say(`statements from the receipt to the last line allocated: ${statements} (counted ${counted}, less ${polls} polls and idle ${round(idle * elapsed)})`);
    for (const t of top) say(`  ${String(t.calls).padStart(6)}  ${t.query.slice(0, 140)}`);
    say(`after: ${check.waiting} units waiting, reserved ${check.reserved}, ${check.allocations} allocations for ${check.orders} orders, ${check.processing} orders Processing`);
    if (Number(check.waiting) !== 0 || check.reserved !== LINES || Number(check.allocations) !== LINES || Number(check.orders) !== LINES || Number(check.processing) !== LINES)
      throw new Error('the allocation did not serve every waiting line exactly once');
    const extra = process.env.BENCH_NOTE ? `; ${process.env.BENCH_NOTE}` : '';
    const rows: BenchRow[] = [
      {
        name: `allocate ${LINES} waiting backorder lines on one receipt (PUT /api/inventory until nothing waits)`,
        figure: Math.round(elapsed),
        unit: 'ms',
        floor: Math.round(floor.ms),
        ratio: timeRatio(elapsed, floor.ms),
        statementsPerOp: counter.available ? statements : null,
        notes:
          `goal < 10000 ms; through the API, the relay's signal (2 s pass), the allocateBackorders workflow and its one transaction, polled every ${POLL_MS} ms: ` +
          `receipt answered in ${Math.round(receiptMs)} ms, the allocation's transaction began after ${Math.round(untilBegan)} ms and ran about ${Math.round(elapsed - untilBegan)} ms; ` +
          `floor: the receipt and the allocation's SQL called directly on the same rows in one transaction (${floor.statements} statements, rolled back); a plain UPDATE of the ${LINES} lines took ${Math.round(plain.ms)} ms; ` +
          `statements: every client from the receipt to the last line allocated, less the script's polls and the idle rate; ` +
          `waiting state: 1 order placed through POST /api/orders, its rows copied ${LINES - 1} times; ` +
          `load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after, on 2 cores shared with two other helpers' test runs${extra}`,
      },
    ];
    writeResults('backorders', rows);
    if (elapsed > 10_000) throw new Error(`allocation through the stack took ${round(elapsed)} ms (goal 10000)`);
  } finally {
    await counter.close();
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
