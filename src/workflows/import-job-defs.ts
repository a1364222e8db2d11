/** Signals, query and input of the importJob workflow, shared with the API (no activity proxies here). */
import { defineQuery, defineSignal } from '@temporalio/workflow';

export const pauseImportSignal = defineSignal('pauseImport');
export const resumeImportSignal = defineSignal('resumeImport');
export const cancelImportSignal = defineSignal('cancelImport');

export type ImportStage = 'queue' | 'prepare' | 'check' | 'apply' | 'finish';

export interface ImportProgress {
  stage: ImportStage;
  nextChunk: number;
  chunkCount: number | null;
  paused: boolean;
  cancelled: boolean;
}
export const importProgressQuery = defineQuery<ImportProgress>('importProgress');

export interface ImportJobInput {
  jobId: string;
  organizationId: string;
  mode: 'apply' | 'validate';
  onError: 'skip' | 'abort';
  generation: number;
  /** Retry of a finished job: only the records that failed. */
  retryOnly: boolean;
  /** Task queue of the sendEmail child workflow (commerce). */
  emailTaskQueue: string;
  chunksPerRun?: number;
  /** Carried across continue-as-new. */
  state?: { stage: ImportStage; next: number; chunkCount: number | null; paused: boolean };
}

