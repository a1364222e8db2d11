/** Bulk import jobs (DESIGN "Bulk import jobs"): routes and their yup schemas; the logic is in src/services/imports. */
import * as yup from 'yup';
import { IMPORT_KINDS, IMPORT_STATUSES } from '../domain/imports/kinds.js';
import { dataEnvelope, parseList, MAX_PAGE_SIZE } from '../http/paging.js';
import { accepted, created, defineRoute, ok } from '../http/route.js';
import { controlJob, createUpload, errorPage, errorReportCsv, findJob, importInputOf, jobView, listJobs, retryJob, submitImport } from '../services/imports/jobs.js';
import { uuid } from './schemas.js';
import { fileField } from '../http/upload.js';

const MAX_JSON_RECORDS = 10_000;
const MAX_FILE_BYTES = 200 * 1024 * 1024;

const submitSchema = yup.object({
  kind: yup
    .string()
    .oneOf([...IMPORT_KINDS], `kind must be one of: ${IMPORT_KINDS.join(', ')}.`)
    .required('kind is required.'),
  mode: yup.string().oneOf(['apply', 'validate'], 'mode must be apply or validate.').default('apply'),
  onError: yup.string().oneOf(['skip', 'abort'], 'onError must be skip or abort.').default('skip'),
  records: yup.array(yup.mixed()).max(MAX_JSON_RECORDS, `records can hold at most ${MAX_JSON_RECORDS} records; upload a file for more.`),
  file: fileField(),
  uploadId: uuid(),
  format: yup.string().oneOf(['csv', 'ndjson', 'json'], 'format must be csv, ndjson or json.'),
});

const jobParam = 'importJobId';
const JOB = 'Import job: jobId, kind, mode, onError, status, totalRecords, processed, created, updated, unchanged, failed, createdAt, startedAt, finishedAt, workflowId, errorReportUrl';

const selfLinks = (jobId: string) => [{ rel: 'self', href: `/api/imports/${jobId}` }];

export const importRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/imports',
    summary:
      'Start a bulk import job: JSON { kind, mode, onError, records } (up to 10,000), multipart with kind, mode, onError and file (CSV, NDJSON or JSON array; up to 200 MB), or JSON { kind, uploadId, format } after POST /api/imports/uploads',
    tag: 'Imports',
    auth: ['Admin'],
    bodyKind: 'json-or-multipart',
    bodyLimits: { json: '100mb' },
    maxBodyBytes: MAX_FILE_BYTES,
    body: submitSchema,
    idempotent: true,
    responses: { 202: '{ jobId, status, workflowId, links }; header Location', 400: 'Invalid kind, mode, onError, or not exactly one of records, file, uploadId', 401: 'Unauthenticated', 403: 'Not Admin', 413: 'File larger than 200 MB' },
    async handler({ body, deps, em, orgId, auth }) {
      const input = await importInputOf(body);
      const job = await submitImport(em, deps, { orgId, userId: auth.userId, kind: body.kind, mode: body.mode, onError: body.onError, input });
      return { ...accepted({ jobId: job.id, status: job.status, workflowId: job.workflowId, links: selfLinks(job.id) }), headers: { Location: `/api/imports/${job.id}` } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/imports/uploads',
    summary: 'A presigned PUT URL (1 hour) for a large import file; then POST /api/imports { kind, uploadId, format }',
    tag: 'Imports',
    auth: ['Admin'],
    body: yup.object({ fileName: yup.string().trim().max(300) }),
    idempotent: true,
    responses: { 201: '{ uploadId, uploadUrl, expiresAt }', 400: 'Invalid fileName', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ deps, orgId }) {
      return created(await createUpload(deps, orgId));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/imports',
    summary: 'List import jobs, newest first (paged; kind and status filters)',
    tag: 'Imports',
    auth: ['Admin'],
    query: yup.object({
      kind: yup.string().oneOf([...IMPORT_KINDS], `kind must be one of: ${IMPORT_KINDS.join(', ')}.`),
      status: yup.string().oneOf([...IMPORT_STATUSES], `status must be one of: ${IMPORT_STATUSES.join(', ')}.`),
      pageNumber: yup.mixed(),
      pageSize: yup.mixed(),
    }),
    responses: { 200: '{ data, totalRecords, currentPage, totalPages }', 400: 'Bad kind, status or paging', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query, ctx }) {
      const q = parseList({ pageNumber: ctx.query.pageNumber, pageSize: ctx.query.pageSize }, { filters: {}, sorts: { CreatedAt: 'createdAt' }, defaultSort: 'CreatedAt' });
      const [rows, total] = await listJobs(em, orgId, { kind: query.kind, status: query.status, offset: q.offset, limit: q.pageSize });
      return ok(dataEnvelope(rows.map(jobView), total, q));
    },
  }),

  defineRoute({
    method: 'get',
    path: `/api/imports/:${jobParam}`,
    summary: 'Read an import job with its live counts',
    tag: 'Imports',
    auth: ['Admin'],
    responses: { 200: JOB, 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such import job in the organization' },
    async handler({ em, orgId, params }) {
      return ok(jobView(await findJob(em, orgId, params[jobParam])));
    },
  }),

  defineRoute({
    method: 'get',
    path: `/api/imports/:${jobParam}/errors`,
    summary: 'The error report: { errors: [{ record, key, field, message }], totalRecords } (paged), or ?format=csv for the failed records with error_field and error_message',
    tag: 'Imports',
    auth: ['Admin'],
    query: yup.object({ format: yup.string().oneOf(['json', 'csv'], 'format must be json or csv.'), pageNumber: yup.mixed(), pageSize: yup.mixed() }),
    responses: { 200: '{ errors, totalRecords } or text/csv', 400: 'Bad format or paging', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such import job' },
    async handler({ em, orgId, params, query, ctx }) {
      const job = await findJob(em, orgId, params[jobParam]);
      if (query.format === 'csv') return { status: 200, raw: { contentType: 'text/csv; charset=utf-8', data: await errorReportCsv(em, job) } };
      const q = parseList({ pageNumber: ctx.query.pageNumber, pageSize: ctx.query.pageSize }, { filters: {}, sorts: { Record: 'record' }, defaultSort: 'Record', defaultPageSize: MAX_PAGE_SIZE });
      return ok(await errorPage(em, orgId, job.id, q.offset, q.pageSize));
    },
  }),

  ...(['pause', 'resume', 'cancel'] as const).map((action) =>
    defineRoute({
      method: 'post',
      path: `/api/imports/:${jobParam}/${action}`,
      summary: `${action[0].toUpperCase()}${action.slice(1)} an import job${action === 'cancel' ? ' (what was written stays)' : ''}; answers the job`,
      tag: 'Imports',
      auth: ['Admin'],
      responses: { 200: JOB, 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such import job', 409: `The job's status cannot be ${action}d` },
      async handler({ em, deps, orgId, params }) {
        return ok(jobView(await controlJob(em, deps, orgId, params[jobParam], action)));
      },
    }),
  ),

  defineRoute({
    method: 'post',
    path: `/api/imports/:${jobParam}/retry`,
    summary: 'Reprocess the failed records of a finished job (e.g. after creating the missing price tier)',
    tag: 'Imports',
    auth: ['Admin'],
    idempotent: true,
    responses: { 202: JOB, 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such import job', 409: 'The job is not finished, or has no failed records' },
    async handler({ em, deps, orgId, params }) {
      const job = await retryJob(em, deps, orgId, params[jobParam]);
      return { ...accepted(jobView(job)), headers: { Location: `/api/imports/${job.id}` } };
    },
  }),
];
