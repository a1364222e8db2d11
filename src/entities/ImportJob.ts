import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

import { IMPORT_KINDS, IMPORT_STATUSES, type ImportFormat, type ImportKind, type ImportMode, type ImportOnError, type ImportStatus } from '../domain/imports/kinds.js';
import type { ImportWarning } from '../domain/imports/records.js';

export { IMPORT_KINDS, IMPORT_STATUSES, type ImportFormat, type ImportKind, type ImportMode, type ImportOnError, type ImportStatus };

const list = (xs: readonly string[]) => xs.map((x) => `'${x}'`).join(', ');

/**
 * A bulk import job (one `importJob` workflow, id `import-<id>`). Counts are live: each chunk
 * adds its counts in the transaction that writes its records (see ImportChunkRun).
 */
export const ImportJob = defineEntity({
  name: 'ImportJob',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    kind: p.string().length(40).$type<ImportKind>(),
    mode: p.string().length(20).$type<ImportMode>(),
    onError: p.string().length(20).$type<ImportOnError>(),
    status: p.string().length(30).$type<ImportStatus>().default('Queued'),
    format: p.string().length(10).$type<ImportFormat>(),
    /** Object-storage key of the submitted input. */
    inputKey: p.string().length(500),
    fileName: p.string().length(300).nullable(),
    /** CSV header of the input, for the error CSV. */
    columns: p.json<string[]>().nullable(),
    /** Fields and CSV columns the kind does not know, once each (ignored on import), written when the input is read. */
    warnings: p.json<ImportWarning[]>().default('[]'),
    submittedBy: p.uuid().nullable(),
    submitterEmail: p.string().nullable(),
    totalRecords: p.integer().nullable(),
    chunkCount: p.integer().nullable(),
    processed: p.integer().default(0),
    created: p.integer().default(0),
    updated: p.integer().default(0),
    unchanged: p.integer().default(0),
    failed: p.integer().default(0),
    /** 0 for the first run, +1 for each retry of failed records. */
    generation: p.integer().default(0),
    workflowId: p.string().length(200),
    failureReason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    finishedAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'import_job_org_created_index', properties: ['organization', 'createdAt'] },
    { name: 'import_job_org_status_index', properties: ['organization', 'status'] },
  ],
  checks: [
    { name: 'import_job_status_check', expression: `status in (${list(IMPORT_STATUSES)})` },
    { name: 'import_job_kind_check', expression: `kind in (${list(IMPORT_KINDS)})` },
  ],
});
export type ImportJob = InferEntity<typeof ImportJob>;

/**
 * One processed chunk of a job run: written in the same transaction as the chunk's records, so a
 * chunk retried after a crash finds it and neither writes nor counts twice.
 */
export const ImportChunkRun = defineEntity({
  name: 'ImportChunkRun',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    job: () => p.manyToOne(ImportJob).deleteRule('cascade'),
    generation: p.integer(),
    phase: p.string().length(10).$type<'check' | 'apply'>(),
    chunkIndex: p.integer(),
    created: p.integer().default(0),
    updated: p.integer().default(0),
    unchanged: p.integer().default(0),
    failed: p.integer().default(0),
    finishedAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'import_chunk_run_unique', properties: ['organization', 'job', 'generation', 'phase', 'chunkIndex'] }],
});
export type ImportChunkRun = InferEntity<typeof ImportChunkRun>;

/** One failed field of one record of a job (`record` is the 1-based number in the submitted input). */
export const ImportRecordError = defineEntity({
  name: 'ImportRecordError',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    job: () => p.manyToOne(ImportJob).deleteRule('cascade'),
    record: p.integer(),
    chunkIndex: p.integer(),
    key: p.string().length(300).nullable(),
    field: p.string().length(300),
    message: p.text(),
    /** The record as submitted (CSV: its columns), for the error CSV. */
    source: p.json<Record<string, unknown>>().nullable(),
  },
  uniques: [{ name: 'import_record_error_unique', properties: ['organization', 'job', 'record', 'field'] }],
  indexes: [{ name: 'import_record_error_chunk_index', properties: ['organization', 'job', 'chunkIndex'] }],
});
export type ImportRecordError = InferEntity<typeof ImportRecordError>;
