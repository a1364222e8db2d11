/**
 * Image uploads (SPEC "Image endpoints"): a product image from a file, processed at once, and a
 * category image, which becomes the category's imageUrl.
 */
import { readFile } from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundRows } from '../../db/orm-sql.js';
import type { Deps } from '../../deps.js';
import { nameFromFileName, normaliseCategoryName, resolveSku } from '../../domain/images/rules.js';
import { AppError } from '../../errors.js';
import type { UploadedFile } from '../../http/upload.js';
import { imageView, storeImage, UnsupportedImageError, type StoreImageInput } from './images.js';

type MediaDeps = Pick<Deps, 'config' | 'storage'>;

/** Reads an accepted upload, enforcing the image size limit (413) before decoding. */
async function readUpload(file: UploadedFile, deps: MediaDeps): Promise<Buffer> {
  const max = deps.config.images.maxBytes;
  if (file.size > max) throw new AppError('payload_too_large', `The image is larger than the ${Math.round(max / (1024 * 1024))} MB limit.`);
  if (file.size === 0) throw AppError.field('image', 'image is empty.');
  return readFile(file.filepath);
}

/** Stores the upload; data that is not an accepted image is a 400 on `image`. */
async function store(em: EntityManager, deps: MediaDeps, file: UploadedFile, input: Omit<StoreImageInput, 'data'>) {
  const data = await readUpload(file, deps);
  return storeImage(em, deps.storage, { ...input, data }).catch((e: unknown) => {
    if (e instanceof UnsupportedImageError) throw AppError.field('image', e.message);
    throw e;
  });
}

export interface ProductImageUpload {
  image: UploadedFile;
  sku?: string | null;
  extractSkuFromImageName: boolean;
}

/** POST /api/images/from-local: the new image's id. */
export async function uploadImage(em: EntityManager, deps: MediaDeps, orgId: string, body: ProductImageUpload): Promise<string> {
  const name = nameFromFileName(body.image.originalFilename ?? null) || 'image';
  const sku = resolveSku({ sku: body.sku, extractSkuFromImageName: body.extractSkuFromImageName, imageName: name });
  return (await store(em, deps, body.image, { orgId, name, source: 'local', sku })).id;
}

/** POST /api/images/category: the image named after the category; the category (matched by that name) shows it (SPEC Category.imageUrl). */
export async function uploadCategoryImage(em: EntityManager, deps: MediaDeps, orgId: string, body: { image: UploadedFile; categoryName: string }) {
  const name = normaliseCategoryName(body.categoryName);
  const view = imageView(deps.storage, await store(em, deps, body.image, { orgId, name, source: 'local', categoryName: name }));
  await boundRows(
    em,
    `update category set image_url = $1 where organization_id = $2 and lower(regexp_replace(trim(name), '\\s+', '-', 'g')) = $3`,
    [view.mediumUrl, orgId, name],
  );
  return { imageName: view.name, imageUrl: view.mediumUrl };
}
