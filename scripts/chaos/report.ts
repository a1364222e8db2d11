/** The chaos run's report: printed as tables and written beside the benchmark results (bench/results/chaos.json). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RESULTS_DIR } from '../lib/bench-results.js';
import type { Report } from './reconciliation.js';

export function printReport(r: Report): void {
  const line = (k: string, v: string | number) => console.log(`| ${k.padEnd(58)} | ${String(v).padStart(10)} |`);
  console.log(`\nChaos report: ${r.seconds} s of load from ${r.tenants} tenants; ${r.date}; ${r.machine}; load average ${r.loadAverage}\n`);
  console.log(`| ${'operation'.padEnd(40)} | attempted | acknowledged | retried |`);
  console.log(`|${'-'.repeat(42)}|-----------|--------------|---------|`);
  for (const [k, v] of Object.entries(r.operations))
    console.log(`| ${k.padEnd(40)} | ${String(v.attempted).padStart(9)} | ${String(v.acknowledged).padStart(12)} | ${String(v.retried).padStart(7)} |`);
  console.log('');
  console.log(`| ${'faults injected (SIGKILL, then restart)'.padEnd(58)} | ${'count'.padStart(10)} |`);
  console.log(`|${'-'.repeat(60)}|${'-'.repeat(12)}|`);
  for (const [k, v] of Object.entries(r.faults)) line(k, v);
  if (r.faultFailures) line('restarts that failed', r.faultFailures);
  console.log('');
  console.log(`| ${'loss (goal 0)'.padEnd(58)} | ${'count'.padStart(10)} |`);
  console.log(`|${'-'.repeat(60)}|${'-'.repeat(12)}|`);
  for (const [k, v] of Object.entries(r.loss)) line(k, v);
  console.log('');
  for (const [k, v] of Object.entries(r.info)) console.log(`  ${k}: ${v}`);
  for (const [k, v] of Object.entries(r.details)) {
    console.log(`\n  ${k} (${v.length}):`);
    for (const d of v.slice(0, 10)) console.log(`    ${JSON.stringify(d).slice(0, 400)}`);
  }
}

/** No benchmark rows (`npm run bench` lists the rows of every file there): the report rides beside them. */
export function writeReport(report: Report): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, 'chaos.json');
  writeFileSync(file, `${JSON.stringify({ benchmark: 'chaos', ranAt: report.date, rows: [], report }, null, 2)}\n`);
  return file;
}
