import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A company-document folder; `path` is `/Parent/Child` (names are unique among siblings, case-insensitive). */
export const DocumentFolder = defineEntity({
  name: 'DocumentFolder',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    name: p.string().length(255),
    parentId: p.uuid().nullable(),
    path: p.text(),
    depth: p.integer(),
    externalId: p.string().length(200).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [
    {
      name: 'document_folder_sibling_name_unique',
      expression:
        'create unique index "document_folder_sibling_name_unique" on "document_folder" ("organization_id", coalesce("parent_id", \'00000000-0000-0000-0000-000000000000\'), lower("name"))',
    },
  ],
});
export type DocumentFolder = InferEntity<typeof DocumentFolder>;

/** A company document; its bytes are a private object `documents/<organizationId>/<id>` in the bucket. */
export const CompanyDocument = defineEntity({
  name: 'CompanyDocument',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    name: p.string().length(255),
    fileExtension: p.string().length(10),
    mimeType: p.string().length(200),
    size: p.bigint('number'),
    folderId: p.uuid().nullable(),
    externalId: p.string().length(200).nullable(),
    storageKey: p.string().length(300),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [{ name: 'company_document_org_folder_index', properties: ['organizationId', 'folderId'] }],
  uniques: [
    {
      name: 'company_document_folder_name_unique',
      expression:
        'create unique index "company_document_folder_name_unique" on "company_document" ("organization_id", coalesce("folder_id", \'00000000-0000-0000-0000-000000000000\'), lower("name"))',
    },
  ],
});
export type CompanyDocument = InferEntity<typeof CompanyDocument>;
