/**
 * CPU time per process kind, read from /proc (Linux only; elsewhere every reading is empty), so a
 * benchmark can say which process spends the CPU of an operation (issue 18: "where a goal is
 * missed, the table says why"). A reading sums `utime + stime` of every process on the machine by
 * what its command line names (the Temporal server, the worker, the API, PostgreSQL, ...); the
 * difference of two readings taken around a timed window, divided by the operations in it, is the
 * CPU per operation of each kind. Processes that start and end inside a window (none of the stack's
 * do: pools keep their connections) are not seen.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Process kinds: the first pattern a command line matches names its kind (processes matching none are not read). */
const KINDS: [string, RegExp][] = [
  ['temporal', /\btemporal\S* server start-dev\b/],
  ['worker', /\bworker\.js\b/],
  ['api', /\bserver\.js\b/],
  ['postgres', /\bpostgres\b/],
  ['minio', /\bminio\b/],
  ['smtp', /smtp-catcher\.js/],
  ['provider', /provider-sandbox/],
];

let ticksPerSecond: number | null = null;
function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU milliseconds by process id, with each process's kind (the benchmark's own process is `bench`). */
export type CpuReading = Map<number, { kind: string; ms: number }>;

export function readCpu(): CpuReading {
  const reading: CpuReading = new Map();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return reading;
  }
  const msPerTick = 1000 / clockTicks();
  for (const p of pids) {
    try {
      const pid = Number(p);
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      // Fields after the command name in parentheses: state is the 3rd field, utime the 14th, stime the 15th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const kind = pid === process.pid ? 'bench' : kindOf(readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' '));
      if (kind) reading.set(pid, { kind, ms: ticks * msPerTick });
    } catch {
      // The process ended while being read.
    }
  }
  return reading;
}

function kindOf(cmdline: string): string | null {
  for (const [kind, re] of KINDS) if (re.test(cmdline)) return kind;
  return null;
}

/** Adds each kind's CPU between two readings to `into` (processes present in both). */
export function addCpu(into: Map<string, number>, before: CpuReading, after: CpuReading): void {
  for (const [pid, a] of after) {
    const b = before.get(pid);
    if (!b) continue;
    into.set(a.kind, (into.get(a.kind) ?? 0) + (a.ms - b.ms));
  }
}

/** "temporal 91.3, worker 74.0, ... (all 230.1)": milliseconds per operation, largest first, kinds under 0.5 ms left out. */
export function cpuPerOp(total: Map<string, number>, operations: number): string {
  if (total.size === 0 || operations === 0) return 'not measured (no /proc)';
  const per = [...total].map(([k, ms]) => [k, ms / operations] as const).sort((a, b) => b[1] - a[1]);
  const all = per.reduce((s, [, ms]) => s + ms, 0);
  return `${per
    .filter(([, ms]) => ms >= 0.5)
    .map(([k, ms]) => `${k} ${ms.toFixed(1)}`)
    .join(', ')} (all ${all.toFixed(1)})`;
}
