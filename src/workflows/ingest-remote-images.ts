import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createImageActivities } from '../activities/images.js';
import type { IngestRemoteImagesInput, IngestRemoteImagesResult } from './ingest-remote-images-defs.js';
import { bounded, mustSucceed } from './retry-policies.js';

type Acts = ReturnType<typeof createImageActivities>;

// One image may fail (its failure is recorded); the bookkeeping after it must eventually succeed.
const { fetchAndStoreImage } = proxyActivities<Acts>({ startToCloseTimeout: '3 minutes', retry: bounded(4, 60_000, 2_000) });
const { recordImageFailure, completeImageIngestion } = proxyActivities<Acts>(mustSucceed);

/** Images fetched at once per ingestion (the media queue's worker concurrency also bounds it). */
const PARALLEL = 8;

function reasonOf(e: unknown): string {
  const cause = e instanceof ActivityFailure ? e.cause : e;
  if (cause instanceof ApplicationFailure) return cause.message;
  if (cause instanceof Error) return cause.message || 'The image could not be processed.';
  return 'The image could not be processed.';
}

/**
 * Ingests a batch of remote images: one activity per image, a few at a time. One image's
 * failure is recorded on its item and never fails the batch; the job completes when every
 * item has an outcome.
 */
export async function ingestRemoteImages(input: IngestRemoteImagesInput): Promise<IngestRemoteImagesResult> {
  let next = 0;
  let succeeded = 0;
  let failed = 0;
  const lane = async (): Promise<void> => {
    while (next < input.itemIds.length) {
      const itemId = input.itemIds[next++];
      const ref = { organizationId: input.organizationId, jobId: input.jobId, itemId };
      try {
        await fetchAndStoreImage(ref);
        succeeded++;
      } catch (e) {
        if (isCancellation(e)) throw e;
        failed++;
        await recordImageFailure({ ...ref, reason: reasonOf(e) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, input.itemIds.length) }, lane));
  await completeImageIngestion({ organizationId: input.organizationId, jobId: input.jobId });
  return { succeeded, failed };
}
