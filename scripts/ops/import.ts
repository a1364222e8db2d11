/**
 * Batch importer CLI:
 *   npm run import -- --kind products --file products.csv [--mode validate] [--on-error abort] [--format csv]
 * API from COMMERCE_URL, key from COMMERCE_API_KEY (an Admin API key). Uploads the file through a
 * presigned URL, starts the job, shows a live progress bar (processed/total, rate, ETA), prints
 * the counts and writes the error CSV beside the input (<file>.errors.csv). Exit code 0 when no
 * record failed, 1 otherwise (2 for usage errors).
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { requestOk } from '../lib/api-client.js';

const FINISHED = ['Succeeded', 'SucceededWithErrors', 'Failed', 'Cancelled'];

interface Job {
  jobId: string;
  status: string;
  totalRecords: number | null;
  processed: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  /** Unknown fields and CSV columns, ignored on import, once each. */
  warnings?: { field: string; message: string; count: number }[];
}

function usage(msg: string): never {
  process.stderr.write(`${msg}\nusage: npm run import -- --kind <customers|products|prices|...> --file <path> [--mode apply|validate] [--on-error skip|abort] [--format csv|ndjson|json]\n`);
  process.exit(2);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { kind: { type: 'string' }, file: { type: 'string' }, mode: { type: 'string', default: 'apply' }, 'on-error': { type: 'string', default: 'skip' }, format: { type: 'string' } },
  });
  const base = (process.env.COMMERCE_URL ?? '').replace(/\/$/, '');
  const key = process.env.COMMERCE_API_KEY ?? '';
  if (!values.kind || !values.file) usage('--kind and --file are required.');
  if (!base || !key) usage('Set COMMERCE_URL and COMMERCE_API_KEY.');
  const api = async <T>(method: string, p: string, body?: unknown): Promise<T> => (await requestOk(base, method, p, body, { headers: { 'x-api-key': key }, forwardedFor: null })) as T;

  const file = path.resolve(values.file);
  const data = await readFile(file);
  const format = values.format ?? (/\.(ndjson|jsonl)$/i.test(file) ? 'ndjson' : /\.json$/i.test(file) ? 'json' : 'csv');
  const upload = await api<{ uploadId: string; uploadUrl: string }>('POST', '/api/imports/uploads', { fileName: path.basename(file) });
  const put = await fetch(upload.uploadUrl, { method: 'PUT', body: data });
  if (!put.ok) throw new Error(`upload failed: ${put.status} ${await put.text()}`);
  const started = await api<{ jobId: string }>('POST', '/api/imports', { kind: values.kind, mode: values.mode, onError: values['on-error'], uploadId: upload.uploadId, format });
  process.stdout.write(`job ${started.jobId} started (${values.kind}, ${values.mode}, onError ${values['on-error']})\n`);

  const bar = new cliProgress.SingleBar(
    { format: '{bar} {percentage}% | {value}/{total} records | {rate} rec/s | ETA {eta_formatted} | {status}', hideCursor: true, etaBuffer: 20 },
    cliProgress.Presets.shades_classic,
  );
  const t0 = Date.now();
  bar.start(1, 0, { rate: 0, status: 'Queued' });
  let job: Job;
  for (;;) {
    job = await api<Job>('GET', `/api/imports/${started.jobId}`);
    const secs = (Date.now() - t0) / 1000;
    bar.setTotal(Math.max(1, job.totalRecords ?? 1));
    bar.update(job.processed, { rate: secs > 0 ? Math.round(job.processed / secs) : 0, status: job.status });
    if (FINISHED.includes(job.status)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  bar.stop();
  process.stdout.write(
    `${job.status}: ${job.totalRecords ?? 0} records, created ${job.created}, updated ${job.updated}, unchanged ${job.unchanged}, failed ${job.failed}\n`,
  );
  for (const w of job.warnings ?? []) process.stdout.write(`warning: ${w.message} (${w.count} records)\n`);
  if (job.failed > 0) {
    const res = await fetch(`${base}/api/imports/${job.jobId}/errors?format=csv`, { headers: { 'x-api-key': key } });
    const out = `${file.replace(/\.[^./]+$/, '')}.errors.csv`;
    await writeFile(out, await res.text());
    process.stdout.write(`errors: ${out}\n`);
  }
  return job.failed > 0 || job.status === 'Failed' || job.status === 'Cancelled' ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
