/**
 * The import job workflow's steps (importJob; called by src/activities/imports.ts), on the import
 * pool. Each is idempotent: a chunk is applied exactly once (its chunk-run row commits with its
 * records), the split into chunks is stored once, finishing can be repeated.
 */
import type pg from 'pg';
import type { Config } from '../../config.js';
import type { Storage } from '../../adapters/storage.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { claimSlot, finish, prepare, processChunk, resetProgress, type ChunkTask, type JobRef } from './process.js';
import { batchPool } from '../../db/pools.js';

/** A job as activities receive it: histories from before organizationId was passed name the job alone. */
export type OlderJobRef = Omit<JobRef, 'organizationId'> & { organizationId?: string };

/** The worker's import pool: one connection per concurrent import activity, and one more. */
export const importStepsPool = (config: Config): pg.Pool => batchPool(config.databaseUrl, Math.max(2, (config.workerConcurrency.imports ?? 2) + 1));

/**
 * Workflows name a job with its organization; one scheduled before they did (a bare job id, or a
 * chunk task without organizationId) has its organization read once, by the job's id index.
 */
async function jobRef(pool: pg.Pool, job: string | OlderJobRef): Promise<JobRef> {
  const jobId = typeof job === 'string' ? job : job.jobId;
  if (typeof job !== 'string' && job.organizationId) return { organizationId: job.organizationId, jobId };
  const { rows } = await pool.query<{ organization_id: string }>('select organization_id from import_job where id = $1', [jobId]);
  if (!rows[0]) throw new Error(`import job ${jobId} not found`);
  return { organizationId: rows[0].organization_id, jobId };
}

export async function claimImportSlot(pool: pg.Pool, job: string | JobRef) {
  return claimSlot(pool, await jobRef(pool, job));
}

export async function prepareImport(pool: pg.Pool, storage: Storage, job: string | JobRef, heartbeat: () => void) {
  return prepare(pool, storage, await jobRef(pool, job), heartbeat);
}

export async function runImportChunk(pool: pg.Pool, storage: Storage, task: Omit<ChunkTask, 'organizationId'> & OlderJobRef) {
  return processChunk(pool, storage, { ...task, ...(await jobRef(pool, task)) });
}

/** Answers the failures of the check pass; progress restarts for the apply pass. */
export async function resetImportProgress(pool: pg.Pool, job: string | JobRef): Promise<number> {
  const r = await jobRef(pool, job);
  const { rows } = await pool.query<{ failed: number }>('select failed from import_job where organization_id = $1 and id = $2', [r.organizationId, r.jobId]);
  if (rows[0].failed === 0) await resetProgress(pool, r);
  return rows[0].failed;
}

/** Records why the job could not go on (a chunk failed on every attempt); finishImport then marks it Failed. */
export async function failImport(pool: pg.Pool, job: string | JobRef, reason: string): Promise<void> {
  const r = await jobRef(pool, job);
  await pool.query('update import_job set failure_reason = coalesce(failure_reason, $3) where organization_id = $1 and id = $2', [r.organizationId, r.jobId, reason.slice(0, 2000)]);
}

/** Finishes the job (repeatable) and answers the submitter's e-mail for the workflow to queue (null without a submitter address). */
export async function finishImport(pool: pg.Pool, config: Pick<Config, 'publicBaseUrl'>, job: string | JobRef): Promise<{ status: string; email: SendEmailInput | null }> {
  const r = await jobRef(pool, job);
  const jobId = r.jobId;
  const f = await finish(pool, r);
  const link = `${config.publicBaseUrl}/api/imports/${jobId}`;
  const email: SendEmailInput | null = f.submitterEmail
    ? {
        emailId: `import-completed-${jobId}-${Date.now()}`,
        organizationId: f.organizationId,
        template: 'generic',
        to: f.submitterEmail,
        data: {
          subject: `Import ${f.kind}: ${f.status}`,
          body:
            `Your ${f.mode === 'validate' ? 'validation of' : 'import of'} ${f.totalRecords} ${f.kind} records finished: ${f.status}. ` +
            `Created ${f.created}, updated ${f.updated}, unchanged ${f.unchanged}, failed ${f.failed}. ` +
            `Report: ${link} (errors: ${link}/errors?format=csv)`,
        },
      }
    : null;
  return { status: f.status, email };
}
