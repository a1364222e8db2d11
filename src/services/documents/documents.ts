/**
 * Company documents (SPEC "Company document endpoints", DESIGN "Company documents"): folders
 * with paths, uploads sniffed from their bytes into private objects, presigned cdnUrls,
 * streamed downloads, all-or-nothing bulk move and delete, and the per-organization quota.
 */
import type { companyDocument, folder } from '../../domain/documents/responses.js';
import type { Out } from '../../domain/contract.js';
import { open, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { boundRows } from '../../db/orm-sql.js';
import { UUID_RE } from '../../domain/ids.js';
import {
  bytesMatchKind,
  CDN_URL_SECONDS,
  cleanFileName,
  contentDisposition,
  extensionOf,
  folderNameProblem,
  formatBytes,
  kindOfExtension,
  MAX_DOCUMENT_BYTES,
  MAX_FOLDER_DEPTH,
  MIME_TYPES,
  storageStats,
  uniqueName,
} from '../../domain/documents/rules.js';
import { CompanyDocument, DocumentFolder } from '../../entities/CompanyDocument.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { log } from '../../logger.js';
import { documentKey, type DocumentObjectStore } from './object-store.js';

export interface DocumentDeps {
  em: EntityManager;
  config: Config;
  store: DocumentObjectStore;
}

export function folderView(f: DocumentFolder) {
  return {
    folderId: f.id,
    organizationId: f.organizationId,
    name: f.name,
    parentId: f.parentId ?? null,
    path: f.path,
    externalId: f.externalId ?? null,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  } satisfies Out<typeof folder>;
}

async function findFolder(em: EntityManager, orgId: string, id: string): Promise<DocumentFolder | null> {
  return UUID_RE.test(id) ? em.findOne(DocumentFolder, { id, organizationId: orgId }) : null;
}

/** Every folder of the organization, by path. */
export async function listFolders(em: EntityManager, orgId: string): Promise<DocumentFolder[]> {
  return em.find(DocumentFolder, { organizationId: orgId }, { orderBy: { path: 'asc' } });
}

export async function getFolder(em: EntityManager, orgId: string, id: string): Promise<DocumentFolder> {
  const f = await findFolder(em, orgId, id);
  if (!f) throw AppError.notFound('Folder');
  return f;
}

export async function createFolder(em: EntityManager, orgId: string, input: { name: string; parentId?: string | null; externalId?: string | null }) {
  const problem = folderNameProblem(input.name);
  if (problem) throw AppError.field('name', problem);
  let parent: DocumentFolder | null = null;
  if (input.parentId) {
    parent = await findFolder(em, orgId, input.parentId);
    if (!parent) throw AppError.field('parentId', `No folder ${input.parentId}.`);
    if (parent.depth >= MAX_FOLDER_DEPTH) throw AppError.field('parentId', `Folders nest at most ${MAX_FOLDER_DEPTH} levels deep.`);
  }
  const name = input.name.trim();
  const f = em.create(DocumentFolder, {
    organizationId: orgId,
    name,
    parentId: parent?.id ?? null,
    path: `${parent?.path ?? ''}/${name}`,
    depth: (parent?.depth ?? 0) + 1,
    externalId: input.externalId ?? null,
  });
  try {
    await em.flush();
  } catch (e) {
    if (isUniqueViolation(e, 'document_folder_sibling_name_unique'))
      throw AppError.conflict(`A folder named "${name}" already exists ${parent ? `in ${parent.path}` : 'at the root'}.`);
    throw e;
  }
  return f;
}

export async function deleteFolder(em: EntityManager, orgId: string, id: string): Promise<void> {
  const f = await getFolder(em, orgId, id);
  const [subfolders, documents] = await Promise.all([
    em.count(DocumentFolder, { organizationId: orgId, parentId: f.id }),
    em.count(CompanyDocument, { organizationId: orgId, folderId: f.id }),
  ]);
  if (subfolders || documents) throw AppError.badRequest(`The folder ${f.path} is not empty (${subfolders} folders, ${documents} documents).`);
  await em.remove(f).flush();
}

/** Document views with a fresh presigned cdnUrl (valid one hour) and the folder path. */
export async function documentViews(deps: DocumentDeps, orgId: string, docs: CompanyDocument[]) {
  const folderIds = [...new Set(docs.map((d) => d.folderId).filter((x): x is string => !!x))];
  const folders = folderIds.length ? await deps.em.find(DocumentFolder, { organizationId: orgId, id: { $in: folderIds } }) : [];
  const pathOf = new Map(folders.map((f) => [f.id, f.path]));
  return Promise.all(
    docs.map(async (d) => ({
      documentId: d.id,
      organizationId: d.organizationId,
      name: d.name,
      fileExtension: d.fileExtension,
      mimeType: d.mimeType,
      size: d.size,
      folderId: d.folderId ?? null,
      cdnUrl: await signedUrl(deps, d),
      path: `${d.folderId ? (pathOf.get(d.folderId) ?? '') : ''}/${d.name}`,
      externalId: d.externalId ?? null,
      createdAt: d.createdAt.toISOString(),
      updatedAt: d.updatedAt.toISOString(),
    } satisfies Out<typeof companyDocument>)),
  );
}

export function signedUrl(deps: Pick<DocumentDeps, 'store'>, d: CompanyDocument): Promise<string> {
  return deps.store.presignedGet(d.storageKey, CDN_URL_SECONDS, contentDisposition(d.name), d.mimeType);
}

export async function getDocument(em: EntityManager, orgId: string, id: string): Promise<CompanyDocument> {
  const d = UUID_RE.test(id) ? await em.findOne(CompanyDocument, { id, organizationId: orgId }) : null;
  if (!d) throw AppError.notFound('Document');
  return d;
}

export async function listDocuments(em: EntityManager, orgId: string, folderId: string | undefined): Promise<CompanyDocument[]> {
  if (folderId !== undefined && folderId !== '' && folderId !== 'root') await getFolder(em, orgId, folderId);
  const where =
    folderId === undefined || folderId === '' ? { organizationId: orgId } : { organizationId: orgId, folderId: folderId === 'root' ? null : folderId };
  return em.find(CompanyDocument, where, { orderBy: { name: 'asc', id: 'asc' } });
}

async function usedBytes(em: EntityManager, orgId: string): Promise<{ files: number; bytes: number }> {
  // boundRows runs on em's transaction when it has one (src/db/orm-sql.ts).
  const rows = await boundRows<{ files: string; bytes: string | null }>(em, 'select count(*) as files, sum(size) as bytes from company_document where organization_id = $1', [orgId]);
  return { files: Number(rows[0].files), bytes: Number(rows[0].bytes ?? 0) };
}

export async function storageStatsOf(em: EntityManager, config: Config, orgId: string) {
  const { files, bytes } = await usedBytes(em, orgId);
  return storageStats(files, bytes, config.documentQuotaBytes);
}

function quotaError(config: Config, used: number, size: number): AppError {
  const free = Math.max(0, config.documentQuotaBytes - used);
  return AppError.conflict(
    `The document storage quota would be exceeded: ${free} bytes (${formatBytes(free)}) free, the file has ${size} bytes (${formatBytes(size)}).`,
  );
}

async function readEnds(filepath: string, size: number): Promise<{ head: Buffer; tail: Buffer }> {
  const fh = await open(filepath, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 8192));
    await fh.read(head, 0, head.length, 0);
    const tailLen = Math.min(size, 65536);
    const tail = Buffer.alloc(tailLen);
    await fh.read(tail, 0, tailLen, size - tailLen);
    return { head, tail };
  } finally {
    await fh.close();
  }
}

