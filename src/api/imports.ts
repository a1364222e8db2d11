/** Bulk import jobs (DESIGN "Bulk import jobs"): routes and their yup schemas; the logic is in src/services/imports. */
import * as yup from 'yup';
import { IMPORT_KINDS, IMPORT_STATUSES } from '../domain/imports/kinds.js';
import { genericEnvelope, parseList, MAX_PAGE_SIZE } from '../http/paging.js';
import * as schema from '../domain/imports/responses.js';
import { accepted, created, defineRoute, json, LOCATION, ok } from '../http/route.js';
import { controlJob, createUpload, errorPage, errorReportCsv, findJob, importInputOf, importJobListSpec, jobView, listJobs, retryJob, submitImport } from '../services/imports/jobs.js';
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
  records: yup.array(yup.mixed().meta({ openapi: { type: 'object', description: 'One record: the body of the single-record endpoint of the kind (README "Importing data")' } })).max(MAX_JSON_RECORDS, `records can hold at most ${MAX_JSON_RECORDS} records; upload a file for more.`),
  file: fileField(),
  uploadId: uuid(),
  format: yup.string().oneOf(['csv', 'ndjson', 'json'], 'format must be csv, ndjson or json.'),
});

const jobParam = 'importJobId';
const JOB = json(schema.importJob, 'The import job with its live counts');
const JOB_LOCATION = { Location: { description: 'Where the job can be read', schema: { type: 'string', format: 'uri-reference' } } };

const selfLinks = (jobId: string) => [{ rel: 'self', href: `/api/imports/${jobId}` }];

export const importRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/imports',
    operationId: 'createImportJob',
    summary:
      'Start a bulk import job: JSON { kind, mode, onError, records } (up to 10,000), multipart with kind, mode, onError and file (CSV, NDJSON or JSON array; up to 200 MB), or JSON { kind, uploadId, format } after POST /api/imports/uploads',
    tag: 'Imports',
    auth: ['Admin'],
    bodyKind: 'json-or-multipart',
    bodyLimits: { json: '100mb' },
    maxBodyBytes: MAX_FILE_BYTES,
    body: submitSchema,
    responses: { 202: json(schema.importJobStarted, 'The job was accepted and its workflow started', { headers: JOB_LOCATION }), 400: 'Invalid kind, mode, onError, or not exactly one of records, file, uploadId', 401: 'Unauthenticated', 403: 'Not Admin', 413: 'File larger than 200 MB' },
    async handler({ body, deps, em, orgId, auth }) {
      const input = await importInputOf(body);
      const job = await submitImport(em, deps, { orgId, userId: auth.userId, kind: body.kind, mode: body.mode, onError: body.onError, input });
      return { ...accepted({ jobId: job.id, status: job.status, workflowId: job.workflowId, links: selfLinks(job.id) }), headers: { Location: `/api/imports/${job.id}` } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/imports/uploads',
    operationId: 'createImportUpload',
    summary: 'A presigned PUT URL (1 hour) for a large import file; then POST /api/imports { kind, uploadId, format }',
    tag: 'Imports',
    auth: ['Admin'],
    answersSecret: true,
    body: yup.object({ fileName: yup.string().trim().max(300) }),
    responses: { 201: json(schema.importUpload, 'Upload the file with PUT to uploadUrl before expiresAt', { headers: { Location: { ...LOCATION.Location, description: 'The presigned upload URL' } } }), 400: 'Invalid fileName', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ deps, orgId }) {
      const upload = await createUpload(deps, orgId);
      return created(upload, upload.uploadUrl);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/imports',
    operationId: 'listImportJobs',
    summary: 'List import jobs, newest first (paged: Data, TotalCount, PageNumber, PageSize; kind and status filters)',
    tag: 'Imports',
    auth: ['Admin'],
    query: yup.object({
      kind: yup.string().oneOf([...IMPORT_KINDS], `kind must be one of: ${IMPORT_KINDS.join(', ')}.`),
      status: yup.string().oneOf([...IMPORT_STATUSES], `status must be one of: ${IMPORT_STATUSES.join(', ')}.`),
      pageNumber: yup.mixed(),
      pageSize: yup.mixed(),
      sortOn: yup.mixed(),
      sortDirection: yup.mixed(),
    }),
    paged: importJobListSpec,
    responses: { 200: json(schema.importJobList, 'A page of import jobs, newest first'), 400: 'Bad kind, status or paging', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query, ctx }) {
      const q = parseList({ pageNumber: ctx.query.pageNumber, pageSize: ctx.query.pageSize, sortOn: ctx.query.sortOn, sortDirection: ctx.query.sortDirection }, importJobListSpec);
      const [rows, total] = await listJobs(em, orgId, q, { kind: query.kind, status: query.status });
      return ok(genericEnvelope(rows.map(jobView), total, q));
    },
  }),

  defineRoute({
    method: 'get',
    path: `/api/imports/:${jobParam}`,
    operationId: 'getImportJob',
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
    operationId: 'getImportJobErrors',
    summary: 'The error report, paged: { Data: [{ record, key, field, message }], TotalCount, PageNumber, PageSize }, or ?format=csv for the failed records with error_field and error_message',
    tag: 'Imports',
    auth: ['Admin'],
    query: yup.object({
      format: yup.string().oneOf(['json', 'csv'], 'format must be json or csv.'),
      pageNumber: yup.mixed().meta({ openapi: { type: 'integer', minimum: 1, default: 1 } }),
      pageSize: yup.mixed().meta({ openapi: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: MAX_PAGE_SIZE } }),
    }),
    responses: { 200: json(schema.importErrorPage, 'A page of the error report (format=json, the default); format=csv answers text/csv: the failed records with error_field and error_message', { alsoMediaTypes: ['text/csv'] }), 400: 'Bad format or paging', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such import job' },
    async handler({ em, orgId, params, query, ctx }) {
      const job = await findJob(em, orgId, params[jobParam]);
      if (query.format === 'csv') return { status: 200, raw: { contentType: 'text/csv; charset=utf-8', data: await errorReportCsv(em, job) } };
      const q = parseList({ pageNumber: ctx.query.pageNumber, pageSize: ctx.query.pageSize }, { filters: {}, sorts: { Record: 'record' }, defaultSort: 'Record', defaultPageSize: MAX_PAGE_SIZE });
      return ok(await errorPage(em, orgId, job.id, q));
    },
  }),

  ...(['pause', 'resume', 'cancel'] as const).map((action) =>
    defineRoute({
      method: 'post',
      path: `/api/imports/:${jobParam}/${action}`,
      operationId: `${action}ImportJob`,
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
    operationId: 'retryImportJob',
    summary: 'Reprocess the failed records of a finished job (e.g. after creating the missing price tier)',
    tag: 'Imports',
    auth: ['Admin'],
    responses: { 202: json(schema.importJob, 'The job, queued again for its failed records', { headers: JOB_LOCATION }), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such import job', 409: 'The job is not finished, or has no failed records' },
    async handler({ em, deps, orgId, params }) {
      const job = await retryJob(em, deps, orgId, params[jobParam]);
      return { ...accepted(jobView(job)), headers: { Location: `/api/imports/${job.id}` } };
    },
  }),
];
