/**
 * Benchmark results (issue 18 item 1; row shape agreed in docs/benchmarks.md): each bench-*.ts
 * writes bench/results/<benchmark>.json with rows of BenchRow; `npm run bench` (scripts/bench/all.ts)
 * merges them into one table. SQL statements are counted at the database with pg_stat_statements
 * (the bench stack loads it: startStack({ statementStats: true })).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export interface BenchRow {
  /** What was measured, e.g. "GET /api/products/{sku}". */
  name: string;
  /** The measured figure, in `unit`. */
  figure: number;
  /** e.g. "req/s", "checkouts/s", "ms", "records/s". */
  unit: string;
  /** The floor measured in the same run, same unit (bare server, empty workflow, COPY, plain aggregate, raw read). */
  floor: number | null;
  /** figure/floor for rates, floor/figure for durations: 1.0 is at the floor, lower is slower. */
  ratio: number | null;
  /** SQL statements per operation counted at the database (pg_stat_statements calls / operations); null when not counted. */
  statementsPerOp: number | null;
  notes: string;
}

export interface BenchFile {
  benchmark: string;
  ranAt: string;
  rows: BenchRow[];
}

export const RESULTS_DIR = path.resolve(process.env.BENCH_RESULTS_DIR ?? 'bench/results');

/** Ratio of a rate (higher is better) to its floor. */
export const rateRatio = (figure: number, floor: number | null): number | null => (floor ? round(figure / floor, 3) : null);
/** Ratio of a duration (lower is better) to its floor: floor / figure. */
export const timeRatio = (figure: number, floor: number | null): number | null => (floor && figure ? round(floor / figure, 3) : null);
export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function writeResults(benchmark: string, rows: BenchRow[]): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${benchmark}.json`);
  const out: BenchFile = { benchmark, ranAt: new Date().toISOString(), rows };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`[bench] wrote ${file}`);
  return file;
}

export interface StatementCounter {
  /** True when pg_stat_statements is loaded in this server. */
  available: boolean;
  /** Forgets every count so far (all databases of the server). */
  reset(): Promise<void>;
  /** Statements executed in this database since reset(), by every client (API, workers, the bench), less this counter's own and the webhook poller's. */
  count(): Promise<number>;
  /**
   * Statements per millisecond the stack still runs when nobody calls it (beyond the webhook poller,
   * which count() leaves out), measured over `ms`; callers subtract rate x elapsed from their counts.
   */
  idleRate(ms?: number): Promise<number>;
  /** The statements since reset(), most frequent first (for notes and for finding what to merge). */
  top(n: number): Promise<{ calls: number; query: string }[]>;
  close(): Promise<void>;
}

/**
 * Counts top-level statements (BEGIN and COMMIT included: they are round trips too) at the server,
 * so statements of the API and of the workers are both counted, whatever sent them.
 */
export async function statementCounter(databaseUrl: string): Promise<StatementCounter> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let available = true;
  try {
    await client.query('create extension if not exists pg_stat_statements');
    await client.query('select 1 from pg_stat_statements limit 1');
  } catch {
    available = false;
  }
  const mine = `query not like '%pg_stat_statements%'`;
  // The webhook outbox poller runs whether or not anybody calls the service: its claim looks for work
  // with one `select exists` a poll interval while it waits, and each fan-out round is BEGIN, the
  // webhook_event claim, COMMIT, then the webhook_delivery read (src/services/webhooks/deliveries.ts).
  // The API's workflow-start outbox relay (src/services/workflow-outbox.ts) claims due rows every 2 s: one
  // statement when nothing is kept. Their statements are told apart by text and left out of every count.
  const count = async (): Promise<number> => {
    if (!available) return NaN;
    const r = await client.query(
      `select coalesce(sum(calls), 0)::bigint as n,
              coalesce(sum(calls) filter (where query like '%from "webhook_event"%"dispatched_at" is null%'), 0)::bigint as event_polls,
              coalesce(sum(calls) filter (where query like '%from "webhook_delivery"%"started_at" is null%'), 0)::bigint as delivery_polls,
              coalesce(sum(calls) filter (where query like 'update workflow_start_outbox o set attempts%'), 0)::bigint as outbox_polls,
              coalesce(sum(calls) filter (where query like 'select exists (select % from webhook_event where dispatched_at is null)%'), 0)::bigint as work_polls
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = current_database() and ${mine}`,
    );
    const row = r.rows[0] as { n: string; event_polls: string; delivery_polls: string; outbox_polls: string; work_polls: string };
    return Number(row.n) - 3 * Number(row.event_polls) - Number(row.delivery_polls) - Number(row.outbox_polls) - Number(row.work_polls);
  };
  return {
    available,
    async reset() {
      if (available) await client.query('select pg_stat_statements_reset()');
    },
    count,
    async idleRate(ms = 3000) {
      if (!available) return 0;
      await client.query('select pg_stat_statements_reset()');
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, ms));
      const n = await count();
      return n / (performance.now() - t0);
    },
    async top(n: number) {
      if (!available) return [];
      const r = await client.query(
        `select calls::int as calls, regexp_replace(query, '\\s+', ' ', 'g') as query from pg_stat_statements s join pg_database d on d.oid = s.dbid
          where d.datname = current_database() and ${mine} order by calls desc limit $1`,
        [n],
      );
      return r.rows as { calls: number; query: string }[];
    },
    async close() {
      await client.end();
    },
  };
}
