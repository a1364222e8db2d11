/**
 * Remote image ingestion: a job of images fetched from public URLs by a Temporal workflow on the
 * `media` queue (src/workflows, src/activities/images.ts), and its per-image outcome.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../../deps.js';
import { UUID_RE } from '../../domain/ids.js';
import { INGESTION_SLOT_WINDOW_MS, MAX_CONCURRENT_INGESTIONS_PER_ORG } from '../../domain/images/rules.js';
import { ImageIngestion, ImageIngestionItem } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import { startOnce } from '../../adapters/temporal.js';

export interface RemoteImage {
  imageUrl: string;
  imageName?: string | null;
  productSku?: string | null;
  extractSkuFromImageName?: boolean;
}

/** POST /api/images/from-remote: records the job and starts its workflow; the job id. 429 when the organization already runs its share. */
export async function startIngestion(em: EntityManager, deps: Pick<Deps, 'config' | 'temporal'>, orgId: string, images: readonly RemoteImage[]): Promise<string> {
  // Fairness on the shared media queue: one organization runs at most a few ingestions at once.
  const running = await em.count(ImageIngestion, { organization: orgId, completedAt: null, createdAt: { $gt: new Date(Date.now() - INGESTION_SLOT_WINDOW_MS) } });
  if (running >= MAX_CONCURRENT_INGESTIONS_PER_ORG)
    throw new AppError('rate_limited', `At most ${MAX_CONCURRENT_INGESTIONS_PER_ORG} image ingestions of an organization run at once; retry when one completes.`, undefined, { 'Retry-After': '30' });
  const jobId = randomUUID();
  const ingestion = em.create(ImageIngestion, { id: jobId, organization: orgId });
  const items = images.map((img, position) =>
    em.create(ImageIngestionItem, {
      ingestion,
      position,
      url: img.imageUrl,
      imageName: img.imageName || null,
      productSku: img.productSku || null,
      extractSkuFromImageName: img.extractSkuFromImageName ?? false,
    }),
  );
  await em.flush();
  try {
    await startOnce(deps.temporal, deps.config, {
      workflowType: 'ingestRemoteImages',
      workflowId: `image-ingestion-${jobId}`,
      queue: 'media',
      args: [{ jobId, organizationId: orgId, itemIds: items.map((i) => i.id) }],
      keys: { organizationId: orgId },
      about: { what: `Ingest ${items.length} remote image${items.length === 1 ? '' : 's'}` },
    });
  } catch (e) {
    // No workflow, no job: do not leave items pending forever.
    await em.nativeDelete(ImageIngestion, { organization: orgId, id: jobId });
    throw e;
  }
  return jobId;
}

/** GET /api/images/ingestions/{jobId}: each image pending, succeeded (with imageId) or failed (with reason). */
export async function ingestionStatus(em: EntityManager, orgId: string, jobId: string) {
  if (!UUID_RE.test(jobId)) throw AppError.notFound('Ingestion job');
  const job = await em.findOne(ImageIngestion, { id: jobId, organization: orgId });
  if (!job) throw AppError.notFound('Ingestion job');
  const items = await em.find(ImageIngestionItem, { ingestion: job }, { orderBy: { position: 'asc' } });
  const count = (s: string) => items.filter((i) => i.status === s).length;
  return {
    jobId: job.id,
    status: job.completedAt ? 'completed' : 'running',
    createdAt: job.createdAt,
    completedAt: job.completedAt ?? null,
    counts: { total: items.length, pending: count('pending'), succeeded: count('succeeded'), failed: count('failed') },
    items: items.map((i) => ({
      imageUrl: i.url,
      imageName: i.imageName ?? null,
      productSku: i.productSku ?? null,
      status: i.status,
      reason: i.reason ?? null,
      imageId: i.imageId ?? null,
    })),
  };
}
