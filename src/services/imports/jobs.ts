/**
 * The API side of import jobs: submitting (records, a file or an upload), reading status and the
 * error report, listing, and pause/resume/cancel/retry. Status changes asked by a caller are
 * written here with a conditional UPDATE (so a finished job answers 409) and then signalled to
 * the job's workflow, which acts on them between chunks.
 */
import type { importJob } from '../../domain/imports/responses.js';
import type { Out } from '../../domain/contract.js';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { errorCsv, type ImportKindName, type JsonRecord } from '../../domain/imports/records.js';
import { boundRows } from '../../db/orm-sql.js';
import { Organization, User } from '../../entities/index.js';
import { ImportJob, type ImportFormat, type ImportMode, type ImportOnError, type ImportStatus } from '../../entities/ImportJob.js';
import { AppError } from '../../errors.js';
import { genericEnvelope, type ListQuery, type ListSpec } from '../../http/paging.js';
import type { Deps } from '../../deps.js';
import { taskQueue } from '../../config.js';
import { isWorkflowNotFound, startWorkflow as start } from '../../adapters/temporal.js';
import { cancelImportSignal, pauseImportSignal, resumeImportSignal, type ImportJobInput } from '../../workflows/import-job-defs.js';
import { detectFormat } from './input.js';

export const UPLOAD_TTL_SECONDS = 3600;
export const workflowIdOf = (jobId: string) => `import-${jobId}`;
const uploadKey = (orgId: string, uploadId: string) => `imports/${orgId}/uploads/${uploadId}`;

export type ImportInput = { records: unknown[] } | { file: Buffer; fileName: string | null } | { uploadId: string; format: ImportFormat | null };

export interface SubmitOptions {
  orgId: string;
  userId: string | null;
  kind: ImportKindName;
  mode: ImportMode;
  onError: ImportOnError;
  input: ImportInput;
}

/** The job resource of DESIGN "Bulk import jobs". */
export function jobView(j: ImportJob): Out<typeof importJob> {
  return {
    jobId: j.id,
    kind: j.kind,
    mode: j.mode,
    onError: j.onError,
    status: j.status,
    totalRecords: j.totalRecords ?? null,
    processed: j.processed,
    created: j.created,
    updated: j.updated,
    unchanged: j.unchanged,
    failed: j.failed,
    createdAt: j.createdAt.toISOString(),
    startedAt: j.startedAt ? j.startedAt.toISOString() : null,
    finishedAt: j.finishedAt ? j.finishedAt.toISOString() : null,
    workflowId: j.workflowId,
    errorReportUrl: `/api/imports/${j.id}/errors`,
    // A job created in this EntityManager before its flush may still hold the column default as text.
    warnings: (Array.isArray(j.warnings) ? j.warnings : []).map((w) => ({ field: w.field, message: w.message, count: w.count, firstRecord: w.firstRecord ?? null })),
  };
}

/** Starts the job's importJob workflow; false when a run of it is still open (its id is taken). */
async function startWorkflow(deps: Deps, j: ImportJob, retryOnly: boolean): Promise<boolean> {
  const input: ImportJobInput = {
    jobId: j.id,
    organizationId: typeof j.organization === 'string' ? j.organization : j.organization.id,
    mode: j.mode,
    onError: j.onError,
    generation: j.generation,
    retryOnly,
    emailTaskQueue: taskQueue(deps.config, 'commerce'),
    chunksPerRun: Number(process.env.IMPORT_CHUNKS_PER_RUN ?? 100),
  };
  return start(deps.temporal, deps.config, {
    workflowType: 'importJob',
    workflowId: j.workflowId,
    queue: 'imports',
    args: [input],
    keys: { organizationId: input.organizationId, importKind: j.kind },
    about: { what: `Import of ${j.kind} (${input.mode}, generation ${input.generation}${retryOnly ? ', failed records only' : ''}), job ${j.id}` },
    reuse: 'ALLOW_DUPLICATE',
  });
}

/** Stores the input, records the job and starts its workflow. */
/** DESIGN: error reports are kept 30 days after the job finished. */
export const REPORT_RETENTION_DAYS = 30;

/**
 * Removes the error reports of the organization's jobs that finished more than
 * REPORT_RETENTION_DAYS ago. It runs when the organization submits a job, so no scheduler is needed
 * and an organization that stops importing keeps nothing it does not read.
 */
export async function purgeExpiredReports(em: EntityManager, orgId: string): Promise<void> {
  await boundRows(
    em,
    `delete from import_record_error e using import_job j
      where e.organization_id = $1 and j.organization_id = e.organization_id and j.id = e.job_id
        and j.finished_at < now() - make_interval(days => $2)`,
    [orgId, REPORT_RETENTION_DAYS],
  );
}

