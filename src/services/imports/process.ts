/**
 * The worker side of an import job: claiming one of the organization's running slots,
 * splitting the input into chunk objects, applying one chunk exactly once, and finishing.
 * Each step is idempotent, so the activities calling them can be retried at any point.
 */
import type pg from 'pg';
import { recordKey, WarningTally, type ImportKindName, type JsonRecord } from '../../domain/imports/records.js';
import type { ImportFormat, ImportStatus } from '../../entities/ImportJob.js';
import { importRecords } from '../../metrics.js';
import type { Storage } from '../../adapters/storage.js';
import { applyCustomers } from './customers.js';
import { InputError, readRecords } from './input.js';
import { applyInvoices } from './invoices.js';
import { applyLinks } from './links.js';
import { applyCatalogAssignments } from './catalog-assignments.js';
import { applyPriceListBreaks } from './price-lists.js';
import { applyOrders } from './orders.js';
import { applyInventory } from './inventory.js';
import { applyPrices, applyProducts } from './products.js';
import { inTransaction } from '../../db/sql.js';
import { emitEventOnceSql } from '../webhooks/events.js';
import type { ChunkApplier, ChunkRecord } from './types.js';
import { unknownColumns, unknownFields } from './unknown-fields.js';

/** At most this many jobs of one organization hold a running slot (Running or Paused after start). */
export const MAX_RUNNING_PER_ORG = 5;

export const APPLIERS: Record<ImportKindName, ChunkApplier> = {
  products: applyProducts,
  prices: applyPrices,
  customers: applyCustomers,
  'user-customer-links': applyLinks,
  'catalog-assignments': applyCatalogAssignments,
  'price-lists': applyPriceListBreaks,
  orders: applyOrders,
  invoices: applyInvoices,
  inventory: applyInventory,
};

export const chunkKey = (orgId: string, jobId: string, i: number) => `imports/${orgId}/${jobId}/chunks/${i}.json`;

interface JobRow {
  id: string;
  organization_id: string;
  kind: ImportKindName;
  mode: 'apply' | 'validate';
  on_error: 'skip' | 'abort';
  status: ImportStatus;
  format: ImportFormat;
  input_key: string;
  started_at: Date | null;
  chunk_count: number | null;
  total_records: number | null;
}

/** A job named with its organization: every statement below leads with the key's first column (DESIGN "Scale-out"). */
export interface JobRef {
  organizationId: string;
  jobId: string;
}

async function job(pool: pg.Pool, { organizationId, jobId }: JobRef): Promise<JobRow> {
  const rows = (await pool.query<JobRow>('select * from import_job where organization_id = $1 and id = $2', [organizationId, jobId])).rows;
  if (!rows[0]) throw new Error(`import job ${jobId} not found`);
  return rows[0];
}

/** Takes a running slot when fewer than MAX_RUNNING_PER_ORG jobs of the organization hold one. */
export async function claimSlot(pool: pg.Pool, { organizationId, jobId }: JobRef): Promise<{ claimed: boolean; status: ImportStatus }> {
  return inTransaction(pool, async (sql) => {
    const [j] = await sql<JobRow>('select * from import_job where organization_id = $1 and id = $2 for update', [organizationId, jobId]);
    await sql('select pg_advisory_xact_lock(hashtext($1))', [`import-slots:${j.organization_id}`]);
    if (j.status === 'Running' || (j.status === 'Paused' && j.started_at)) return { claimed: true, status: j.status };
    if (j.status !== 'Queued') return { claimed: false, status: j.status };
    const [{ n }] = await sql<{ n: number }>(
      "select count(*)::int as n from import_job where organization_id = $1 and started_at is not null and status in ('Running', 'Paused') and id <> $2",
      [j.organization_id, jobId],
    );
    if (n >= MAX_RUNNING_PER_ORG) return { claimed: false, status: j.status };
    await sql("update import_job set status = 'Running', started_at = now() where organization_id = $1 and id = $2", [organizationId, jobId]);
    return { claimed: true, status: 'Running' };
  });
}

