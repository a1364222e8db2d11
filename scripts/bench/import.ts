import '../../src/compat/node20.js';
/**
 * Import benchmark (not a test). Imports PRODUCTS products with 3 tier prices each from one CSV
 * through the API and the importJob workflow (multipart upload -> MinIO -> chunks of 1,000 ->
 * set-based SQL), then the same file again (every record unchanged, no row written), and beside
 * them a plain COPY of the same rows into the same tables (product, product_price) of another
 * organization, all in the same run. Prints records/second of each.
 *
 * Run: npm run bench:import   (= npm run build && node dist/scripts/bench/import.js)
 * It starts the whole stack (scripts/lib/stack.ts, mode 'test', free ports) unless both API_URL
 * and DATABASE_URL are set. Knobs (env): PRODUCTS (100000).
 * Statements of each import are counted with pg_stat_statements, less those of the benchmark's own
 * status polls (GET /api/imports/{id}, measured alone). Writes bench/results/import.json.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { rateRatio, round, statementCounter, writeResults } from '../lib/bench-results.js';
import { benchTarget } from '../lib/bench-target.js';
import { request, clientIp, setupOrganization, type ApiResponse } from '../lib/api-client.js';

const PRODUCTS = Number(process.env.PRODUCTS ?? 100_000);
const TIERS = ['Tier1', 'Tier2', 'Tier3'];
const say = (s: string) => console.log(`[bench] ${s}`);

const json = (base: string, method: string, p: string, body?: unknown, token?: string): Promise<ApiResponse> => request(base, method, p, body, { token, forwardedFor: clientIp('10.8') });

async function setupOrg(base: string, label: string): Promise<{ orgId: string; token: string }> {
  const tag = `${label}-${Date.now().toString(36)}`;
  return setupOrganization(base, { name: `Bench ${tag}`, tag, tiers: TIERS });
}

interface Row {
  sku: string;
  name: string;
  description: string;
  qty: number;
  weight: string;
  prices: string[];
}

const rowOf = (i: number): Row => ({
  sku: `IMP-${String(i).padStart(7, '0')}`,
  name: `Imported product ${i}`,
  description: `Description of imported item ${i}, "quoted"`,
  qty: i % 500,
  weight: ((i % 100) / 10).toFixed(1),
  prices: TIERS.map((_, t) => (10 + (i % 1000) / 8 - t).toFixed(2)),
});

const csvCell = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

function productCsv(): string {
  const lines = [`sku,name,description,quantityOnHand,weight,${TIERS.map((t) => `price:${t}`).join(',')}`];
  for (let i = 1; i <= PRODUCTS; i++) {
    const r = rowOf(i);
    lines.push([r.sku, r.name, csvCell(r.description), String(r.qty), r.weight, ...r.prices].join(','));
  }
  return `${lines.join('\n')}\n`;
}

async function importThroughApi(api: string, token: string, csv: string): Promise<{ seconds: number; polls: number; jobId: string; job: Record<string, number | string> }> {
  const t0 = performance.now();
  const form = new FormData();
  form.append('kind', 'products');
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'products.csv');
  const res = await fetch(`${api}/api/imports`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const started = (await res.json()) as { jobId: string };
  if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(started)}`);
  for (let polls = 1; ; polls++) {
    const j = await json(api, 'GET', `/api/imports/${started.jobId}`, undefined, token);
    if (['Succeeded', 'SucceededWithErrors', 'Failed', 'Cancelled'].includes(j.body.status)) return { seconds: (performance.now() - t0) / 1000, polls, jobId: started.jobId, job: j.body };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** COPY of the same rows (products, then their tier prices) into the same tables, one transaction. */