/** Where the completion e-mail goes: the submitting user, else the organization's address. */
async function submitterEmail(em: EntityManager, orgId: string, userId: string | null): Promise<string | null> {
  if (userId) {
    const u = await em.findOne(User, { id: userId });
    if (u?.email) return u.email;
  }
  return (await em.findOne(Organization, { id: orgId }))?.email ?? null;
}

/** The request's one source of records: JSON records, an uploaded file, or an earlier presigned upload. */
export async function importInputOf(body: { records?: unknown[]; file?: { filepath: string; originalFilename?: string | null }; uploadId?: string; format?: string }): Promise<ImportInput> {
  const given = [body.records !== undefined, body.file !== undefined, body.uploadId !== undefined].filter(Boolean).length;
  if (given !== 1) throw AppError.field(given === 0 ? 'records' : '$', 'Send exactly one of records, file or uploadId.');
  if (body.records) return { records: body.records };
  if (body.file) return { file: await readFile(body.file.filepath), fileName: body.file.originalFilename ?? null };
  return { uploadId: body.uploadId!, format: (body.format as ImportFormat | undefined) ?? null };
}

export async function submitImport(em: EntityManager, deps: Deps, o: SubmitOptions): Promise<ImportJob> {
  await purgeExpiredReports(em, o.orgId);
  const id = randomUUID();
  let inputKey = `imports/${o.orgId}/${id}/input`;
  let format: ImportFormat;
  let fileName: string | null = null;
  if ('records' in o.input) {
    format = 'json';
    await deps.storage.put(inputKey, Buffer.from(JSON.stringify(o.input.records)), 'application/json');
  } else if ('file' in o.input) {
    if (!o.input.file.length) throw AppError.field('file', 'file is empty.');
    fileName = o.input.fileName;
    format = detectFormat(fileName, o.input.file.subarray(0, 4096));
    await deps.storage.put(inputKey, o.input.file, 'application/octet-stream');
  } else {
    inputKey = uploadKey(o.orgId, o.input.uploadId);
    if (!(await deps.storage.exists(inputKey))) throw AppError.field('uploadId', 'No file was uploaded for this uploadId (or it belongs to another organization).');
    const head = (await deps.storage.get(inputKey))?.subarray(0, 4096) ?? Buffer.alloc(0);
    format = o.input.format ?? detectFormat(null, head);
  }
  const job = em.create(ImportJob, {
    id,
    organization: o.orgId,
    kind: o.kind,
    mode: o.mode,
    onError: o.onError,
    format,
    inputKey,
    fileName,
    submittedBy: o.userId,
    submitterEmail: await submitterEmail(em, o.orgId, o.userId),
    workflowId: workflowIdOf(id),
    warnings: [],
  });
  await em.flush();
  await startWorkflow(deps, job, false);
  return job;
}

/** A presigned PUT for a large input file; submit it afterwards with `{ kind, uploadId, format }`. */
export async function createUpload(deps: Deps, orgId: string): Promise<{ uploadId: string; uploadUrl: string; expiresAt: string }> {
  const uploadId = randomUUID();
  const uploadUrl = await deps.storage.presignedPut(uploadKey(orgId, uploadId), UPLOAD_TTL_SECONDS);
  return { uploadId, uploadUrl, expiresAt: new Date(Date.now() + UPLOAD_TTL_SECONDS * 1000).toISOString() };
}

export async function findJob(em: EntityManager, orgId: string, jobId: string): Promise<ImportJob> {
  const j = /^[0-9a-f-]{36}$/i.test(jobId) ? await em.findOne(ImportJob, { id: jobId, organization: orgId }, { refresh: true }) : null;
  if (!j) throw AppError.notFound('Import job');
  return j;
}

/** Paging and sorting of the job list (the route documents them from this); `kind` and `status` are plain query parameters. */
export const importJobListSpec: ListSpec = {
  filters: {},
  sorts: { createdAt: 'createdAt' },
  defaultSort: 'createdAt',
  defaultDirection: 'desc',
};

export async function listJobs(em: EntityManager, orgId: string, q: ListQuery, plain: { kind?: string; status?: string }) {
  const where = { organization: orgId, ...(plain.kind ? { kind: plain.kind as ImportKindName } : {}), ...(plain.status ? { status: plain.status as ImportStatus } : {}) };
  return em.findAndCount(ImportJob, where, { orderBy: [q.orderBy, { id: 'desc' }], offset: q.offset, limit: q.pageSize });
}

interface ErrorRow {
  record: number;
  key: string | null;
  field: string;
  message: string;
  source: JsonRecord | null;
}

