import '../../src/compat/node20.js';
/**
 * Catalog benchmark (not a test; issue 18). Seeds tenant A with direct SQL batch inserts and
 * measures, against a bare node:http + pg floor (scripts/lib/catalog-floor.ts, its own process,
 * same JSON, best SQL) in alternating rounds: GET /api/products/{sku}, list page 1, a random page
 * and a random keyset (`after`) page, then one customer, order, invoice and cart read by id (the floor:
 * the row with its children in one statement), with SQL statements per request counted at the server
 * (pg_stat_statements, scripts/lib/bench-results.ts). Then it seeds tenant B, BIG_FACTOR times
 * larger, and measures tenant A again (the same figures should come out: a page's cost depends on
 * its own tenant only) and tenant B itself. Writes bench/results/catalog.json (rows of BenchRow).
 * The machine is shared (2 cores, several processes): figures are noisy, compare within one run.
 *
 * Run:
 *   npm run bench:catalog                      (= npm run build && node dist/scripts/bench/catalog.js)
 * It starts the whole stack (scripts/lib/stack.ts, mode 'test', free ports) unless both
 * API_URL and DATABASE_URL are set, in which case it uses that API and its database.
 * Knobs (env): PRODUCTS of tenant A (10000), BIG_FACTOR (10), TIERS (3), REQUESTS per round (400),
 * ONE_REQUESTS per round for the single-resource reads (1000: they answer in about 1 ms, so 400
 * made rounds of under half a second, and their ratio moved by +-0.1 from run to run), ROUNDS (4),
 * CONCURRENCY (4), BATCH rows per insert statement (10000), WARMUP requests of each read on each
 * server before the first row (1000; see warmUp). For a quick look: ROWS, a
 * regular expression, measures only the rows whose name matches (e.g. ROWS='products/\{sku\}'), and
 * BIG_FACTOR=0 skips tenant B; such a partial run prints its rows and writes no results file.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { rateRatio, round, statementCounter, writeResults, type BenchRow, type StatementCounter } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { request, setupOrganization, type ApiResponse } from '../lib/api-client.js';

const PRODUCTS = Number(process.env.PRODUCTS ?? 10_000);
const BIG_FACTOR = Number(process.env.BIG_FACTOR ?? 10);
const TIERS = Number(process.env.TIERS ?? 3);
const REQUESTS = Number(process.env.REQUESTS ?? 400);
const ONE_REQUESTS = Number(process.env.ONE_REQUESTS ?? 1000);
const WARMUP = Number(process.env.WARMUP ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const BATCH = Number(process.env.BATCH ?? 10_000);
const ROWS = process.env.ROWS ? new RegExp(process.env.ROWS) : null;
const HERE = path.dirname(fileURLToPath(import.meta.url));

const say = (s: string) => console.log(`[bench] ${s}`);

const json = (base: string, method: string, p: string, body?: unknown, token?: string): Promise<ApiResponse> => request(base, method, p, body, { token });

async function setupOrg(base: string): Promise<{ orgId: string; token: string; tiers: string[] }> {
  const tag = Date.now().toString(36);
  return setupOrganization(base, { name: `Bench ${tag}`, tag, tiers: Array.from({ length: TIERS }, (_, i) => `Tier${i + 1}`) });
}

async function seed(databaseUrl: string, orgId: string, tiers: string[], PRODUCTS: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = performance.now();
    for (let from = 1; from <= PRODUCTS; from += BATCH) {
      const to = Math.min(PRODUCTS, from + BATCH - 1);
      await client.query('begin');
      // One multi-row insert per batch (generate_series), then the tier prices of that batch.
      await client.query(
        `insert into product (id, organization_id, sku, name, description, quantity_on_hand, minimum_order_quantity, quantity_increment,
                              weight, weight_unit, upc, active, product_attributes, created_at, updated_at)
         select gen_random_uuid(), $1, 'SKU-' || lpad(g::text, 7, '0'), 'Product ' || g || ' ' || (array['hammer','wrench','drill','saw','glove','tape','bolt','nut'])[1 + g % 8],
                'Description of item number ' || g, g % 500, 1, 1, (g % 100) / 10.0, 'lb', lpad((g * 7919)::text, 12, '0'), true, '{}'::jsonb, now(), now()
           from generate_series($2::int, $3::int) g`,
        [orgId, from, to],
      );
      await client.query(
        `insert into product_price (id, organization_id, product_id, tier, price, at_quantity)
         select gen_random_uuid(), p.organization_id, p.id, t.tier, round((10 + (substr(p.sku, 5)::int % 1000) / 7.0 - t.ord)::numeric, 4), q.at
           from product p
           cross join unnest($2::text[]) with ordinality as t(tier, ord)
           cross join (values (1)) as q(at)
          where p.organization_id = $1 and p.sku between $3 and $4`,
        [orgId, tiers, `SKU-${String(from).padStart(7, '0')}`, `SKU-${String(to).padStart(7, '0')}`],
      );
      await client.query('commit');
      if (to % 50_000 === 0 || to === PRODUCTS) say(`seeded ${to} products (${Math.round((performance.now() - started) / 1000)} s)`);
    }
    await client.query('analyze product');
    await client.query('analyze product_price');
    const plan = await client.query(
      `explain select id from product where organization_id = $1 and (coalesce("sku", '') || ' ' || coalesce("name", '') || ' ' || coalesce("description", '') || ' ' || coalesce("upc", '')) ilike $2`,
      [orgId, '%wrench 12%'],
    );
    say(`search plan: ${plan.rows.map((r: Record<string, string>) => r['QUERY PLAN'].trim()).join(' | ')}`);
  } finally {
    await client.end();
  }
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  statements: number;
}

/** `requests` requests over CONCURRENCY clients after a warm-up; statements counted at the server around the timed part. */
async function measure(base: string, headers: Record<string, string>, pathFor: () => string, requests: number, counter: StatementCounter, clients = CONCURRENCY): Promise<Result> {
  for (let i = 0; i < Math.min(20, Math.ceil(requests / 5)); i++) await fetch(`${base}${pathFor()}`, { headers }).then((r) => r.arrayBuffer());
  await counter.reset();
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < requests) {
      next++;
      const t0 = performance.now();
      const res = await fetch(`${base}${pathFor()}`, { headers });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (res.status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const seconds = (performance.now() - started) / 1000;
  const statements = await counter.count();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { rps: requests / seconds, p50: pct(50), p99: pct(99), errors, requests, statements };
}

/** Rounds alternate floor and API so both see the same machine load; figures are the totals over the rounds. */
async function compare(name: string, api: string, floor: string, token: string, orgId: string, pathFor: () => string, counter: StatementCounter, requests = REQUESTS, clients = CONCURRENCY): Promise<BenchRow | null> {
  if (ROWS && !ROWS.test(name)) return null;
  const a: Result[] = [];
  const f: Result[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    f.push(await measure(floor, { 'x-org': orgId }, pathFor, requests, counter, clients));
    a.push(await measure(api, { authorization: `Bearer ${token}` }, pathFor, requests, counter, clients));
  }
  const sum = (rs: Result[], k: keyof Result) => rs.reduce((t, r) => t + r[k], 0);
  const rate = (rs: Result[]) => sum(rs, 'requests') / rs.reduce((t, r) => t + r.requests / r.rps, 0);
  const med = (rs: Result[], k: 'p50' | 'p99') => rs.map((r) => r[k]).sort((x, y) => x - y)[Math.floor(rs.length / 2)];
  const apiRate = rate(a);
  const floorRate = rate(f);
  const apiStatements = counter.available ? round(sum(a, 'statements') / sum(a, 'requests'), 2) : null;
  const floorStatements = counter.available ? round(sum(f, 'statements') / sum(f, 'requests'), 2) : null;
  const errors = sum(a, 'errors') + sum(f, 'errors');
  const row: BenchRow = {
    name,
    figure: round(apiRate, 1),
    unit: 'req/s',
    floor: round(floorRate, 1),
    ratio: rateRatio(apiRate, floorRate),
    statementsPerOp: apiStatements,
    notes:
      `API p50 ${round(med(a, 'p50'), 2)} ms, p99 ${round(med(a, 'p99'), 1)} ms; floor (bare node:http + pg, same JSON) p50 ${round(med(f, 'p50'), 2)} ms, ` +
      `${floorStatements ?? '?'} statements/request; ${ROUNDS} alternating rounds x ${requests} requests, ${clients} client${clients === 1 ? '' : 's'}` +
      (errors ? `; NON-200 ANSWERS: ${errors}` : ''),
  };
  say(`${name}: ${row.figure} req/s vs floor ${row.floor} (ratio ${row.ratio}), ${apiStatements} statements/request; ${row.notes}`);
  return row;
}

/** The floor server in its own process (scripts/lib/catalog-floor.ts). */
async function startFloor(databaseUrl: string, orgId: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [path.join(HERE, '..', 'lib', 'catalog-floor.js'), databaseUrl, orgId, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`floor server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

const sku = (n: number) => `SKU-${String(n).padStart(7, '0')}`;
const rnd = (n: number) => 1 + Math.floor(Math.random() * n);

/** The catalog rows of one tenant of `size` products: product by sku, list page 1, a random page, a random keyset page. */
async function tenantRows(label: string, api: string, floor: string, t: { orgId: string; token: string }, size: number, counter: StatementCounter): Promise<BenchRow[]> {
  const pages = Math.max(1, Math.floor(size / 50));
  // The floor's OFFSET page costs up to seconds at 100,000 rows: fewer requests there keep the run short.
  const randomPageRequests = size > 20_000 ? Math.min(REQUESTS, 40) : REQUESTS;
  const rows = [
    await compare(`GET /api/products/{sku} [${label}]`, api, floor, t.token, t.orgId, () => `/api/products/${sku(rnd(size))}`, counter, ONE_REQUESTS),
    await compare(`GET /api/products?pageSize=50, page 1 [${label}]`, api, floor, t.token, t.orgId, () => '/api/products?pageSize=50', counter),
    // The same page's latency for one client alone (the row above queues 4 clients on the 2 cores).
    await compare(`GET /api/products?pageSize=50, page 1, 1 client [${label}]`, api, floor, t.token, t.orgId, () => '/api/products?pageSize=50', counter, Math.min(REQUESTS, 200), 1),
    await compare(`GET /api/products?pageSize=50, random page [${label}]`, api, floor, t.token, t.orgId, () => `/api/products?pageSize=50&pageNumber=${rnd(pages)}`, counter, randomPageRequests),
    await compare(`GET /api/products?pageSize=50&after=<random sku> [${label}]`, api, floor, t.token, t.orgId, () => `/api/products?pageSize=50&after=${sku(rnd(size))}`, counter),
  ];
  return rows.filter((r): r is BenchRow => r !== null);
}

/** One customer, order (3 lines), invoice (3 lines) and cart of tenant A, written through the API, for the single-resource reads. */
async function seedResources(api: string, t: { token: string; tiers: string[] }): Promise<{ customerNumber: string; orderId: string; invoiceId: string; cartId: string }> {
  const customerNumber = `BENCH-C${Date.now().toString(36)}`;
  const must = (what: string, r: { status: number; body: any }, status: number) => {
    if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const billingAddress = { address1: '1 Main St', city: 'Springfield', stateProvince: 'IL', zipPostalCode: '62701', country: 'US' };
  must('customer', await json(api, 'PUT', '/api/customers', { customerNumber, companyName: 'Bench Buyer', companyEmail: 'buyer@bench.example', pricing: t.tiers[0] }, t.token), 201);
  const lines = [1, 2, 3].map((n) => ({ sku: sku(n), productName: `Product ${n}`, quantity: n, price: 10 + n }));
  const order = must(
    'order',
    await json(api, 'POST', '/api/orders', {
      customer: { customerNumber, companyName: 'Bench Buyer', companyEmail: 'buyer@bench.example', billingAddress },
      orderType: 'Direct', poNumber: 'PO-BENCH', priceTier: t.tiers[0], currencyCode: 'USD',
      primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Rep' }, items: lines, user: { userId: 'bench', userType: 'Admin' },
    }, t.token),
    201,
  );
  const invoice = must(
    'invoice',
    await json(api, 'POST', '/api/invoices', {
      orderId: order.data.id, customer: { customerNumber, companyName: 'Bench Buyer', companyEmail: 'buyer@bench.example', billingAddress },
      primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Rep', email: 'sam@bench.example', phoneNumber: '555-0101' },
      invoiceDate: '2026-01-10T00:00:00.000Z', dueDate: '2026-02-09T00:00:00.000Z', terms: 'Net30', currencyCode: 'USD', items: lines,
    }, t.token),
    201,
  );
  const cart = must('cart', await json(api, 'POST', `/api/carts/${customerNumber}`, { customerNumber, sku: sku(1), quantity: 2, orderType: 'Standard' }, t.token), 201);
  return { customerNumber, orderId: order.data.id, invoiceId: invoice.id, cartId: cart.shoppingCartId };
}

/** GET of one customer, order, invoice and cart: one bound statement each in the API (issue 18 item 2). */
async function singleReadRows(api: string, floor: string, t: { orgId: string; token: string; tiers: string[] }, counter: StatementCounter): Promise<BenchRow[]> {
  if (ROWS && !['customers', 'orders', 'invoices', 'carts'].some((n) => ROWS.test(`GET /api/${n}/`))) return [];
  const r = await seedResources(api, t);
  const rows = [
    await compare('GET /api/customers/{customerNumber}', api, floor, t.token, t.orgId, () => `/api/customers/${r.customerNumber}`, counter, ONE_REQUESTS),
    await compare('GET /api/orders/{id} (3 lines)', api, floor, t.token, t.orgId, () => `/api/orders/${r.orderId}`, counter, ONE_REQUESTS),
    await compare('GET /api/invoices/{id} (3 lines)', api, floor, t.token, t.orgId, () => `/api/invoices/${r.invoiceId}`, counter, ONE_REQUESTS),
    await compare('GET /api/carts/{id}', api, floor, t.token, t.orgId, () => `/api/carts/${r.cartId}`, counter, ONE_REQUESTS),
  ];
  return rows.filter((x): x is BenchRow => x !== null);
}

/**
 * Before the first row, unmeasured: PostgreSQL writes out the seed (a checkpoint), and both servers
 * answer WARMUP requests of each catalog read. The API process starts cold (its code not yet
 * optimised by the JIT; the 20 warm-up requests of a row were not enough) while the bare floor has
 * little code to warm, so the first rows measured the API's warm-up: product by sku was 0.49-0.55
 * of the floor in the first row and 0.58-0.63 in the same run's later rows.
 */
async function warmUp(databaseUrl: string, api: string, floor: string, t: { orgId: string; token: string }, size: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('checkpoint');
  } catch (e) {
    say(`no checkpoint before measuring (${(e as Error).message})`);
  } finally {
    await client.end();
  }
  const started = performance.now();
  const reads = [() => `/api/products/${sku(rnd(size))}`, () => '/api/products?pageSize=50', () => `/api/products?pageSize=50&after=${sku(rnd(size))}`];
  for (const pathFor of reads) {
    for (const [base, headers] of [
      [floor, { 'x-org': t.orgId }],
      [api, { authorization: `Bearer ${t.token}` }],
    ] as const) {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let i = 0; i < Math.ceil(WARMUP / CONCURRENCY); i++) await fetch(`${base}${pathFor()}`, { headers }).then((r) => r.arrayBuffer());
        }),
      );
    }
  }
  say(`warm-up: ${WARMUP} requests of ${reads.length} reads on each server in ${Math.round((performance.now() - started) / 1000)} s (not measured)`);
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const { api, databaseUrl } = target;
  const counter = await statementCounter(databaseUrl);
  if (!counter.available) say('pg_stat_statements is not loaded: statements per request are not counted');
  let floor: { url: string; stop: () => void } | null = null;
  try {
    const small = await setupOrg(api);
    say(`seeding tenant A: ${PRODUCTS} products x ${small.tiers.length} tiers in batches of ${BATCH}...`);
    await seed(databaseUrl, small.orgId, small.tiers, PRODUCTS);
    floor = await startFloor(databaseUrl, small.orgId);
    await warmUp(databaseUrl, api, floor.url, small, PRODUCTS);
    say(`measuring: ${ROUNDS} rounds x ${REQUESTS} requests per endpoint and server, ${CONCURRENCY} concurrent clients`);
    const rows = await tenantRows(`tenant of ${PRODUCTS.toLocaleString('en-US')}, alone`, api, floor.url, small, PRODUCTS, counter);
    rows.push(...(await singleReadRows(api, floor.url, small, counter)));
    if (BIG_FACTOR > 0) {
      const big = await setupOrg(api);
      const bigSize = PRODUCTS * BIG_FACTOR;
      say(`seeding tenant B: ${bigSize} products (${BIG_FACTOR}x)...`);
      await seed(databaseUrl, big.orgId, big.tiers, bigSize);
      rows.push(...(await tenantRows(`tenant of ${PRODUCTS.toLocaleString('en-US')}, beside a tenant of ${bigSize.toLocaleString('en-US')}`, api, floor.url, small, PRODUCTS, counter)));
      rows.push(...(await tenantRows(`tenant of ${bigSize.toLocaleString('en-US')}`, api, floor.url, big, bigSize, counter)));
    }
    // A partial run (ROWS, BIG_FACTOR=0) prints its rows and leaves the recorded table alone.
    if (!ROWS && BIG_FACTOR > 0) writeResults('catalog', rows);
    console.log('');
    for (const r of rows) console.log(`${r.name.padEnd(100)} ${String(r.figure).padStart(8)} req/s  floor ${String(r.floor).padStart(8)}  ratio ${String(r.ratio).padStart(6)}  stmts ${r.statementsPerOp}`);
  } finally {
    floor?.stop();
    await counter.close();
    await target.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