/** Splits the stored input into chunk objects once; later calls answer the stored split. */
export async function prepare(pool: pg.Pool, storage: Storage, ref: JobRef, heartbeat: () => void): Promise<{ chunkCount: number; failed: boolean }> {
  const j = await job(pool, ref);
  const { organizationId, jobId } = ref;
  const failWith = (reason: string) =>
    pool.query('update import_job set failure_reason = $3, total_records = 0, chunk_count = 0 where organization_id = $1 and id = $2', [organizationId, jobId, reason]);
  if (j.chunk_count !== null) return { chunkCount: j.chunk_count, failed: false };
  const data = await storage.get(j.input_key);
  if (!data) {
    await failWith('The uploaded input was not found.');
    return { chunkCount: 0, failed: true };
  }
  let columns: string[] | null = null;
  let chunks = 0;
  let total = 0;
  // Fields and CSV columns the kind does not know: ignored on every record, listed once on the job.
  const warnings = new WarningTally(j.kind);
  let strayColumns: string[] = [];
  const onColumns = (c: string[]) => {
    columns = c;
    strayColumns = unknownColumns(j.kind, c);
    for (const col of strayColumns) warnings.column(col);
  };
  try {
    for await (const batch of readRecords(j.kind, j.format, data, onColumns)) {
      for (const rec of batch) {
        if (rec.source) {
          for (const col of strayColumns) if (rec.source[col] !== undefined && rec.source[col] !== '') warnings.add(col, rec.n, true);
        } else for (const field of unknownFields(j.kind, rec.data)) warnings.add(field, rec.n);
      }
      await storage.put(chunkKey(j.organization_id, jobId, chunks), Buffer.from(JSON.stringify(batch)), 'application/json');
      chunks += 1;
      total += batch.length;
      heartbeat();
    }
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    await failWith(e.message);
    return { chunkCount: 0, failed: true };
  }
  await pool.query('update import_job set total_records = $3, chunk_count = $4, columns = $5, warnings = $6 where organization_id = $1 and id = $2', [
    organizationId,
    jobId,
    total,
    chunks,
    JSON.stringify(columns),
    JSON.stringify(warnings.list()),
  ]);
  return { chunkCount: chunks, failed: false };
}

export interface ChunkTask extends JobRef {
  generation: number;
  phase: 'check' | 'apply';
  chunkIndex: number;
  /** Only the chunk's records that failed before (a retry). */
  retryOnly: boolean;
  /** 'failedOnly': the check pass of onError abort counts processed and failed only. */
  counts: 'full' | 'failedOnly';
}

/**
 * Applies one chunk exactly once: the chunk-run row is inserted first in the same transaction
 * as the records and the counters, so a retried activity (e.g. after a SIGKILLed worker)
 * either finds the chunk done or redoes all of it.
 */
export async function processChunk(pool: pg.Pool, storage: Storage, t: ChunkTask): Promise<{ status: ImportStatus }> {
  const j = await job(pool, t);
  const applier = APPLIERS[j.kind];
  if (!applier) throw new Error(`no applier for ${j.kind}`);
  const raw = await storage.get(chunkKey(j.organization_id, t.jobId, t.chunkIndex));
  if (!raw) throw new Error(`chunk ${t.chunkIndex} of import ${t.jobId} is missing`);
  let records = JSON.parse(raw.toString('utf8')) as ChunkRecord[];
  const orgId = j.organization_id;
  const tally: { counted?: Record<string, number> } = {};
  const result = await inTransaction(pool, async (sql) => {
    const fresh = await sql<{ id: string }>(
      `insert into import_chunk_run (id, organization_id, job_id, generation, phase, chunk_index, finished_at)
       values (gen_random_uuid(), $1, $2, $3, $4, $5, now()) on conflict (organization_id, job_id, generation, phase, chunk_index) do nothing returning id`,
      [orgId, t.jobId, t.generation, t.phase, t.chunkIndex],
    );
    const statusNow = async () => (await sql<{ status: ImportStatus }>('select status from import_job where organization_id = $1 and id = $2', [orgId, t.jobId]))[0].status;
    if (!fresh.length) return { status: await statusNow() };
    let retried = 0;
    if (t.retryOnly) {
      const failed = await sql<{ record: number }>('select distinct record from import_record_error where organization_id = $1 and job_id = $2 and chunk_index = $3', [
        orgId,
        t.jobId,
        t.chunkIndex,
      ]);
      const wanted = new Set(failed.map((f) => f.record));
      records = records.filter((r) => wanted.has(r.n));
      retried = records.length;
      if (retried) await sql('delete from import_record_error where organization_id = $1 and job_id = $2 and record = any($3::int[])', [orgId, t.jobId, [...wanted]]);
    }
    const out = records.length ? await applier({ sql, orgId, write: t.phase === 'apply' }, records) : { created: 0, updated: 0, unchanged: 0, failures: [] };
    const byN = new Map(records.map((r) => [r.n, r]));
    const errorRows = out.failures.flatMap((f) => {
      const rec = byN.get(f.n);
      const source: JsonRecord | null = rec?.source ?? (rec?.data && typeof rec.data === 'object' && !Array.isArray(rec.data) ? (rec.data as JsonRecord) : null);
      return Object.entries(f.errors).map(([field, messages]) => ({
        record: f.n,
        chunk_index: t.chunkIndex,
        key: recordKey(j.kind, rec?.data)?.slice(0, 300) ?? null,
        field: field.slice(0, 300),
        message: messages.join(' '),
        source,
      }));
    });
    if (errorRows.length)
      await sql(
        `insert into import_record_error (id, organization_id, job_id, record, chunk_index, key, field, message, source)
         select gen_random_uuid(), $1, $2, r.record, r.chunk_index, r.key, r.field, r.message, r.source
           from jsonb_to_recordset($3::jsonb) as r(record int, chunk_index int, key text, field text, message text, source jsonb)
         on conflict (organization_id, job_id, record, field) do update set message = excluded.message`,
        [orgId, t.jobId, JSON.stringify(errorRows)],
      );
    const failed = out.failures.length;
    const full = t.counts === 'full';
    await sql(
      `update import_chunk_run set created = $3, updated = $4, unchanged = $5, failed = $6 where organization_id = $1 and id = $2`,
      [orgId, fresh[0].id, out.created, out.updated, out.unchanged, failed],
    );
    await sql(
      `update import_job set processed = processed + $3, created = created + $4, updated = updated + $5, unchanged = unchanged + $6, failed = failed + $7
        where organization_id = $1 and id = $2`,
      [orgId, t.jobId, t.retryOnly ? 0 : records.length, full ? out.created : 0, full ? out.updated : 0, full ? out.unchanged : 0, failed - retried],
    );
    tally.counted = { created: out.created, updated: out.updated, unchanged: out.unchanged, failed };
    return { status: await statusNow() };
  });
  // Counted once the chunk's transaction committed (a chunk that ran before counts nothing).
  for (const [outcome, n] of Object.entries(tally.counted ?? {})) if (n) importRecords.inc({ phase: t.phase, outcome }, n);
  return result;
}

