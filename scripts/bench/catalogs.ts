import '../../src/compat/node20.js';
/**
 * Customer catalog benchmark (issue 40 item 6, docs/catalogs.md). One tenant of PRODUCTS products
 * (100,000) in 10 root categories of 10 subcategories each, three customers of the same tier,
 * each with a user token:
 *   - `plain`: no catalog (the page of before: row_count total, the (organization_id, sku) index);
 *   - `skus`: a contract catalog of CONTRACT_SKUS (400) SKUs;
 *   - `tree`: a catalog including one root category (10% of the products) but one excluded
 *     subcategory, plus CONTRACT_SKUS SKUs elsewhere (about 9,400 products held);
 *   - `contract`: the `tree` catalog and PRICE_LISTS (10) Active price lists assigned to it directly,
 *     each with LIST_ENTRIES (500) entries on products the catalog holds (issue 40 item 6's case).
 * In alternating rounds, same run, it measures for each catalog customer GET /api/products page 1
 * (pageSize 50, exact totalRecords) and GET /api/products/{sku}, against the `plain` customer's same
 * request as the floor (ratio = catalog customer's req/s / plain customer's req/s), with SQL
 * statements per request counted at the server (pg_stat_statements). Writes
 * bench/results/catalogs.json. The machine is shared: compare within one run.
 *
 * Run: npm run build && node dist/scripts/bench/catalogs.js (starts its own stack unless API_URL and
 * DATABASE_URL are set). Knobs (env): PRODUCTS (100000), CONTRACT_SKUS (400), REQUESTS per round (300),
 * ROUNDS (4), CONCURRENCY (4).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { rateRatio, round, statementCounter, writeResults, type BenchRow, type StatementCounter } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { expectStatus, request, setupOrganization } from '../lib/api-client.js';

const PRODUCTS = Number(process.env.PRODUCTS ?? 100_000);
const CONTRACT_SKUS = Number(process.env.CONTRACT_SKUS ?? 400);
const REQUESTS = Number(process.env.REQUESTS ?? 300);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const PRICE_LISTS = Number(process.env.PRICE_LISTS ?? 10);
const LIST_ENTRIES = Number(process.env.LIST_ENTRIES ?? 500);

const say = (s: string) => console.log(`[bench] ${s}`);
const sku = (n: number) => `SKU-${String(n).padStart(7, '0')}`;

/** Products g = 1..PRODUCTS in subcategory (g % 100): root r = sub / 10. */
async function seed(databaseUrl: string, orgId: string, tier: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = performance.now();
    await client.query('begin');
    await client.query(
      `insert into category (id, organization_id, name, parent_id, active, created_at, updated_at)
       select gen_random_uuid(), $1, 'Root ' || r, null, true, now(), now() from generate_series(0, 9) r`,
      [orgId],
    );
    await client.query(
      `insert into category (id, organization_id, name, parent_id, active, created_at, updated_at)
       select gen_random_uuid(), $1, 'Sub ' || s, (select c.id from category c where c.organization_id = $1 and c.name = 'Root ' || (s / 10)), true, now(), now()
         from generate_series(0, 99) s`,
      [orgId],
    );
    for (let from = 1; from <= PRODUCTS; from += 10_000) {
      const to = Math.min(PRODUCTS, from + 9_999);
      await client.query(
        `insert into product (id, organization_id, sku, name, description, category_id, quantity_on_hand, minimum_order_quantity, quantity_increment, active, created_at, updated_at)
         select gen_random_uuid(), $1, 'SKU-' || lpad(g::text, 7, '0'), 'Product ' || g, 'Item ' || g,
                (select c.id from category c where c.organization_id = $1 and c.name = 'Sub ' || (g % 100)), 100, 1, 1, true, now(), now()
           from generate_series($2::int, $3::int) g`,
        [orgId, from, to],
      );
      await client.query(
        `insert into product_price (id, organization_id, product_id, tier, price, at_quantity)
         select gen_random_uuid(), p.organization_id, p.id, $2, 10 + substr(p.sku, 5)::int % 100, 1 from product p
          where p.organization_id = $1 and p.sku between $3 and $4`,
        [orgId, tier, sku(from), sku(to)],
      );
    }
    await client.query('commit');
    await client.query('analyze product');
    await client.query('analyze product_price');
    await client.query('analyze category');
    say(`seeded ${PRODUCTS} products in 110 categories (${Math.round((performance.now() - started) / 1000)} s)`);
  } finally {
    await client.end();
  }
}

