/** Response schemas of the bulk import endpoints (camelCase); src/services/imports/jobs.ts writes them. */
import { arr, component, dateTime, dateTimeN, doc, int, intN, obj, oneOf, str, strN, uri, uuid } from '../contract.js';
import { genericPage, link } from '../resources.js';
import { IMPORT_KINDS, IMPORT_STATUSES } from './kinds.js';

export const importJob = component(
  'ImportJob',
  obj({
    jobId: uuid(),
    kind: oneOf(IMPORT_KINDS),
    mode: oneOf(['apply', 'validate'] as const),
    onError: oneOf(['skip', 'abort'] as const),
    status: oneOf(IMPORT_STATUSES),
    totalRecords: doc(intN(), 'Known once the input is read'),
    processed: int(),
    created: int(),
    updated: int(),
    unchanged: int(),
    failed: int(),
    createdAt: dateTime(),
    startedAt: dateTimeN(),
    finishedAt: dateTimeN(),
    workflowId: str(),
    errorReportUrl: doc(str(), 'Path of the error report (GET)'),
    warnings: doc(
      arr(
        obj({
          field: doc(str(), 'The unknown field of JSON records (`addresses[].postCode` for a field of array elements), or the CSV column as in the header'),
          message: str(),
          count: doc(int(), 'How many records carried it (a CSV column: rows with a non-empty cell)'),
          firstRecord: doc(intN(), 'The first such record (1-based, as in the error report); null for a CSV column whose cells are all empty'),
        }),
      ),
      'Fields of the records and CSV columns that the kind does not know, each listed once (at most 100): they were ignored and the rest of each record imported. Empty until the input is read.',
    ),
  }),
);

/** The list envelope (SPEC's generic form, as every list SPEC does not define); newest first, no sorting or filters beyond kind and status. */
export const importJobList = genericPage('ImportJobPage', importJob);

export const importJobStarted = component('ImportJobStarted', obj({ jobId: uuid(), status: oneOf(IMPORT_STATUSES), workflowId: str(), links: arr(link) }));

export const importUpload = component('ImportUpload', obj({ uploadId: uuid(), uploadUrl: doc(uri(), 'Presigned PUT URL of the object store'), expiresAt: dateTime() }));

/** One page of the error report: the generic envelope of record errors, ordered by record number and field. */
export const importErrorPage = genericPage(
  'ImportErrorReport',
  obj({ record: doc(int(), 'Record number in the input'), key: doc(strN(), "The record's key (sku, customerNumber, ...) when it has one"), field: str(), message: str() }),
);
