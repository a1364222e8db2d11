/**
 * Where a benchmark runs: the API and database named by API_URL and DATABASE_URL, or else a whole
 * stack started for the benchmark (mode 'test', free ports) and stopped by `stop()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startStack } from './stack.js';

export interface BenchTarget {
  api: string;
  databaseUrl: string;
  stop: () => Promise<void>;
}

export async function benchTarget(say: (s: string) => void): Promise<BenchTarget> {
  const api = process.env.API_URL;
  const databaseUrl = process.env.DATABASE_URL;
  if (api && databaseUrl) return { api, databaseUrl, stop: async () => undefined };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'b2b-bench-'));
  say('starting the stack (mode test)...');
  const stack = await startStack({ mode: 'test', dataDir, say });
  return {
    api: stack.urls.api,
    databaseUrl: stack.env.production.DATABASE_URL,
    stop: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