/** A customer of `tier` with a user, and that user's token. */
async function customerUser(api: string, admin: string, tier: string, n: string): Promise<{ customerNumber: string; token: string }> {
  const customerNumber = `BENCH-${n}-${Date.now().toString(36)}`;
  const opts = { token: admin };
  await expectStatus('customer', request(api, 'PUT', '/api/customers', { customerNumber, companyName: `Bench ${n}`, companyEmail: `${n}@bench.example`, pricing: tier }, opts), 201);
  const email = `bench-${n}-${Date.now().toString(36)}@example.com`;
  const password = 'bench password 1';
  const user = await expectStatus('user', request(api, 'POST', '/api/users', { FirstName: 'B', LastName: n, Email: email, Password: password }, opts), 201);
  await expectStatus('associate', request(api, 'POST', '/api/organizations/users/associate-customer', { UserId: user.body.UserId, CustomerNumber: customerNumber }, opts), 200);
  const login = await expectStatus('login', request(api, 'POST', '/api/auth/token', { Email: email, Password: password }), 200);
  return { customerNumber, token: login.body.AccessToken as string };
}

interface Result {
  rps: number;
  p50: number;
  requests: number;
  statements: number;
  errors: number;
  total: number | null;
}

async function measure(api: string, token: string, pathFor: () => string, counter: StatementCounter): Promise<Result> {
  const headers = { authorization: `Bearer ${token}` };
  for (let i = 0; i < 20; i++) await fetch(`${api}${pathFor()}`, { headers }).then((r) => r.arrayBuffer());
  await counter.reset();
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let total: number | null = null;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const t0 = performance.now();
        const res = await fetch(`${api}${pathFor()}`, { headers });
        const body = (await res.json()) as { totalRecords?: number };
        latencies.push(performance.now() - t0);
        if (res.status !== 200 && res.status !== 404) errors++;
        if (typeof body.totalRecords === 'number') total = body.totalRecords;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const statements = await counter.count();
  latencies.sort((a, b) => a - b);
  return { rps: REQUESTS / seconds, p50: latencies[Math.floor(latencies.length / 2)], requests: REQUESTS, statements, errors, total };
}

