/**
 * Where a benchmark runs: the API, database and Temporal server named by API_URL, DATABASE_URL
 * (and TEMPORAL_ADDRESS), as `npm run bench` passes them, or else a whole stack started for the
 * benchmark (mode 'test', free ports, pg_stat_statements loaded) and stopped by `stop()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStack } from './stack.js';

export interface BenchTarget {
  api: string;
  databaseUrl: string;
  /** host:port of the Temporal frontend (empty when API_URL is given without TEMPORAL_ADDRESS). */
  temporal: string;
  stop: () => Promise<void>;
}

export async function benchTarget(say: (s: string) => void): Promise<BenchTarget> {
  const api = process.env.API_URL;
  const databaseUrl = process.env.DATABASE_URL;
  if (api && databaseUrl) return { api, databaseUrl, temporal: process.env.TEMPORAL_ADDRESS ?? '', stop: async () => undefined };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'b2b-bench-'));
  say('starting the stack (mode test, production timings)...');
  const stack = await startStack({ mode: 'test', dataDir, say, statementStats: true, productionTimings: true });
  return {
    api: stack.urls.api,
    databaseUrl: stack.env.production.DATABASE_URL,
    temporal: stack.urls.temporal,
    stop: async () => {
      await stack.stop();
      // BENCH_KEEP_DATA=true keeps the stack's folder (its logs/ for a look after the run).
      if (process.env.BENCH_KEEP_DATA === 'true') say(`stack data and logs kept in ${dataDir}`);
      else rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