async function plainCopy(databaseUrl: string, orgId: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const t0 = performance.now();
    await client.query('begin');
    const ids: string[] = [];
    const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
    const now = new Date().toISOString();
    function* productLines() {
      for (let i = 1; i <= PRODUCTS; i++) {
        const r = rowOf(i);
        const id = randomUUID();
        ids.push(id);
        yield `${id}\t${orgId}\t${r.sku}\t${esc(r.name)}\t${esc(r.description)}\t${r.qty}\t1\t1\t${r.weight}\tt\t${now}\t${now}\n`;
      }
    }
    await pipeline(
      Readable.from(productLines()),
      client.query(copyFrom('copy product (id, organization_id, sku, name, description, quantity_on_hand, minimum_order_quantity, quantity_increment, weight, active, created_at, updated_at) from stdin')),
    );
    function* priceLines() {
      for (let i = 1; i <= PRODUCTS; i++) {
        const r = rowOf(i);
        for (let t = 0; t < TIERS.length; t++) yield `${randomUUID()}\t${orgId}\t${ids[i - 1]}\t${TIERS[t]}\t${r.prices[t]}\t1\n`;
      }
    }
    await pipeline(Readable.from(priceLines()), client.query(copyFrom('copy product_price (id, organization_id, product_id, tier, price, at_quantity) from stdin')));
    await client.query('commit');
    return (performance.now() - t0) / 1000;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const target = await benchTarget(say);
  const { api, databaseUrl } = target;
  try {
    const viaApi = await setupOrg(api, 'api');
    const viaCopy = await setupOrg(api, 'copy');
    const csv = productCsv();
    say(`CSV: ${PRODUCTS} products x ${TIERS.length} tier prices, ${(csv.length / 1e6).toFixed(1)} MB`);

    say('plain COPY of the same rows...');
    const copySeconds = await plainCopy(databaseUrl, viaCopy.orgId);

    const counter = await statementCounter(databaseUrl);
    const idle = 0; // the webhook poller is left out by count(); nothing else runs idle
    say('import through the API and the workflow...');
    await counter.reset();
    const first = await importThroughApi(api, viaApi.token, csv);
    const firstStatements = await counter.count();
    say(`first import: ${JSON.stringify(first.job)}`);

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const fingerprint = async () =>
      (
        await db.query(
          `select (select count(*) from product where organization_id = $1) as products,
                  (select count(*) from product_price where organization_id = $1) as prices,
                  (select max(updated_at) from product where organization_id = $1) as last_update,
                  (select sum(hashtext(id::text)) from product_price where organization_id = $1) as price_ids`,
          [viaApi.orgId],
        )
      ).rows[0] as Record<string, unknown>;
    const before = await fingerprint();
    say('re-import of the same file...');
    await counter.reset();
    const second = await importThroughApi(api, viaApi.token, csv);
    const secondStatements = await counter.count();
    await counter.reset();
    await json(api, 'GET', `/api/imports/${second.jobId}`, undefined, viaApi.token);
    const perPoll = await counter.count();
    await counter.close();
    const stmts = (n: number, polls: number, seconds: number) => (counter.available ? Math.max(0, Math.round(n - polls * perPoll - idle * seconds * 1000)) : null);
    const after = await fingerprint();
    await db.end();
    say(`re-import: ${JSON.stringify(second.job)}`);

    const rate = (s: number) => Math.round(PRODUCTS / s);
    console.log('');
    console.log(`bench:import  ${PRODUCTS} products x ${TIERS.length} tier prices (${PRODUCTS * (1 + TIERS.length)} rows) from CSV`);
    console.log(`plain COPY (products + prices)          ${copySeconds.toFixed(2).padStart(8)} s  ${String(rate(copySeconds)).padStart(8)} records/s`);
    console.log(`API + importJob workflow (first import) ${first.seconds.toFixed(2).padStart(8)} s  ${String(rate(first.seconds)).padStart(8)} records/s  (${(copySeconds / first.seconds).toFixed(2)} of COPY)  created ${first.job.created}`);
    console.log(
      `API + importJob workflow (re-import)     ${second.seconds.toFixed(2).padStart(8)} s  ${String(rate(second.seconds)).padStart(8)} records/s  unchanged ${second.job.unchanged}, created ${second.job.created}, updated ${second.job.updated}; rows written: ${JSON.stringify(before) === JSON.stringify(after) ? 'none' : 'SOME'}`,
    );
    const copyRate = PRODUCTS / copySeconds;
    const perJob = (n: number | null) => (n === null ? '' : `; ${n} statements for the job (${(n / (PRODUCTS / 1000)).toFixed(1)} per 1,000 records)`);
    writeResults('import', [
      {
        name: `product import, ${PRODUCTS.toLocaleString('en-US')} products x ${TIERS.length} prices (first import, one job)`,
        figure: round(PRODUCTS / first.seconds, 0),
        unit: 'records/s',
        floor: round(copyRate, 0),
        ratio: rateRatio(PRODUCTS / first.seconds, copyRate),
        statementsPerOp: stmts(firstStatements, first.polls, first.seconds),
        notes: `${first.seconds.toFixed(1)} s through POST /api/imports, MinIO and the importJob workflow; floor: plain COPY of the same rows in one transaction (${copySeconds.toFixed(1)} s); statements per job${perJob(stmts(firstStatements, first.polls, first.seconds))}`,
      },
      {
        name: `same file again (every record unchanged)`,
        figure: round(PRODUCTS / second.seconds, 0),
        unit: 'records/s',
        floor: round(copyRate, 0),
        ratio: rateRatio(PRODUCTS / second.seconds, copyRate),
        statementsPerOp: stmts(secondStatements, second.polls, second.seconds),
        notes: `${second.seconds.toFixed(1)} s; rows written: ${JSON.stringify(before) === JSON.stringify(after) ? 'none' : 'SOME'}${perJob(stmts(secondStatements, second.polls, second.seconds))}`,
      },
    ]);
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
