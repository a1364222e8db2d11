import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { claimSlot, finish, prepare, processChunk, resetProgress, type ChunkTask } from '../services/imports/process.js';
import { createImportPool } from '../services/imports/sql.js';
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
export function createImportActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  const pool = createImportPool(deps.config.databaseUrl, Math.max(2, (deps.config.workerConcurrency.imports ?? 2) + 1));
  return {
    async claimImportSlot(jobId: string) {
      return claimSlot(pool, jobId);
    },
    async prepareImport(jobId: string) {
      return prepare(pool, deps.storage, jobId, () => heartbeat('preparing'));
    },
    async runImportChunk(task: ChunkTask) {
      heartbeat({ chunk: task.chunkIndex });
      const timer = setInterval(() => heartbeat({ chunk: task.chunkIndex }), 2000);
      try {
        return await processChunk(pool, deps.storage, task);
      } finally {
        clearInterval(timer);
      }
    },
    /** Answers the failures of the check pass; progress restarts for the apply pass. */
    async resetImportProgress(jobId: string): Promise<number> {
      const { rows } = await pool.query<{ failed: number }>('select failed from import_job where id = $1', [jobId]);
      if (rows[0].failed === 0) await resetProgress(pool, jobId);
      return rows[0].failed;
    },
    /** Records why the job could not go on (a chunk failed on every attempt); finishImport then marks it Failed. */
    async failImport(jobId: string, reason: string): Promise<void> {
      await pool.query('update import_job set failure_reason = coalesce(failure_reason, $2) where id = $1', [jobId, reason.slice(0, 2000)]);
    },
    async finishImport(jobId: string): Promise<{ status: string; email: SendEmailInput | null }> {
      const f = await finish(pool, jobId);
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
