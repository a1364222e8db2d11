/**
 * Company document endpoints (SPEC, prefix /api/companydocs): folders, uploads, downloads,
 * signed URLs, moves, deletes and storage stats. Admin writes, SalesRep reads, Customer 403.
 * Use cases: src/services/documents/.
 */
import * as yup from 'yup';
import { folderNameProblem } from '../domain/documents/rules.js';
import type { Req } from '../http/route.js';
import * as schema from '../domain/documents/responses.js';
import { created, defineRoute, file, json, LOCATION, noContent, ok } from '../http/route.js';
import {
  createFolder,
  deleteDocuments,
  deleteFolder,
  documentViews,
  folderView,
  getDocument,
  getFolder,
  listDocuments,
  listFolders,
  moveDocuments,
  openDownload,
  signedUrl,
  storageStatsOf,
  uploadDocument,
  type DocumentDeps,
} from '../services/documents/documents.js';
import { documentStoreFor } from '../services/documents/object-store.js';
import { uuid } from './schemas.js';
import { fileField } from '../http/upload.js';

const P = '/api/companydocs';
const TAG = 'Company documents';
const READ = ['Admin', 'SalesRep'] as const;
const WRITE = ['Admin'] as const;
const common = { 401: 'Unauthenticated', 403: 'Customer token (reads) or not Admin (writes)' };

const docDeps = (r: Pick<Req, 'em' | 'deps'>): DocumentDeps => ({ em: r.em, config: r.deps.config, store: documentStoreFor(r.deps.config) });

const folderBody = yup.object({
  name: yup
    .string()
    .required('name is required.')
    .test('folder-name', (v, ctx) => {
      const problem = v === undefined ? null : folderNameProblem(v);
      return problem ? ctx.createError({ message: problem }) : true;
    }),
  parentId: uuid().nullable(),
  externalId: yup.string().trim().max(200).nullable(),
});
const uploadBody = yup.object({
  file: fileField().required('file is required (multipart/form-data).'),
  folderId: uuid().nullable(),
  externalId: yup.string().trim().max(200).nullable(),
});
const ids = () =>
  yup
    .array(uuid().required())
    .required('documentIds is required.')
    .min(1, 'documentIds must name 1 to 100 documents.')
    .max(100, 'documentIds must name 1 to 100 documents.');
const targetFolder = () => uuid().nullable().defined('targetFolderId is required (null moves to the root).');
const moveBody = yup.object({ targetFolderId: targetFolder() });
const bulkMoveBody = yup.object({ documentIds: ids(), targetFolderId: targetFolder() });
const bulkDeleteBody = yup.object({ documentIds: ids() });

