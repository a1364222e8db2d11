import '../src/compat/node20.js';
/**
 * Catalog benchmark (not a test). Seeds a large catalog with direct SQL batch inserts and
 * measures GET /api/products?pageSize=50, GET /api/products/:sku and GET /api/products/search
 * with a few concurrent clients, printing requests/second and p50/p99 latency.
 *
 * Run:
 *   npm run bench:catalog                      (= npm run build && node dist/scripts/bench-catalog.js)
 * It starts the whole stack (scripts/lib/stack.ts, mode 'test', free ports) unless both
 * API_URL and DATABASE_URL are set, in which case it uses that API and its database.
 * Knobs (env): PRODUCTS (100000), TIERS (3), REQUESTS per endpoint (2000), CONCURRENCY (4),
 * BATCH rows per insert statement (10000).
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { benchTarget } from './lib/bench-target.js';

const PRODUCTS = Number(process.env.PRODUCTS ?? 100_000);
const TIERS = Number(process.env.TIERS ?? 3);
const REQUESTS = Number(process.env.REQUESTS ?? 2000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const BATCH = Number(process.env.BATCH ?? 10_000);

const say = (s: string) => console.log(`[bench] ${s}`);

async function json(base: string, method: string, p: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function setupOrg(api: string): Promise<{ orgId: string; token: string; tiers: string[] }> {
  const tag = Date.now().toString(36);
  const email = `bench-${tag}@example.com`;
  const password = 'bench password 1';
  const org = await json(api, 'POST', '/api/organizations', { Organization: { Name: `Bench ${tag}`, BillingCountry: 'US' }, User: { FirstName: 'Ben', LastName: 'Chmark', Email: email, Password: password } });
  if (org.status !== 201) throw new Error(`create org: ${org.status} ${JSON.stringify(org.body)}`);
  const login = await json(api, 'POST', '/api/auth/token', { Email: email, Password: password });
  if (login.status !== 200) throw new Error(`login: ${login.status}`);
  const token = login.body.AccessToken as string;
  const tiers = Array.from({ length: TIERS }, (_, i) => `Tier${i + 1}`);
  for (const t of tiers) {
    const r = await json(api, 'POST', '/api/organizations/price-tiers', { Name: t, CurrencyCode: 'USD' }, token);
    if (r.status !== 200) throw new Error(`tier: ${r.status}`);
  }
  return { orgId: org.body.OrganizationId, token, tiers };
}

async function seed(databaseUrl: string, orgId: string, tiers: string[]): Promise<void> {
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
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(name: string, api: string, token: string, pathFor: (i: number) => string): Promise<Result> {
  // Warm-up (connection pool, plans).
  for (let i = 0; i < 20; i++) await fetch(`${api}${pathFor(i)}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < REQUESTS) {
      const i = next++;
      const t0 = performance.now();
      const res = await fetch(`${api}${pathFor(i)}`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (res.status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { name, rps: REQUESTS / seconds, p50: pct(50), p99: pct(99), errors };
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const { api, databaseUrl } = target;
  try {
    const { orgId, token, tiers } = await setupOrg(api);
    say(`seeding ${PRODUCTS} products x ${tiers.length} tiers in batches of ${BATCH}...`);
    await seed(databaseUrl, orgId, tiers);
    say(`measuring: ${REQUESTS} requests per endpoint, ${CONCURRENCY} concurrent clients`);
    const rnd = () => 1 + Math.floor(Math.random() * PRODUCTS);
    const pages = Math.max(1, Math.floor(PRODUCTS / 50));
    const results = [
      await measure('GET /api/products?pageSize=50 (first page)', api, token, () => '/api/products?pageSize=50'),
      await measure('GET /api/products?pageSize=50&pageNumber=<random>', api, token, () => `/api/products?pageSize=50&pageNumber=${1 + Math.floor(Math.random() * pages)}`),
      await measure('GET /api/products/:sku (random)', api, token, () => `/api/products/SKU-${String(rnd()).padStart(7, '0')}`),
      await measure('GET /api/products/search?searchTerm=<random sku> ', api, token, () => `/api/products/search?searchTerm=SKU-${String(rnd()).padStart(7, '0')}`),
    ];
    console.log('');
    console.log(`catalog: ${PRODUCTS} products, ${tiers.length} tiers; ${REQUESTS} requests each, concurrency ${CONCURRENCY}`);
    for (const r of results)
      console.log(`${r.name.padEnd(55)} ${r.rps.toFixed(1).padStart(8)} req/s   p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99.toFixed(1).padStart(7)} ms   non-200: ${r.errors}`);
  } finally {
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
