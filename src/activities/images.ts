/** Remote image ingestion activities (workflow ingestRemoteImages): one-line delegates to src/services/media/ingestion-steps.ts. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Storage } from '../adapters/storage.js';
import { completeImageIngestion, fetchAndStoreImage, recordImageFailure, type IngestItemInput } from '../services/media/ingestion-steps.js';

export function createImageActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  return {
    fetchAndStoreImage: (input: IngestItemInput) => fetchAndStoreImage(deps.orm.em.fork(), deps, input),
    recordImageFailure: (input: IngestItemInput & { reason: string }) => recordImageFailure(deps.orm.em.fork(), input),
    completeImageIngestion: (input: { organizationId?: string; jobId: string }) => completeImageIngestion(deps.orm.em.fork(), input),
  };
}
