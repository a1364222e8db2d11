/**
 * Image endpoints (SPEC "Image endpoints"): direct and category uploads (processed at once),
 * remote ingestion (a Temporal workflow on the `media` queue, with a per-image outcome at
 * GET /api/images/ingestions/{jobId}), list, get and delete (the stored variants go too).
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as yup from 'yup';
import { INGESTION_SLOT_WINDOW_MS, MAX_CONCURRENT_INGESTIONS_PER_ORG, MAX_REMOTE_IMAGES, nameFromFileName, normaliseCategoryName, resolveSku, urlShapeProblem } from '../domain/images/rules.js';
import { Image, ImageIngestion, ImageIngestionItem } from '../entities/index.js';
import { AppError } from '../errors.js';
import { dataEnvelope, parseList, type ListSpec } from '../http/paging.js';
import { defineRoute, noContent, ok } from '../http/route.js';
import { imageView, storeImage, UnsupportedImageError, variantKeys } from '../services/media/images.js';
import { startOnce } from '../integrations/temporal.js';
import { UUID_RE } from './schemas.js';
import type { Deps } from '../deps.js';

/** The part of a formidable File the handlers use. */
interface UploadedFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
}

const isUploadedFile = (v: unknown): v is UploadedFile =>
  !!v && typeof v === 'object' && typeof (v as UploadedFile).filepath === 'string' && typeof (v as UploadedFile).size === 'number';

const imageFile = () =>
  yup
    .mixed<UploadedFile>()
    .meta({ openapi: { type: 'string', format: 'binary' } })
    .required('image is required (a jpg, png, webp or gif file).')
    .test('is-file', 'image must be a file upload (multipart/form-data), not a text field.', (v) => v === undefined || isUploadedFile(v));

const localUpload = yup.object({
  image: imageFile(),
  sku: yup.string().trim().max(100, 'sku must be at most 100 characters.').nullable(),
  extractSkuFromImageName: yup.boolean().typeError('extractSkuFromImageName must be true or false.').default(false),
});

const categoryUpload = yup.object({
  image: imageFile(),
  categoryName: yup.string().trim().required('categoryName is required.').max(100, 'categoryName must be at most 100 characters.'),
});

const remoteImage = yup.object({
  imageUrl: yup
    .string()
    .trim()
    .required('imageUrl is required.')
    .max(2048, 'imageUrl must be at most 2048 characters.')
    .test('http-url', (v, ctx) => {
      const problem = v ? urlShapeProblem(v) : null;
      return problem ? ctx.createError({ message: problem }) : true;
    }),
  imageName: yup.string().trim().max(255, 'imageName must be at most 255 characters.').nullable(),
  productSku: yup.string().trim().max(100, 'productSku must be at most 100 characters.').nullable(),
  extractSkuFromImageName: yup.boolean().default(false),
});

const remoteBatch = yup.object({
  images: yup
    .array(remoteImage)
    .required('images is required.')
    .min(1, 'images must contain at least one image.')
    .max(MAX_REMOTE_IMAGES, `images may contain at most ${MAX_REMOTE_IMAGES} images per request.`),
});

const deleteBody = yup.object({
  ids: yup.string().trim().required('ids is required (comma-separated image ids).').max(500 * 37, 'ids may name at most 500 images.'),
});

