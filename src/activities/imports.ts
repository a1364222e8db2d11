/**
 * Import job activities (workflow importJob): one-line delegates to src/services/imports/steps.ts,
 * where each step's idempotency is described; long steps heartbeat.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Storage } from '../adapters/storage.js';
import type { ChunkTask, JobRef } from '../services/imports/process.js';
import {
  claimImportSlot,
  failImport,
  finishImport,
  importStepsPool,
  prepareImport,
  resetImportProgress,
  runImportChunk,
  type OlderJobRef,
} from '../services/imports/steps.js';
import { beating, heartbeat } from './heartbeat.js';

export function createImportActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  const pool = importStepsPool(deps.config);
  return {
    claimImportSlot: (job: string | JobRef) => claimImportSlot(pool, job),
    prepareImport: (job: string | JobRef) => prepareImport(pool, deps.storage, job, () => heartbeat('preparing')),
    runImportChunk: (task: Omit<ChunkTask, 'organizationId'> & OlderJobRef) =>
      beating(() => runImportChunk(pool, deps.storage, task), { details: { chunk: task.chunkIndex }, at: 'start' }),
    /** Answers the failures of the check pass; progress restarts for the apply pass. */
    resetImportProgress: (job: string | JobRef) => resetImportProgress(pool, job),
    /** Records why the job could not go on (a chunk failed on every attempt); finishImport then marks it Failed. */
    failImport: (job: string | JobRef, reason: string) => failImport(pool, job, reason),
    finishImport: (job: string | JobRef) => finishImport(pool, deps.config, job),
  };
}