/** Serialises quota checks and name choices per organization inside the current transaction. */
async function lockOrganization(em: EntityManager, orgId: string): Promise<void> {
  await boundRows(em, 'select pg_advisory_xact_lock(hashtext($1))', [`company-documents:${orgId}`]);
}

async function takenNames(em: EntityManager, orgId: string, folderId: string | null, exceptIds: string[] = []): Promise<string[]> {
  const rows = await em.find(
    CompanyDocument,
    { organizationId: orgId, folderId, ...(exceptIds.length ? { id: { $nin: exceptIds } } : {}) },
    { fields: ['name'] },
  );
  return rows.map((r) => r.name);
}

export async function uploadDocument(
  deps: DocumentDeps,
  orgId: string,
  input: { filepath: string; originalFilename: string | null; folderId?: string | null; externalId?: string | null },
): Promise<CompanyDocument> {
  const { em, config, store } = deps;
  const name = cleanFileName(input.originalFilename);
  if (!name) throw AppError.field('file', 'The file needs a name with an extension.');
  const ext = extensionOf(name);
  const kind = kindOfExtension(ext);
  if (!kind)
    throw new AppError(
      'unsupported_media_type',
      `Files of type "${ext || 'none'}" are not accepted; accepted: pdf, png, jpg, gif, webp, txt, csv, docx, xlsx, pptx, zip.`,
    );
  const { size } = await stat(input.filepath);
  if (size > MAX_DOCUMENT_BYTES) throw new AppError('payload_too_large', 'A document may be at most 50 MB.');
  const { head, tail } = await readEnds(input.filepath, size);
  if (!bytesMatchKind(kind, head, tail, size))
    throw new AppError('unsupported_media_type', `The file's content is not a ${kind} file, as its extension ".${ext}" claims.`);
  const folder = input.folderId ? await findFolder(em, orgId, input.folderId) : null;
  if (input.folderId && !folder) throw AppError.field('folderId', `No folder ${input.folderId}.`);
  const before = await usedBytes(em, orgId);
  if (before.bytes + size > config.documentQuotaBytes) throw quotaError(config, before.bytes, size);

  const id = randomUUID();
  const storageKey = documentKey(orgId, id);
  await store.put(storageKey, createReadStream(input.filepath), size, MIME_TYPES[kind]);
  try {
    return await em.transactional(async (tx) => {
      await lockOrganization(tx, orgId);
      const used = await usedBytes(tx, orgId);
      if (used.bytes + size > config.documentQuotaBytes) throw quotaError(config, used.bytes, size);
      return tx.create(CompanyDocument, {
        id,
        organizationId: orgId,
        name: uniqueName(name, await takenNames(tx, orgId, folder?.id ?? null)),
        fileExtension: ext,
        mimeType: MIME_TYPES[kind],
        size,
        folderId: folder?.id ?? null,
        externalId: input.externalId ?? null,
        storageKey,
      });
    });
  } catch (e) {
    await store.remove([storageKey]).catch(() => undefined);
    throw e;
  }
}

