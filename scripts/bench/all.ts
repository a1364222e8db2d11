import '../../src/compat/node20.js';
/**
 * `npm run bench`: every benchmark, one table (issue 18 item 1).
 *
 * Starts one stack (mode 'test' with production timings, free ports, pg_stat_statements loaded), runs each
 * dist/scripts/bench/<name>.js in turn against it (API_URL, DATABASE_URL, TEMPORAL_ADDRESS), each
 * writing bench/results/<name>.json (rows: scripts/lib/bench-results.ts), then merges the rows
 * into bench/results/latest.json and bench/results/latest.md with the machine it ran on, and puts
 * the markdown table into docs/benchmarks.md between the `bench:start` / `bench:end` markers.
 *
 * Knobs (env): BENCH_ONLY=checkout,commissions (a subset), plus each benchmark's own knobs.
 * A benchmark that fails gets a row saying so; the others still run. Benchmarks not run this time
 * keep their last rows in the table, marked with the time they ran. `--merge-only` runs nothing
 * and only rebuilds the table from bench/results/<name>.json.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RESULTS_DIR, type BenchFile, type BenchRow } from '../lib/bench-results.js';
import { startStack } from '../lib/stack.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const say = (s: string) => console.log(`[bench] ${s}`);
/** Order: the cheap, isolated ones first; catalog last (it seeds the most rows). */
const ORDER = ['commissions', 'checkout', 'analytics', 'import', 'catalog'];

function benchmarks(): string[] {
  const found = readdirSync(HERE)
    .map((f) => /^([a-z0-9-]+)\.js$/.exec(f)?.[1])
    .filter((x): x is string => !!x && x !== 'all');
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
  const rank = (n: string) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
  return found.filter((n) => !only || only.includes(n)).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function run(name: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--enable-source-maps', path.join(HERE, `${name}.js`)], { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const num = (n: number | null, digits = 1) => (n === null || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits }));

function markdown(rows: (BenchRow & { benchmark: string })[], machine: string): string {
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}.`,
    '',
    '| benchmark | operation | figure | floor (same run) | ratio | SQL statements / op | notes |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.benchmark} | ${r.name} | ${num(r.figure)} ${r.unit} | ${r.floor === null ? '–' : `${num(r.floor)} ${r.unit}`} | ${num(r.ratio, 2)} | ${num(r.statementsPerOp, 1)} | ${r.notes.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`,
    ),
    '',
    'ratio: figure/floor for rates, floor/figure for durations (1.0 = at the floor). Statements are counted at the',
    'server with pg_stat_statements (every client: API, workers, the benchmark itself; BEGIN/COMMIT included).',
  ];
  return lines.join('\n');
}

function machineLine(loadBefore: number[], loadAfter: number[]): string {
  const cpus = os.cpus();
  return (
    `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}; ` +
    `load average ${loadBefore[0].toFixed(1)} before, ${loadAfter[0].toFixed(1)} after (a shared machine: other work ran beside the benchmark, so figures are noisy and only ratios within one run compare)`
  );
}

function updateReadme(table: string): void {
  const file = path.resolve('docs/benchmarks.md');
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i) {
    say('docs/benchmarks.md has no bench:start/bench:end markers: table not copied');
    return;
  }
  writeFileSync(file, `${text.slice(0, i + start.length)}\n${table}\n${text.slice(j)}`);
  say('docs/benchmarks.md table updated');
}

async function main(): Promise<void> {
  const mergeOnly = process.argv.includes('--merge-only');
  const names = mergeOnly ? [] : benchmarks();
  if (!names.length && !mergeOnly) throw new Error('no benchmark matches BENCH_ONLY');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const started = new Date();
  const loadBefore = os.loadavg();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'b2b-bench-'));
  say(`benchmarks: ${names.join(', ') || 'none (merging earlier results)'}`);
  const stack = names.length ? await startStack({ mode: 'test', dataDir, say, statementStats: true, productionTimings: true }) : null;
  const exits: Record<string, number> = {};
  if (stack) try {
    for (const name of names) {
      say(`── ${name} ──`);
      exits[name] = await run(name, {
        API_URL: stack.urls.api,
        DATABASE_URL: stack.env.production.DATABASE_URL,
        TEMPORAL_ADDRESS: stack.urls.temporal,
        BENCH_RESULTS_DIR: RESULTS_DIR,
      });
    }
  } finally {
    await stack.stop();
  }
  rmSync(dataDir, { recursive: true, force: true });
  const rows: (BenchRow & { benchmark: string })[] = [];
  for (const name of names) {
    const file = path.join(RESULTS_DIR, `${name}.json`);
    const fresh = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as BenchFile) : null;
    if (fresh && new Date(fresh.ranAt) >= started) rows.push(...fresh.rows.map((r) => ({ ...r, benchmark: name })));
    else
      rows.push({
        benchmark: name,
        name: `bench-${name}`,
        figure: NaN,
        unit: '',
        floor: null,
        ratio: null,
        statementsPerOp: null,
        notes: `no result written in this run (exit code ${exits[name]}${fresh ? `; last result ${fresh.ranAt}` : ''})`,
      });
  }
  // Benchmarks not run this time: their last rows, marked with when they ran.
  const earlier = readdirSync(RESULTS_DIR)
    .map((f) => /^([a-z0-9-]+)\.json$/.exec(f)?.[1])
    .filter((n): n is string => !!n && n !== 'latest' && !names.includes(n))
    .sort((a, b) => (ORDER.includes(a) ? ORDER.indexOf(a) : 99) - (ORDER.includes(b) ? ORDER.indexOf(b) : 99));
  for (const name of earlier) {
    const file = JSON.parse(readFileSync(path.join(RESULTS_DIR, `${name}.json`), 'utf8')) as BenchFile;
    rows.push(...file.rows.map((r) => ({ ...r, benchmark: name, notes: `${r.notes} (run of ${file.ranAt.slice(0, 16).replace('T', ' ')} UTC)` })));
  }
  const machine = machineLine(loadBefore, os.loadavg());
  const table = markdown(rows, machine);
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify({ ranAt: started.toISOString(), machine, rows }, null, 2)}\n`);
  writeFileSync(path.join(RESULTS_DIR, 'latest.md'), `# Benchmarks (npm run bench)\n\n${table}\n`);
  say(`wrote ${path.join(RESULTS_DIR, 'latest.md')} and latest.json`);
  console.log(`\n${table}\n`);
  updateReadme(table);
  if (Object.values(exits).some((c) => c !== 0)) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