/** One page of the error report, ordered by record number and field. */
export async function errorPage(em: EntityManager, orgId: string, jobId: string, q: ListQuery) {
  const { offset, pageSize: limit } = q;
  const rows = await boundRows<ErrorRow>(
    em,
    'select record, key, field, message from import_record_error where organization_id = $1 and job_id = $2 order by record, field limit $3 offset $4',
    [orgId, jobId, limit, offset],
  );
  const [{ n }] = await boundRows<{ n: number }>(em, 'select count(*)::int as n from import_record_error where organization_id = $1 and job_id = $2', [orgId, jobId]);
  return genericEnvelope(rows.map((r) => ({ record: r.record, key: r.key, field: r.field, message: r.message })), n, q);
}

/** The failed records with their original columns plus error_field and error_message. */
export async function errorReportCsv(em: EntityManager, job: ImportJob): Promise<string> {
  const orgId = typeof job.organization === 'string' ? job.organization : job.organization.id;
  const rows = await boundRows<ErrorRow>(
    em,
    'select record, key, field, message, source from import_record_error where organization_id = $1 and job_id = $2 order by record, field',
    [orgId, job.id],
  );
  const byRecord = new Map<number, { record: number; source: JsonRecord; errors: { field: string; message: string }[] }>();
  for (const r of rows) {
    const entry = byRecord.get(r.record) ?? { record: r.record, source: r.source ?? {}, errors: [] };
    entry.errors.push({ field: r.field, message: r.message });
    byRecord.set(r.record, entry);
  }
  return errorCsv(job.columns ?? null, [...byRecord.values()]);
}

async function signal(deps: Deps, job: ImportJob, which: 'pause' | 'resume' | 'cancel'): Promise<void> {
  const def = which === 'pause' ? pauseImportSignal : which === 'resume' ? resumeImportSignal : cancelImportSignal;
  try {
    await deps.temporal.workflow.getHandle(job.workflowId).signal(def);
  } catch (e) {
    if (!isWorkflowNotFound(e)) throw e;
  }
}

const TRANSITIONS = {
  pause: { from: ['Queued', 'Running'], set: "'Paused'" },
  resume: { from: ['Paused'], set: "case when started_at is null then 'Queued' else 'Running' end" },
  cancel: { from: ['Queued', 'Running', 'Paused'], set: "'Cancelled'" },
} as const;

/** Pause, resume or cancel; 409 when the job's status cannot take it. */
export async function controlJob(em: EntityManager, deps: Deps, orgId: string, jobId: string, action: 'pause' | 'resume' | 'cancel'): Promise<ImportJob> {
  const job = await findJob(em, orgId, jobId);
  const t = TRANSITIONS[action];
  const rows = await boundRows<{ id: string }>(
    em,
    `update import_job set status = ${t.set}${action === 'cancel' ? ', finished_at = now()' : ''} where organization_id = $1 and id = $2 and status = any($3) returning id`,
    [orgId, jobId, [...t.from]],
  );
  if (!rows.length) throw AppError.conflict(`The import job is ${job.status}; it cannot be ${action === 'pause' ? 'paused' : action === 'resume' ? 'resumed' : 'cancelled'}.`);
  await signal(deps, job, action);
  return findJob(em, orgId, jobId);
}

/** Reprocesses the failed records of a finished job (an onError abort job runs again whole). */
export async function retryJob(em: EntityManager, deps: Deps, orgId: string, jobId: string): Promise<ImportJob> {
  const job = await findJob(em, orgId, jobId);
  const finished = ['Succeeded', 'SucceededWithErrors', 'Failed', 'Cancelled'].includes(job.status);
  if (!finished || job.failed === 0 || job.failureReason) throw AppError.conflict(`The import job is ${job.status} with ${job.failed} failed records; there is nothing to retry.`);
  const whole = job.onError === 'abort' && job.mode === 'apply';
  const rows = await boundRows<{ id: string }>(
    em,
    `update import_job set status = 'Queued', started_at = null, finished_at = null, generation = generation + 1
       ${whole ? ', processed = 0, failed = 0, created = 0, updated = 0, unchanged = 0' : ''}
     where organization_id = $1 and id = $2 and status = $3 and generation = $4 returning id`,
    [orgId, jobId, job.status, job.generation],
  );
  if (!rows.length) throw AppError.conflict('The import job changed meanwhile; read it and try again.');
  if (whole) await boundRows(em, 'delete from import_record_error where organization_id = $1 and job_id = $2', [orgId, jobId]);
  const fresh = await findJob(em, orgId, jobId);
  if (!(await startWorkflow(deps, fresh, !whole))) {
    // The previous run wrote its final status and is only handing off its e-mail: let it close.
    const previous = deps.temporal.workflow.getHandle(fresh.workflowId).result();
    await Promise.race([previous.catch(() => undefined), new Promise((r) => setTimeout(r, 15_000))]);
    if (!(await startWorkflow(deps, fresh, !whole))) throw new AppError('internal', 'The import job\'s previous run has not closed yet; retry the job in a moment.');
  }
  return fresh;
}
