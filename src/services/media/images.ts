/**
 * Image processing shared by direct uploads and remote ingestion: decode with sharp,
 * check the format, write small/medium/large variants to object storage, record the Image.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import sharp, { type Metadata } from 'sharp';
import { acceptedFormat, contentTypeOf, IMAGE_FORMATS, MAX_INPUT_PIXELS, VARIANTS, variantFormat, type ImageFormat } from '../../domain/images/rules.js';
import { Image } from '../../entities/index.js';
import type { Storage } from '../../adapters/storage.js';
import type { Out } from '../../domain/contract.js';
import type { image } from '../../domain/resources.js';

/** The input is not an image we accept (a client error, never retried). */
export class UnsupportedImageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedImageError';
  }
}

export const imageKeyPrefix = (orgId: string, imageId: string) => `images/${orgId}/${imageId}/`;
export const variantKeys = (orgId: string, imageId: string) => VARIANTS.map((v) => `${imageKeyPrefix(orgId, imageId)}${v.name}`);

export interface ImageUrls {
  baseUrl: string;
  smallUrl: string;
  mediumUrl: string;
  largeUrl: string;
}

export function imageUrls(storage: Storage, orgId: string, imageId: string): ImageUrls {
  const baseUrl = storage.publicUrl(imageKeyPrefix(orgId, imageId));
  return { baseUrl, smallUrl: `${baseUrl}small`, mediumUrl: `${baseUrl}medium`, largeUrl: `${baseUrl}large` };
}

/** The stored image fields the view shows: an Image entity, or a plain row (the product read aggregates them in SQL). */
export interface ImageFields {
  id: string;
  organization: string | { id: string };
  name: string;
  height: number;
  width: number;
  contentSize: number;
  source: string;
  format: Image['format'];
  active: boolean;
  sku?: string | null;
  categoryName?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The Image resource of SPEC.md (plus sku and categoryName). */
export function imageView(storage: Storage, img: ImageFields): Out<typeof image> {
  const orgId = typeof img.organization === 'string' ? img.organization : img.organization.id;
  return {
    id: img.id,
    organizationId: orgId,
    name: img.name,
    height: img.height,
    width: img.width,
    contentSize: img.contentSize,
    source: img.source,
    format: img.format,
    active: img.active,
    sku: img.sku ?? null,
    categoryName: img.categoryName ?? null,
    ...imageUrls(storage, orgId, img.id),
    createdAt: new Date(img.createdAt).toISOString(),
    updatedAt: new Date(img.updatedAt).toISOString(),
  };
}

export interface Decoded {
  format: ImageFormat;
  width: number;
  height: number;
}

/** Reads the header; throws UnsupportedImageError when the data is not a jpg/png/webp/gif image. */
export async function inspectImage(data: Buffer): Promise<Decoded> {
  let meta: Metadata;
  try {
    meta = await sharp(data, { failOn: 'error', limitInputPixels: false }).metadata(); // header only; the pixel cap is checked below with a clear message
  } catch {
    throw new UnsupportedImageError(`The file is not a readable image (accepted formats: ${IMAGE_FORMATS.join(', ')}).`);
  }
  const format = acceptedFormat(meta.format);
  if (!format) throw new UnsupportedImageError(`Image format ${meta.format ?? 'unknown'} is not accepted (accepted: ${IMAGE_FORMATS.join(', ')}).`);
  if (!meta.width || !meta.height) throw new UnsupportedImageError('The image has no dimensions.');
  if (meta.width * meta.height * (meta.pages ?? 1) > MAX_INPUT_PIXELS)
    throw new UnsupportedImageError(`The image has more than ${MAX_INPUT_PIXELS.toLocaleString('en-US')} pixels.`);
  // Orientation 5-8 swaps the displayed axes.
  const swap = (meta.orientation ?? 1) >= 5;
  return { format, width: swap ? meta.height : meta.width, height: swap ? meta.width : meta.height };
}

async function renderVariant(data: Buffer, format: ImageFormat, maxWidth: number): Promise<Buffer> {
  let pipeline = sharp(data, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS }).rotate().resize({ width: maxWidth, withoutEnlargement: true });
  const out = variantFormat(format);
  if (out === 'jpg') pipeline = pipeline.jpeg({ quality: 85, mozjpeg: true });
  else if (out === 'png') pipeline = pipeline.png({ compressionLevel: 8 });
  else pipeline = pipeline.webp({ quality: 85 });
  try {
    return await pipeline.toBuffer();
  } catch {
    throw new UnsupportedImageError('The image could not be decoded.');
  }
}

export interface StoreImageInput {
  orgId: string;
  data: Buffer;
  name: string;
  source: string;
  sku?: string | null;
  categoryName?: string | null;
  /** Reuse this id (remote ingestion passes a deterministic one so retries overwrite, not duplicate). */
  imageId?: string;
}

/** Decodes, writes the three variants, then records the Image (objects first: a row never points at nothing). */
export async function storeImage(em: EntityManager, storage: Storage, input: StoreImageInput): Promise<Image> {
  const decoded = await inspectImage(input.data);
  const imageId = input.imageId ?? randomUUID();
  const contentType = contentTypeOf(variantFormat(decoded.format));
  const prefix = imageKeyPrefix(input.orgId, imageId);
  for (const v of VARIANTS) {
    const buf = await renderVariant(input.data, decoded.format, v.maxWidth);
    await storage.put(`${prefix}${v.name}`, buf, contentType);
  }
  const existing = input.imageId ? await em.findOne(Image, { id: imageId, organization: input.orgId }) : null;
  const fields = {
    name: input.name,
    width: decoded.width,
    height: decoded.height,
    contentSize: input.data.length,
    source: input.source,
    format: decoded.format,
    active: true,
    sku: input.sku ?? null,
    categoryName: input.categoryName ?? null,
  };
  const image = existing ? Object.assign(existing, fields) : em.create(Image, { id: imageId, organization: input.orgId, ...fields });
  await em.flush();
  return image;
}