/** Before the apply pass of onError abort: the check pass found nothing, so progress restarts. */
export async function resetProgress(pool: pg.Pool, { organizationId, jobId }: JobRef): Promise<void> {
  await pool.query('update import_job set processed = 0 where organization_id = $1 and id = $2', [organizationId, jobId]);
}

export interface Finished {
  status: ImportStatus;
  kind: ImportKindName;
  mode: string;
  totalRecords: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  submitterEmail: string | null;
  organizationId: string;
}

/**
 * Final status from the counts (a cancelled job stays Cancelled), and the `import.completed`
 * webhook event in the same transaction; the event is keyed by job and generation, so a repeated
 * finish (a retried activity) writes it once and a retried job reports its new run.
 */
export async function finish(pool: pg.Pool, { organizationId, jobId }: JobRef): Promise<Finished> {
  return inTransaction(pool, async (sql) => {
    const [r] = await sql<FinishedRow>(
      `update import_job set
          status = case when status = 'Cancelled' then status
                        when failure_reason is not null then 'Failed'
                        when on_error = 'abort' and failed > 0 then 'Failed'
                        when failed > 0 then 'SucceededWithErrors'
                        else 'Succeeded' end,
          finished_at = case when status = 'Cancelled' then coalesce(finished_at, now()) else now() end
        where organization_id = $1 and id = $2
        returning status, kind, mode, generation, total_records, processed, created, updated, unchanged, failed, submitter_email, organization_id`,
      [organizationId, jobId],
    );
    const f: Finished = {
      status: r.status,
      kind: r.kind,
      mode: r.mode,
      totalRecords: r.total_records ?? 0,
      created: r.created,
      updated: r.updated,
      unchanged: r.unchanged,
      failed: r.failed,
      submitterEmail: r.submitter_email,
      organizationId: r.organization_id,
    };
    await emitEventOnceSql(
      sql,
      r.organization_id,
      'import.completed',
      {
        jobId,
        kind: r.kind,
        mode: r.mode,
        status: r.status,
        counts: { totalRecords: f.totalRecords, processed: r.processed, created: r.created, updated: r.updated, unchanged: r.unchanged, failed: r.failed },
      },
      `import.completed:${jobId}:${r.generation}`,
    );
    return f;
  });
}

interface FinishedRow {
  status: ImportStatus;
  kind: ImportKindName;
  mode: string;
  generation: number;
  total_records: number | null;
  processed: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  submitter_email: string | null;
  organization_id: string;
}