/** Rounds alternate the catalog customer and the plain one so both see the same machine load. */
async function compare(name: string, api: string, tokens: { catalog: string; plain: string }, pathFor: () => string, counter: StatementCounter): Promise<BenchRow> {
  const c: Result[] = [];
  const p: Result[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    p.push(await measure(api, tokens.plain, pathFor, counter));
    c.push(await measure(api, tokens.catalog, pathFor, counter));
  }
  const rate = (rs: Result[]) => rs.reduce((t, x) => t + x.requests, 0) / rs.reduce((t, x) => t + x.requests / x.rps, 0);
  const med = (rs: Result[]) => rs.map((x) => x.p50).sort((a, b) => a - b)[Math.floor(rs.length / 2)];
  const perReq = (rs: Result[]) => (counter.available ? round(rs.reduce((t, x) => t + x.statements, 0) / rs.reduce((t, x) => t + x.requests, 0), 2) : null);
  const errors = [...c, ...p].reduce((t, x) => t + x.errors, 0);
  const row: BenchRow = {
    name,
    figure: round(rate(c), 1),
    unit: 'req/s',
    floor: round(rate(p), 1),
    ratio: rateRatio(rate(c), rate(p)),
    statementsPerOp: perReq(c),
    notes:
      `floor: the same request by a customer of the same tier without catalog (${perReq(p) ?? '?'} statements/request, totalRecords ${p[0].total ?? '-'}); ` +
      `catalog customer p50 ${round(med(c), 2)} ms vs ${round(med(p), 2)} ms, totalRecords ${c[0].total ?? '-'}; ${ROUNDS} alternating rounds x ${REQUESTS} requests, ${CONCURRENCY} clients` +
      (errors ? `; NON-200 ANSWERS: ${errors}` : ''),
  };
  say(`${name}: ${row.figure} req/s vs ${row.floor} (ratio ${row.ratio}), ${row.statementsPerOp} statements/request; ${row.notes}`);
  return row;
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const { api, databaseUrl } = target;
  const counter = await statementCounter(databaseUrl);
  try {
    const tag = Date.now().toString(36);
    const org = await setupOrganization(api, { name: `Catalog bench ${tag}`, tag, tiers: ['Tier1'] });
    await seed(databaseUrl, org.orgId, 'Tier1');
    const plain = await customerUser(api, org.token, 'Tier1', 'plain');
    const skus = await customerUser(api, org.token, 'Tier1', 'skus');
    const tree = await customerUser(api, org.token, 'Tier1', 'tree');
    const priced = await customerUser(api, org.token, 'Tier1', 'contract');
    // Contract SKUs spread over the whole range (none in Root 0, whose subcategories end in 0..9).
    const contract = Array.from({ length: CONTRACT_SKUS }, (_, i) => ({ sku: sku(Math.floor(((i + 0.5) * PRODUCTS) / CONTRACT_SKUS) + 1) }));
    await expectStatus('catalog skus', request(api, 'POST', '/api/catalogs', { name: 'Contract SKUs', selections: contract, customerNumbers: [skus.customerNumber] }, { token: org.token }), 201);
    await expectStatus(
      'catalog tree',
      request(api, 'POST', '/api/catalogs', { name: 'One root', selections: [{ category: 'Root 1' }, { category: 'Sub 13', mode: 'Exclude' }, ...contract], customerNumbers: [tree.customerNumber, priced.customerNumber] }, { token: org.token }),
      201,
    );
    // Ten lists on products of Root 1 (subcategories 10..19: g % 100 in 10..19), each at its own priority, the first pages among them.
    const rootOne = Array.from({ length: PRODUCTS }, (_, i) => i + 1).filter((g) => g % 100 >= 10 && g % 100 <= 19 && g % 100 !== 13);
    for (let l = 0; l < PRICE_LISTS; l++) {
      const list = await expectStatus(`price list ${l}`, request(api, 'POST', '/api/price-lists', { name: `Contract ${l}`, currencyCode: 'USD', priority: 10 + l, status: 'Active' }, { token: org.token }), 201);
      const id = list.body.priceListId as string;
      const entries = rootOne.slice(l * 37, l * 37 + LIST_ENTRIES).map((g) => ({ sku: sku(g), prices: [{ price: 5 + (l % 3), atQuantity: 1 }, { price: 4, atQuantity: 10 }] }));
      await expectStatus(`entries ${l}`, request(api, 'PUT', `/api/price-lists/${id}/entries`, { entries }, { token: org.token }), 200);
      await expectStatus(`assign ${l}`, request(api, 'PUT', `/api/price-lists/${id}/assignments`, { customerNumbers: [priced.customerNumber] }, { token: org.token }), 200);
    }
    const rnd = () => 1 + Math.floor(Math.random() * PRODUCTS);
    const rows = [
      await compare(`GET /api/products?pageSize=50, page 1, customer with a catalog of ${CONTRACT_SKUS} SKUs [${PRODUCTS.toLocaleString('en-US')} products]`, api, { catalog: skus.token, plain: plain.token }, () => '/api/products?pageSize=50', counter),
      await compare(`GET /api/products?pageSize=50, page 1, customer with a catalog of one root category less a subcategory + ${CONTRACT_SKUS} SKUs [${PRODUCTS.toLocaleString('en-US')} products]`, api, { catalog: tree.token, plain: plain.token }, () => '/api/products?pageSize=50', counter),
      await compare(
        `GET /api/products?pageSize=50, page 1, customer with ${PRICE_LISTS} price lists + a catalog (one root category less a subcategory + ${CONTRACT_SKUS} SKUs) vs tier-only customer [${PRODUCTS.toLocaleString('en-US')} products]`,
        api,
        { catalog: priced.token, plain: plain.token },
        () => '/api/products?pageSize=50',
        counter,
      ),
      // Random SKUs: mostly outside the catalog (404), the way a customer's read of a hidden product is answered.
      await compare(`GET /api/products/{random sku}, customer with a catalog of one root category [${PRODUCTS.toLocaleString('en-US')} products]`, api, { catalog: tree.token, plain: plain.token }, () => `/api/products/${sku(rnd())}`, counter),
    ];
    writeResults('catalogs', rows);
  } finally {
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