async function findAll(em: EntityManager, orgId: string, ids: string[], field: string): Promise<CompanyDocument[]> {
  const unique = [...new Set(ids)];
  const docs = await em.find(CompanyDocument, { organizationId: orgId, id: { $in: unique } });
  const found = new Set(docs.map((d) => d.id));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length)
    throw AppError.validation({ [field]: missing.map((id) => `No document ${id}.`) }, `Unknown document ids: ${missing.join(', ')}. Nothing was changed.`);
  return docs;
}

/** Moves documents to a folder (null = root), all or nothing; a clashing name gets " (2)". */
export async function moveDocuments(em: EntityManager, orgId: string, ids: string[], targetFolderId: string | null, field = 'documentIds'): Promise<void> {
  await em.transactional(async (tx) => {
    await lockOrganization(tx, orgId);
    const target = targetFolderId ? await findFolder(tx, orgId, targetFolderId) : null;
    if (targetFolderId && !target) throw AppError.field('targetFolderId', `No folder ${targetFolderId}.`);
    const docs = await findAll(tx, orgId, ids, field);
    const moving = docs.filter((d) => (d.folderId ?? null) !== (target?.id ?? null));
    const taken = await takenNames(
      tx,
      orgId,
      target?.id ?? null,
      moving.map((d) => d.id),
    );
    for (const d of moving) {
      d.name = uniqueName(d.name, taken);
      taken.push(d.name);
      d.folderId = target?.id ?? null;
    }
  });
}

/** Validates every id first (all or nothing), removes the objects from storage, then the rows. */
export async function deleteDocuments(deps: DocumentDeps, orgId: string, ids: string[], field = 'documentIds'): Promise<void> {
  const docs = await findAll(deps.em, orgId, ids, field);
  await deps.store.remove(docs.map((d) => d.storageKey));
  await deps.em.nativeDelete(CompanyDocument, { organizationId: orgId, id: { $in: docs.map((d) => d.id) } });
}

/** The object's bytes as a stream with the download headers. */
export async function openDownload(deps: DocumentDeps, orgId: string, id: string): Promise<{ stream: Readable; doc: CompanyDocument; disposition: string }> {
  const doc = await getDocument(deps.em, orgId, id);
  const stream = await deps.store.get(doc.storageKey);
  if (!stream) {
    // The record outlived its bytes (a restore without the object store, a bucket emptied by hand): say so, log it for operators.
    log.error('company document without its stored object', { organizationId: orgId, documentId: doc.id, storageKey: doc.storageKey });
    throw AppError.notFound("The document's stored file");
  }
  return { stream, doc, disposition: contentDisposition(doc.name) };
}