const listSpec: ListSpec = {
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

/** Reads an accepted upload, enforcing the image size limit (413) before decoding. */
async function readUpload(file: UploadedFile, deps: Deps): Promise<Buffer> {
  const max = deps.config.images.maxBytes;
  if (file.size > max) throw new AppError('payload_too_large', `The image is larger than the ${Math.round(max / (1024 * 1024))} MB limit.`);
  if (file.size === 0) throw AppError.field('image', 'image is empty.');
  return readFile(file.filepath);
}

function asImageFieldError(e: unknown): never {
  if (e instanceof UnsupportedImageError) throw AppError.field('image', e.message);
  throw e;
}

export const imageRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/images/from-local',
    summary: 'Upload an image file (jpg, png, webp, gif; up to 20 MB); stored as small, medium and large variants',
    tag: 'Images',
    auth: ['Admin'],
    bodyKind: 'multipart',
    maxBodyBytes: (config) => config.images.maxBytes,
    body: localUpload,
    responses: {
      204: 'Stored; header Location names the new image',
      400: 'Missing file, not an accepted image, or malformed fields',
      401: 'Unauthenticated',
      403: 'Not Admin',
      413: 'Larger than 20 MB',
    },
    async handler({ em, deps, orgId, body }) {
      const file = body.image;
      const data = await readUpload(file, deps);
      const name = nameFromFileName(file.originalFilename) || 'image';
      const image = await storeImage(em, deps.storage, {
        orgId,
        data,
        name,
        source: 'local',
        sku: resolveSku({ sku: body.sku, extractSkuFromImageName: body.extractSkuFromImageName, imageName: name }),
      }).catch(asImageFieldError);
      return { status: 204, headers: { Location: `/api/images/${image.id}` } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/images/from-remote',
    summary: 'Ingest images from public URLs asynchronously (up to 500 a request); header X-Ingestion-Id gives the job to poll',
    tag: 'Images',
    auth: ['Admin'],
    body: remoteBatch,
    responses: {
      204: 'Accepted for processing; headers X-Ingestion-Id and Location (GET /api/images/ingestions/{jobId}) report each image outcome',
      400: 'Missing images, more than 500, or a malformed or non-http(s) imageUrl',
      401: 'Unauthenticated',
      403: 'Not Admin',
      429: 'The organization already runs the maximum number of ingestions',
    },
    async handler({ em, deps, orgId, body }) {
      // Fairness on the shared media queue: one organization runs at most a few ingestions at once.
      const running = await em.count(ImageIngestion, { organization: orgId, completedAt: null, createdAt: { $gt: new Date(Date.now() - INGESTION_SLOT_WINDOW_MS) } });
      if (running >= MAX_CONCURRENT_INGESTIONS_PER_ORG)
        throw new AppError('rate_limited', `At most ${MAX_CONCURRENT_INGESTIONS_PER_ORG} image ingestions of an organization run at once; retry when one completes.`, undefined, { 'Retry-After': '30' });
      const jobId = randomUUID();
      const ingestion = em.create(ImageIngestion, { id: jobId, organization: orgId });
      const items = body.images.map((img, position) =>
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
        });
      } catch (e) {
        // No workflow, no job: do not leave items pending forever.
        await em.nativeDelete(ImageIngestion, { id: jobId });
        throw e;
      }
      return { status: 204, headers: { 'X-Ingestion-Id': jobId, Location: `/api/images/ingestions/${jobId}` } };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/images/ingestions/:jobId',
    summary: 'Outcome of a remote ingestion: each image pending, succeeded (with imageId) or failed (with reason)',
    tag: 'Images',
    auth: ['Admin'],
    responses: { 200: '{ jobId, status (running|completed), counts, items: [ { imageUrl, imageName, productSku, status, reason, imageId } ] }', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such job in the organization' },
    async handler({ em, orgId, params }) {
      if (!UUID_RE.test(params.jobId)) throw AppError.notFound('Ingestion job');
      const job = await em.findOne(ImageIngestion, { id: params.jobId, organization: orgId });
      if (!job) throw AppError.notFound('Ingestion job');
      const items = await em.find(ImageIngestionItem, { ingestion: job }, { orderBy: { position: 'asc' } });
      const count = (s: string) => items.filter((i) => i.status === s).length;
      return ok({
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
      });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/images/category',
    summary: 'Upload a category image; the name is the category name lowercased with spaces as hyphens',
    tag: 'Images',
    auth: ['Admin'],
    bodyKind: 'multipart',
    maxBodyBytes: (config) => config.images.maxBytes,
    body: categoryUpload,
    responses: { 200: '{ imageName, imageUrl } (imageUrl is the medium variant)', 400: 'Missing file or categoryName, or not an accepted image', 401: 'Unauthenticated', 403: 'Not Admin', 413: 'Larger than 20 MB' },
    async handler({ em, deps, orgId, body }) {
      const data = await readUpload(body.image, deps);
      const name = normaliseCategoryName(body.categoryName);
      const image = await storeImage(em, deps.storage, { orgId, data, name, source: 'local', categoryName: name }).catch(asImageFieldError);
      const view = imageView(deps.storage, image);
      // The category (matched by its normalised name) shows the newest image: SPEC Category.imageUrl.
      await em.getConnection().execute(
        `update category set image_url = ? where organization_id = ? and lower(regexp_replace(trim(name), '\\s+', '-', 'g')) = ?`,
        [view.mediumUrl, orgId, name],
      );
      return ok({ imageName: view.name, imageUrl: view.mediumUrl });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/images',
    summary: 'The organization image library, paged (sortOn Name or UpdatedAt)',
    tag: 'Images',
    auth: ['Admin'],
    responses: { 200: '{ data: [ { entity: image, links: [ { action, href, rel } ] } ], totalRecords, currentPage, totalPages, pageSize }', 400: 'Bad paging, sort or filter', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, deps, orgId, query }) {
      const q = parseList(query, listSpec);
      const [rows, total] = await em.findAndCount(
        Image,
        { organization: orgId, ...q.where },
        { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
      );
      const data = rows.map((img) => {
        const entity = imageView(deps.storage, img);
        return {
          entity,
          links: [
            { action: 'GET', href: `/api/images/${img.id}`, rel: 'self' },
            { action: 'DELETE', href: `/api/images`, rel: 'delete' },
            { action: 'GET', href: entity.mediumUrl, rel: 'image' },
          ],
        };
      });
      return ok(dataEnvelope(data, total, q, true));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/images/:id',
    summary: 'One image',
    tag: 'Images',
    auth: ['Admin'],
    responses: { 200: 'Image', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such image in the organization' },
    async handler({ em, deps, orgId, params }) {
      if (!UUID_RE.test(params.id)) throw AppError.notFound('Image');
      const img = await em.findOne(Image, { id: params.id, organization: orgId });
      if (!img) throw AppError.notFound('Image');
      return ok(imageView(deps.storage, img));
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/images',
    summary: 'Delete images by comma-separated ids; their stored variants are removed too',
    tag: 'Images',
    auth: ['Admin'],
    body: deleteBody,
    responses: { 204: 'Deleted', 400: 'Missing ids or an id that is not a UUID', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'An id names no image of the organization (nothing is deleted)' },
    async handler({ em, deps, orgId, body }) {
      const ids = [...new Set(body.ids.split(',').map((s) => s.trim()).filter(Boolean))];
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
      await deps.storage.remove(images.flatMap((i) => variantKeys(orgId, i.id)));
      await em.nativeDelete(Image, { id: { $in: ids }, organization: orgId });
      return noContent();
    },
  }),
];
