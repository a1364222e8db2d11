import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { claimSlot, finish, prepare, processChunk, resetProgress, type ChunkTask, type JobRef } from '../services/imports/process.js';
import { batchPool } from '../db/pools.js';
import type { Storage } from '../adapters/storage.js';
import type { SendEmailInput } from '../workflows/send-email-defs.js';

const heartbeat = (details?: unknown) => {
  try {
    Context.current().heartbeat(details);
  } catch {
    /* outside an activity (direct calls) */
  }
};

/**
 * Import job activities. Each is idempotent: a chunk is applied exactly once (its chunk-run row
 * commits with its records), the split into chunks is stored once, finishing can be repeated.
 */
/** A job as activities receive it: histories from before organizationId was passed name the job alone. */
type OlderJobRef = Omit<JobRef, 'organizationId'> & { organizationId?: string };

export function createImportActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  const pool = batchPool(deps.config.databaseUrl, Math.max(2, (deps.config.workerConcurrency.imports ?? 2) + 1));
  /**
   * Workflows name a job with its organization; one scheduled before they did (a bare job id, or a
   * chunk task without organizationId) has its organization read once, by the job's id index.
   */
  const ref = async (job: string | OlderJobRef): Promise<JobRef> => {
    const jobId = typeof job === 'string' ? job : job.jobId;
    if (typeof job !== 'string' && job.organizationId) return { organizationId: job.organizationId, jobId };
    const { rows } = await pool.query<{ organization_id: string }>('select organization_id from import_job where id = $1', [jobId]);
    if (!rows[0]) throw new Error(`import job ${jobId} not found`);
    return { organizationId: rows[0].organization_id, jobId };
  };
  return {
    async claimImportSlot(job: string | JobRef) {
      return claimSlot(pool, await ref(job));
    },
    async prepareImport(job: string | JobRef) {
      return prepare(pool, deps.storage, await ref(job), () => heartbeat('preparing'));
    },
    async runImportChunk(task: Omit<ChunkTask, 'organizationId'> & OlderJobRef) {
      heartbeat({ chunk: task.chunkIndex });
      const timer = setInterval(() => heartbeat({ chunk: task.chunkIndex }), 2000);
      try {
        return await processChunk(pool, deps.storage, { ...task, ...(await ref(task)) });
      } finally {
        clearInterval(timer);
      }
    },
    /** Answers the failures of the check pass; progress restarts for the apply pass. */
    async resetImportProgress(job: string | JobRef): Promise<number> {
      const r = await ref(job);
      const { rows } = await pool.query<{ failed: number }>('select failed from import_job where organization_id = $1 and id = $2', [
        r.organizationId,
        r.jobId,
      ]);
      if (rows[0].failed === 0) await resetProgress(pool, r);
      return rows[0].failed;
    },
    /** Records why the job could not go on (a chunk failed on every attempt); finishImport then marks it Failed. */
    async failImport(job: string | JobRef, reason: string): Promise<void> {
      const r = await ref(job);
      await pool.query('update import_job set failure_reason = coalesce(failure_reason, $3) where organization_id = $1 and id = $2', [
        r.organizationId,
        r.jobId,
        reason.slice(0, 2000),
      ]);
    },
    async finishImport(job: string | JobRef): Promise<{ status: string; email: SendEmailInput | null }> {
      const r = await ref(job);
      const jobId = r.jobId;
      const f = await finish(pool, r);
      const link = `${deps.config.publicBaseUrl}/api/imports/${jobId}`;
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
    },
  };
}