export const documentRoutes = [
  defineRoute({
    method: 'post',
    path: `${P}/folders`,
    operationId: 'createDocumentFolder',
    summary: 'Create a folder (name unique among its siblings; at most 10 levels deep)',
    tag: TAG,
    auth: WRITE,
    body: folderBody,
    responses: { 201: json(schema.folderReply, 'The new folder', { headers: LOCATION }), 400: 'Bad name or unknown parentId', 409: 'A sibling has that name', ...common },
    async handler({ em, orgId, body }) {
      const folder = folderView(await createFolder(em, orgId, body));
      return created({ folder }, `${P}/folders/${folder.folderId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${P}/folders`,
    operationId: 'listDocumentFolders',
    summary: 'Every folder of the organization, by path',
    tag: TAG,
    auth: READ,
    responses: { 200: json(schema.folderList, 'Every folder of the organization'), ...common },
    async handler({ em, orgId }) {
      return ok({ folders: (await listFolders(em, orgId)).map(folderView) });
    },
  }),
  defineRoute({
    method: 'get',
    path: `${P}/folders/:folderId`,
    operationId: 'getDocumentFolder',
    summary: 'One folder',
    tag: TAG,
    auth: READ,
    responses: { 200: json(schema.folderReply, 'The folder'), 404: 'No such folder', ...common },
    async handler({ em, orgId, params }) {
      return ok({ folder: folderView(await getFolder(em, orgId, params.folderId)) });
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${P}/folders/:folderId`,
    operationId: 'deleteDocumentFolder',
    summary: 'Delete an empty folder',
    tag: TAG,
    auth: WRITE,
    responses: { 204: 'Deleted', 400: 'The folder is not empty', 404: 'No such folder', ...common },
    async handler({ em, orgId, params }) {
      await deleteFolder(em, orgId, params.folderId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'post',
    path: `${P}/documents/upload`,
    operationId: 'uploadDocument',
    summary: 'Upload a document (multipart: file, optional folderId, externalId); type sniffed from the bytes; 50 MB at most',
    tag: TAG,
    auth: WRITE,
    bodyKind: 'multipart',
    body: uploadBody,
    responses: {
      201: json(schema.documentReply, 'The stored document with a signed cdnUrl valid 1 hour', { headers: LOCATION }),
      400: 'No file or unknown folderId',
      409: 'The storage quota would be exceeded (the message names the free space)',
      413: 'Larger than 50 MB',
      415: 'Type not accepted, or the bytes do not match the extension',
      ...common,
    },
    async handler(r) {
      const doc = await uploadDocument(docDeps(r), r.orgId, {
        filepath: r.body.file.filepath,
        originalFilename: r.body.file.originalFilename ?? null,
        folderId: r.body.folderId,
        externalId: r.body.externalId,
      });
      const [view] = await documentViews(docDeps(r), r.orgId, [doc]);
      return created({ document: view }, `${P}/documents/${doc.id}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${P}/documents`,
    operationId: 'listDocuments',
    summary: 'Documents: of one folder with ?folderId= (folderId=root for the root), else all of the organization',
    tag: TAG,
    auth: READ,
    query: yup.object({ folderId: yup.string().trim() }),
    responses: { 200: json(schema.documentList, 'The documents, each with a signed cdnUrl'), 404: 'No such folder', ...common },
    async handler(r) {
      const docs = await listDocuments(r.em, r.orgId, r.query.folderId);
      return ok({ documents: await documentViews(docDeps(r), r.orgId, docs) });
    },
  }),
  defineRoute({
    method: 'get',
    path: `${P}/documents/:documentId`,
    operationId: 'getDocument',
    summary: 'One document with a signed cdnUrl',
    tag: TAG,
    auth: READ,
    responses: { 200: json(schema.documentReply, 'The document with a signed cdnUrl'), 404: 'No such document', ...common },
    async handler(r) {
      const [view] = await documentViews(docDeps(r), r.orgId, [await getDocument(r.em, r.orgId, r.params.documentId)]);
      return ok({ document: view });
    },
  }),
  defineRoute({
    method: 'get',
    path: `${P}/documents/:documentId/download`,
    operationId: 'downloadDocument',
    summary: 'The bytes, streamed, with Content-Type, Content-Disposition (attachment) and Content-Length',
    tag: TAG,
    auth: READ,
    responses: { 200: file('*/*', 'The stored bytes, with the media type they were uploaded with'), 404: 'No such document', ...common },
    async handler(r) {
      const { stream, doc, disposition } = await openDownload(docDeps(r), r.orgId, r.params.documentId);
      return {
        status: 200,
        headers: { 'Content-Disposition': disposition, 'Content-Length': String(doc.size), 'Cache-Control': 'private, no-store' },
        raw: { contentType: doc.mimeType, data: stream },
      };
    },
  }),
  defineRoute({
    method: 'put',
    path: `${P}/documents/:documentId/move`,
    operationId: 'moveDocument',
    summary: 'Move a document to a folder (targetFolderId null = root)',
    tag: TAG,
    auth: WRITE,
    body: moveBody,
    responses: { 204: 'Moved', 400: 'Unknown target folder', 404: 'No such document', ...common },
    async handler({ em, orgId, params, body }) {
      await getDocument(em, orgId, params.documentId);
      await moveDocuments(em, orgId, [params.documentId], body.targetFolderId ?? null, 'documentId');
      return noContent();
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${P}/documents/:documentId`,
    operationId: 'deleteDocument',
    summary: 'Delete a document; its stored file is removed permanently',
    tag: TAG,
    auth: WRITE,
    responses: { 204: 'Deleted', 404: 'No such document', ...common },
    async handler(r) {
      await getDocument(r.em, r.orgId, r.params.documentId);
      await deleteDocuments(docDeps(r), r.orgId, [r.params.documentId], 'documentId');
      return noContent();
    },
  }),
  defineRoute({
    method: 'post',
    path: `${P}/documents/bulk-delete`,
    operationId: 'deleteDocumentsInBulk',
    summary: 'Delete 1 to 100 documents, all or nothing',
    tag: TAG,
    auth: WRITE,
    body: bulkDeleteBody,
    responses: { 204: 'Deleted', 400: 'Bad or unknown ids (named); nothing deleted', ...common },
    async handler(r) {
      await deleteDocuments(docDeps(r), r.orgId, r.body.documentIds);
      return noContent();
    },
  }),
  defineRoute({
    method: 'post',
    path: `${P}/documents/bulk-move`,
    operationId: 'moveDocumentsInBulk',
    summary: 'Move 1 to 100 documents to a folder (null = root), all or nothing',
    tag: TAG,
    auth: WRITE,
    body: bulkMoveBody,
    responses: { 204: 'Moved', 400: 'Bad or unknown ids or folder (named); nothing moved', ...common },
    async handler({ em, orgId, body }) {
      await moveDocuments(em, orgId, body.documentIds, body.targetFolderId ?? null);
      return noContent();
    },
  }),
  defineRoute({
    method: 'post',
    path: `${P}/documents/:documentId/refresh-url`,
    operationId: 'refreshDocumentUrl',
    summary: 'A new signed cdnUrl valid 1 hour',
    tag: TAG,
    auth: READ,
    answersSecret: true,
    responses: { 200: json(schema.documentUrl, 'A new signed URL'), 404: 'No such document', ...common },
    async handler(r) {
      const doc = await getDocument(r.em, r.orgId, r.params.documentId);
      return ok({ cdnUrl: await signedUrl(docDeps(r), doc) });
    },
  }),
  defineRoute({
    method: 'get',
    path: `${P}/stats/storage`,
    operationId: 'getDocumentStorageStats',
    summary: 'Storage used against the organization quota',
    tag: TAG,
    auth: READ,
    responses: { 200: json(schema.storageStats, "The organization's storage use against its quota"), ...common },
    async handler({ em, deps, orgId }) {
      return ok({ stats: await storageStatsOf(em, deps.config, orgId) });
    },
  }),
];
