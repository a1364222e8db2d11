import { ApplicationFailure } from '@temporalio/common';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { nameFromUrl, resolveSku } from '../domain/images/rules.js';
import { ImageIngestion, ImageIngestionItem } from '../entities/index.js';
import { FetchFailure, fetchImage } from '../services/media/fetch-image.js';
import { storeImage, UnsupportedImageError } from '../services/media/images.js';
import type { Storage } from '../adapters/storage.js';

export interface IngestItemInput {
  organizationId: string;
  jobId: string;
  itemId: string;
}

/**
 * Remote image ingestion. fetchAndStoreImage downloads and processes one image; client-side
 * problems (404, not an image, too large, unsafe address) are non-retryable failures, while
 * network errors, timeouts and 5xx are retried by Temporal. The image id is the item id, so a
 * retry after a partial run overwrites instead of duplicating.
 */
export function createImageActivities(deps: { orm: MikroORM; config: Config; storage: Storage }) {
  return {
    async fetchAndStoreImage(input: IngestItemInput): Promise<{ imageId: string }> {
      const em = deps.orm.em.fork();
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
    },

    /** Records the final failure of one image (after retries, or at once for non-retryable problems). */
    async recordImageFailure(input: IngestItemInput & { reason: string }): Promise<void> {
      const em = deps.orm.em.fork();
      await em.nativeUpdate(ImageIngestionItem, { organization: input.organizationId, id: input.itemId, status: 'pending' }, { status: 'failed', reason: input.reason.slice(0, 2000), updatedAt: new Date() });
    },

    /** `organizationId` is absent only in runs scheduled before it was added (those update by id alone). */
    async completeImageIngestion(input: { organizationId?: string; jobId: string }): Promise<void> {
      const em = deps.orm.em.fork();
      const org = input.organizationId ? { organization: input.organizationId } : {};
      await em.nativeUpdate(ImageIngestion, { ...org, id: input.jobId, completedAt: null }, { completedAt: new Date() });
    },
  };
}
