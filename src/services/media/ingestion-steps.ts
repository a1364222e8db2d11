/**
 * The remote-image ingestion workflow's steps (called by src/activities/images.ts).
 * fetchAndStoreImage downloads and processes one image; client-side problems (404, not an image,
 * too large, unsafe address) are non-retryable failures, while network errors, timeouts and 5xx
 * are retried by Temporal. The image id is the item id, so a retry after a partial run overwrites
 * instead of duplicating.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { nameFromUrl, resolveSku } from '../../domain/images/rules.js';
import { ImageIngestion, ImageIngestionItem } from '../../entities/index.js';
import type { Storage } from '../../adapters/storage.js';
import { FetchFailure, fetchImage } from './fetch-image.js';
import { storeImage, UnsupportedImageError } from './images.js';

export interface IngestItemInput {
  organizationId: string;
  jobId: string;
  itemId: string;
}

/** Downloads one item's image and stores it with its variants; an item that succeeded already answers its image. */
export async function fetchAndStoreImage(em: EntityManager, deps: { config: Config; storage: Storage }, input: IngestItemInput): Promise<{ imageId: string }> {
  const item = await em.findOne(ImageIngestionItem, { organization: input.organizationId, id: input.itemId, ingestion: input.jobId });
  if (!item) throw ApplicationFailure.nonRetryable('The ingestion item no longer exists.', 'missing_item');
  if (item.status === 'succeeded' && item.imageId) return { imageId: item.imageId };
  let fetched;
  try {
    fetched = await fetchImage(item.url, {
      maxBytes: deps.config.images.maxBytes,
      timeoutMs: deps.config.images.fetchTimeoutMs,
      allowPrivate: deps.config.outboundAllowPrivateNetworks,
    });
  } catch (e) {
    if (e instanceof FetchFailure) {
      if (e.retryable) throw ApplicationFailure.retryable(e.message, e.code);
      throw ApplicationFailure.nonRetryable(e.message, e.code);
    }
    throw e;
  }
  const imageName = item.imageName || nameFromUrl(fetched.finalUrl) || nameFromUrl(item.url) || 'image';
  try {
    const image = await storeImage(em, deps.storage, {
      orgId: input.organizationId,
      imageId: item.id,
      data: fetched.data,
      name: imageName,
      source: item.url,
      sku: resolveSku({ sku: item.productSku, extractSkuFromImageName: item.extractSkuFromImageName, imageName }),
    });
    item.status = 'succeeded';
    item.reason = null;
    item.imageId = image.id;
    await em.flush();
    return { imageId: image.id };
  } catch (e) {
    if (e instanceof UnsupportedImageError) throw ApplicationFailure.nonRetryable(e.message, 'not_an_image');
    throw e;
  }
}

/** Records the final failure of one image (after retries, or at once for non-retryable problems). */
export async function recordImageFailure(em: EntityManager, input: IngestItemInput & { reason: string }): Promise<void> {
  await em.nativeUpdate(ImageIngestionItem, { organization: input.organizationId, id: input.itemId, status: 'pending' }, { status: 'failed', reason: input.reason.slice(0, 2000), updatedAt: new Date() });
}

/** Marks the job complete once. `organizationId` is absent only in runs scheduled before it was added (those update by id alone). */
export async function completeImageIngestion(em: EntityManager, input: { organizationId?: string; jobId: string }): Promise<void> {
  const org = input.organizationId ? { organization: input.organizationId } : {};
  await em.nativeUpdate(ImageIngestion, { ...org, id: input.jobId, completedAt: null }, { completedAt: new Date() });
}
