/** The organization's image library: list, read, delete (the stored variants go too). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { UUID_RE } from '../../domain/ids.js';
import { Image } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import { dataEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import type { Storage } from '../../adapters/storage.js';
import { imageView, variantKeys } from './images.js';

export const imageListSpec: ListSpec = {
  filters: {
    name: { prop: 'name', type: 'string' },
    sku: { prop: 'sku', type: 'string' },
    format: { prop: 'format', type: 'string' },
    source: { prop: 'source', type: 'string' },
    categoryName: { prop: 'categoryName', type: 'string' },
    active: { prop: 'active', type: 'boolean' },
  },
  sorts: { Name: 'name', UpdatedAt: 'updatedAt', CreatedAt: 'createdAt' },
  defaultSort: 'Name',
  defaultPageSize: 25,
};

/** GET /api/images: a page of `{ entity, links }`. */
export async function listImages(em: EntityManager, storage: Storage, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, imageListSpec);
  const [rows, total] = await em.findAndCount(Image, { organization: orgId, ...q.where }, { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset });
  const data = rows.map((img) => {
    const entity = imageView(storage, img);
    return {
      entity,
      links: [
        { action: 'GET', href: `/api/images/${img.id}`, rel: 'self' },
        { action: 'DELETE', href: `/api/images`, rel: 'delete' },
        { action: 'GET', href: entity.mediumUrl, rel: 'image' },
      ],
    };
  });
  return dataEnvelope(data, total, q, true);
}

/** GET /api/images/{id}. */
export async function readImage(em: EntityManager, storage: Storage, orgId: string, id: string) {
  const img = UUID_RE.test(id) ? await em.findOne(Image, { id, organization: orgId }) : null;
  if (!img) throw AppError.notFound('Image');
  return imageView(storage, img);
}

/** DELETE /api/images: `ids` comma-separated; all or nothing (404 naming the unknown ones). */
export async function deleteImages(em: EntityManager, storage: Storage, orgId: string, idList: string): Promise<void> {
  const ids = [...new Set(idList.split(',').map((s) => s.trim()).filter(Boolean))];
  if (!ids.length) throw AppError.field('ids', 'ids must name at least one image id.');
  const bad = ids.filter((id) => !UUID_RE.test(id));
  if (bad.length) throw AppError.field('ids', `Not image ids: ${bad.slice(0, 10).map((b) => b.slice(0, 40)).join(', ')}.`);
  if (ids.length > 500) throw AppError.field('ids', 'At most 500 ids per request.');
  const images = await em.find(Image, { id: { $in: ids }, organization: orgId });
  if (images.length !== ids.length) {
    const found = new Set(images.map((i) => i.id));
    throw new AppError('not_found', `Images not found: ${ids.filter((id) => !found.has(id)).join(', ')}.`);
  }
  // Objects first: if storage fails the rows stay and a retry finishes the job.
  await storage.remove(images.flatMap((i) => variantKeys(orgId, i.id)));
  await em.nativeDelete(Image, { id: { $in: ids }, organization: orgId });
}
