/**
 * importJob (id `import-<jobId>`, task queue `imports`): waits for one of the organization's
 * running slots, splits the stored input into chunks of 1,000 records, runs one activity per
 * chunk (a check pass first for validate mode and onError abort), and finishes with the final
 * status and an e-mail to the submitter. Continues as new every `chunksPerRun` chunks so the
 * history of a job of millions of records stays small. Pause, resume and cancel arrive as signals
 * (the API has already written the status); the workflow acts on them between chunks.
 */
import { ActivityFailure, condition, continueAsNew, proxyActivities, setHandler, startChild, ParentClosePolicy } from '@temporalio/workflow';
import type { createImportActivities } from '../activities/imports.js';
import { bounded, unbounded } from './retry-policies.js';
import { childTags, emailAbout } from './tags-defs.js';
import { cancelImportSignal, importProgressQuery, pauseImportSignal, resumeImportSignal, type ImportJobInput, type ImportStage } from './import-job-defs.js';

const { claimImportSlot, prepareImport, resetImportProgress, finishImport, failImport } = proxyActivities<ReturnType<typeof createImportActivities>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: unbounded(30_000),
});
const { runImportChunk } = proxyActivities<ReturnType<typeof createImportActivities>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '15 seconds',
  retry: bounded(20, 30_000),
});

/** Runs one import job; see the module comment. */
export async function importJob(input: ImportJobInput): Promise<{ status: string }> {
  const st = input.state ?? { stage: 'queue' as ImportStage, next: 0, chunkCount: null, paused: false };
  let cancelled = false;
  let paused = st.paused;
  setHandler(pauseImportSignal, () => void (paused = true));
  setHandler(resumeImportSignal, () => void (paused = false));
  setHandler(cancelImportSignal, () => void (cancelled = true));
  setHandler(importProgressQuery, () => ({ stage: st.stage, nextChunk: st.next, chunkCount: st.chunkCount, paused, cancelled }));
  const perRun = input.chunksPerRun ?? 100;
  // Every activity names the job with its organization (DESIGN "Scale-out").
  const job = { organizationId: input.organizationId, jobId: input.jobId };
  let ranThisRun = 0;

  const observe = (status: string) => {
    if (status === 'Cancelled') cancelled = true;
    if (status === 'Paused') paused = true;
    if (status === 'Running') paused = false;
  };

  if (st.stage === 'queue') {
    for (;;) {
      if (cancelled) break;
      const slot = await claimImportSlot(job);
      observe(slot.status);
      if (slot.claimed || cancelled || !['Queued', 'Paused'].includes(slot.status)) break;
      await condition(() => cancelled, '2 seconds');
    }
    st.stage = 'prepare';
  }
  if (st.stage === 'prepare') {
    if (!cancelled) {
      const prepared = await prepareImport(job);
      st.chunkCount = prepared.chunkCount;
      st.stage = prepared.failed ? 'finish' : input.mode === 'validate' || input.onError === 'abort' ? (input.retryOnly && input.mode !== 'validate' ? 'apply' : 'check') : 'apply';
    } else st.stage = 'finish';
    st.next = 0;
  }

  const runPass = async (phase: 'check' | 'apply'): Promise<'done' | 'cancelled' | 'continued'> => {
    const counts = phase === 'check' && input.mode === 'apply' ? 'failedOnly' : 'full';
    while (st.next < (st.chunkCount ?? 0)) {
      if (paused && !cancelled) await condition(() => !paused || cancelled);
      if (cancelled) return 'cancelled';
      if (ranThisRun >= perRun) {
        await continueAsNew<typeof importJob>({ ...input, state: { ...st, paused } });
        return 'continued';
      }
      const res = await runImportChunk({ ...job, generation: input.generation, phase, chunkIndex: st.next, retryOnly: input.retryOnly, counts });
      observe(res.status);
      st.next += 1;
      ranThisRun += 1;
    }
    return 'done';
  };

  try {
    if (st.stage === 'check') {
      const r = await runPass('check');
      if (r === 'continued') return { status: 'Running' };
      if (r === 'done' && input.mode === 'apply') {
        const failed = await resetImportProgress(job);
        st.stage = failed > 0 ? 'finish' : 'apply';
        st.next = 0;
      } else st.stage = 'finish';
    }
    if (st.stage === 'apply') {
      const r = await runPass('apply');
      if (r === 'continued') return { status: 'Running' };
      st.stage = 'finish';
    }
  } catch (e) {
    // A chunk that fails on every attempt ends the job Failed (chunks before it stay written).
    if (!(e instanceof ActivityFailure)) throw e;
    await failImport(job, `Chunk ${st.next + 1} could not be processed: ${e.cause?.message ?? e.message}`);
    st.stage = 'finish';
  }
  const done = await finishImport(job);
  if (done.email) {
    await startChild('sendEmail', {
      workflowId: `email-import-completed-${input.jobId}-${input.generation}`,
      taskQueue: input.emailTaskQueue,
      args: [done.email],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      ...childTags({ organizationId: input.organizationId }, emailAbout(done.email.template, {}, `import job ${input.jobId}, ${done.status}`)),
    });
  }
  return { status: done.status };
}
