/**
 * Image endpoints (SPEC "Image endpoints"): direct and category uploads (processed at once),
 * remote ingestion (a Temporal workflow on the `media` queue, with a per-image outcome at
 * GET /api/images/ingestions/{jobId}), list, get and delete (the stored variants go too).
 * The use cases are in src/services/media.
 */
import * as yup from 'yup';
import { MAX_REMOTE_IMAGES, urlShapeProblem } from '../domain/images/rules.js';
import { defineRoute, json, noContent, ok } from '../http/route.js';
import * as out from '../domain/contract.js';
import { dataPage, image } from '../domain/resources.js';
import { fileField } from '../http/upload.js';
import { ingestionStatus, startIngestion } from '../services/media/ingestions.js';
import { deleteImages, imageListSpec, listImages, readImage } from '../services/media/library.js';
import { uploadCategoryImage, uploadImage } from '../services/media/uploads.js';

const imageFile = () => fileField().required('image is required (a jpg, png, webp or gif file).');

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

export const imageRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/images/from-local',
    operationId: 'uploadImage',
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
      const id = await uploadImage(em, deps, orgId, body);
      return { status: 204, headers: { Location: `/api/images/${id}` } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/images/from-remote',
    operationId: 'ingestRemoteImages',
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
      const jobId = await startIngestion(em, deps, orgId, body.images);
      return { status: 204, headers: { 'X-Ingestion-Id': jobId, Location: `/api/images/ingestions/${jobId}` } };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/images/ingestions/:jobId',
    operationId: 'getImageIngestion',
    summary: 'Outcome of a remote ingestion: each image pending, succeeded (with imageId) or failed (with reason)',
    tag: 'Images',
    auth: ['Admin'],
    responses: {
      200: json(
        out.obj({
          jobId: out.uuid(),
          status: out.oneOf(['running', 'completed'] as const),
          createdAt: out.dateTime(),
          completedAt: out.dateTimeN(),
          counts: out.obj({ total: out.int(), pending: out.int(), succeeded: out.int(), failed: out.int() }),
          items: out.arr(out.obj({ imageUrl: out.str(), imageName: out.strN(), productSku: out.strN(), status: out.str(), reason: out.strN(), imageId: out.uuidN() })),
        }),
        'The job and each image outcome',
      ), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such job in the organization' },
    async handler({ em, orgId, params }) {
      return ok(await ingestionStatus(em, orgId, params.jobId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/images/category',
    operationId: 'uploadCategoryImage',
    summary: 'Upload a category image; the name is the category name lowercased with spaces as hyphens',
    tag: 'Images',
    auth: ['Admin'],
    bodyKind: 'multipart',
    maxBodyBytes: (config) => config.images.maxBytes,
    body: categoryUpload,
    responses: { 200: json(out.obj({ imageName: out.str(), imageUrl: out.doc(out.uri(), 'The medium variant') }), 'The stored category image'), 400: 'Missing file or categoryName, or not an accepted image', 401: 'Unauthenticated', 403: 'Not Admin', 413: 'Larger than 20 MB' },
    async handler({ em, deps, orgId, body }) {
      return ok(await uploadCategoryImage(em, deps, orgId, body));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/images',
    operationId: 'listImages',
    summary: 'The organization image library, paged (sortOn Name or UpdatedAt)',
    tag: 'Images',
    auth: ['Admin'],
    paged: imageListSpec,
    responses: {
      200: json(
        dataPage('ImagePage', out.obj({ entity: image, links: out.arr(out.obj({ action: out.str(), href: out.str(), rel: out.str() })) }), true),
        'A page of images with their links',
      ), 400: 'Bad paging, sort or filter', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, deps, orgId, query }) {
      return ok(await listImages(em, deps.storage, orgId, query));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/images/:id',
    operationId: 'getImage',
    summary: 'One image',
    tag: 'Images',
    auth: ['Admin'],
    responses: { 200: json(image, 'The image'), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such image in the organization' },
    async handler({ em, deps, orgId, params }) {
      return ok(await readImage(em, deps.storage, orgId, params.id));
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/images',
    operationId: 'deleteImages',
    summary: 'Delete images by comma-separated ids; their stored variants are removed too',
    tag: 'Images',
    auth: ['Admin'],
    body: deleteBody,
    responses: { 204: 'Deleted', 400: 'Missing ids or an id that is not a UUID', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'An id names no image of the organization (nothing is deleted)' },
    async handler({ em, deps, orgId, body }) {
      await deleteImages(em, deps.storage, orgId, body.ids);
      return noContent();
    },
  }),
];
