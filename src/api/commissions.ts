/**
 * Commission plans (Admin) and statements (finance: Admin; reads also SalesRep, own only).
 * Routes and their yup schemas; the use cases live in src/services/commissions/.
 */
import * as yup from 'yup';
import { AppError } from '../errors.js';
import { defineRoute, accepted, created, file, json, LOCATION, ok, type Reply } from '../http/route.js';
import * as schema from '../domain/commissions/responses.js';
import {
  createPlan,
  financeActionView,
  findPlan,
  findStatement,
  listPlans,
  planListSpec,
  listStatements,
  pendingClawbacks,
  planView,
  requestStatement,
  setPlanActive,
  statementCsv,
  statementListSpec,
  statementPdfKey,
  statementView,
  updatePlan,
  type FinanceRequest,
  type PlanInput,
} from '../services/commissions/index.js';
import type { Req } from '../http/route.js';
import { dayOf } from '../domain/dates.js';
import { currencyCode, dateInput, dayInput, uuid } from './schemas.js';

const isoDate = dateInput;
const day = dayInput;
const pattern = () => yup.string().trim().min(1, '${path} must not be empty.').max(100);
const rate = () => yup.number().min(0, '${path} must be a fraction from 0 to 1.').max(1, '${path} must be a fraction from 0 to 1.');
const amount = () => yup.number().min(0).nullable();

const ruleSchema = yup.object({
  Priority: yup.number().integer().min(0).max(1_000_000).required(),
  Name: yup.string().trim().min(1).max(100).required(),
  Rate: rate().required(),
  Match: yup
    .object({
      SkuPatterns: yup.array(pattern().required()).max(100),
      ProductNamePatterns: yup.array(pattern().required()).max(100),
      CustomerNumbers: yup.array(yup.string().trim().min(1).max(100).required()).max(1000),
      MinLineAmount: amount(),
      MaxLineAmount: amount(),
    })
    .nullable()
    .default(undefined),
});

const overrideSchema = yup.object({
  CustomerNumber: yup.string().trim().min(1).max(100).required(),
  EffectiveStartDate: isoDate().required(),
  EffectiveEndDate: isoDate().nullable(),
  Rules: yup.array(ruleSchema.required()).max(200).required(),
});

const planSchema = yup.object({
  SalesRepId: uuid().required(),
  Name: yup.string().trim().min(1).max(200).required(),
  Description: yup.string().trim().max(2000).nullable(),
  DefaultRate: rate().required(),
  EffectiveStartDate: isoDate().required(),
  EffectiveEndDate: isoDate().nullable(),
  Rules: yup.array(ruleSchema.required()).max(200),
  CustomerOverrides: yup.array(overrideSchema.required()).max(1000),
  Active: yup.boolean(),
});
type PlanBody = yup.InferType<typeof planSchema>;

const toPlanInput = (b: PlanBody): PlanInput => ({
  SalesRepId: b.SalesRepId,
  Name: b.Name,
  Description: b.Description ?? null,
  DefaultRate: b.DefaultRate,
  EffectiveStartDate: new Date(b.EffectiveStartDate),
  EffectiveEndDate: b.EffectiveEndDate ? new Date(b.EffectiveEndDate) : null,
  Rules: b.Rules ?? [],
  CustomerOverrides: (b.CustomerOverrides ?? []).map((o) => ({ ...o, EffectiveStartDate: new Date(o.EffectiveStartDate), EffectiveEndDate: o.EffectiveEndDate ? new Date(o.EffectiveEndDate) : null })),
  Active: b.Active,
});

const planListQuery = yup.object({
  salesRepId: uuid(),
  active: yup.boolean(),
  pageNumber: yup.number().integer().min(1),
  pageSize: yup.number().integer().min(1).max(500),
  sortOn: yup.string(),
  sortDirection: yup.string(),
});

const statementSchema = yup.object({
  salesRepId: uuid().required(),
  startDate: day().required(),
  endDate: day()
    .required()
    .test('after-start', '${path} must not be before startDate.', function (v) {
      const start = (this.parent as { startDate?: string }).startDate;
      return !v || !start || (dayOf(v) ?? v) >= (dayOf(start) ?? start);
    }),
  currencyCode: currencyCode().nullable(),
});

const STATUSES: string[] = [...schema.COMMISSION_STATEMENT_STATUSES];
const statementListQuery = yup.object({
  salesRepId: uuid(),
  status: yup.string().oneOf(STATUSES, '${path} must be one of: ' + STATUSES.join(', ') + '.'),
  pageNumber: yup.number().integer().min(1),
  pageSize: yup.number().integer().min(1).max(500),
  sortOn: yup.string(),
  sortDirection: yup.string(),
  filters: yup.mixed().meta({ openapi: { type: 'string', description: 'JSON array of { field, operator, value } (or qs bracket form)' } }),
});

const rejectSchema = yup.object({ reason: yup.string().trim().min(1, '${path} must not be empty.').max(1000).required() });
const markPaidSchema = yup.object({ paymentReference: yup.string().trim().min(1, '${path} must not be empty.').max(200).required(), paidAt: isoDate().required() });
const exportQuery = yup.object({ format: yup.string().oneOf(['csv'], '${path} must be csv.') });

const PLAN = json(schema.commissionPlan, 'The plan');
const STATEMENT = json(schema.commissionStatement, 'The statement as it now stands, with entries, adjustments and events');
const TAG = 'Commissions';
const FINANCE_RESPONSES = {
  200: STATEMENT,
  400: 'Invalid fields',
  401: 'Unauthenticated',
  403: 'Not Admin, or the statement is the caller\'s own',
  404: 'No such statement in this organization',
  409: 'The statement is not in a state that allows this',
};

async function finance(r: Req<unknown, unknown>, req: FinanceRequest): Promise<Reply> {
  return ok(await financeActionView({ em: r.em, temporal: r.deps.temporal }, r.orgId, r.auth, r.params.statementId, req));
}

export const commissionRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/commissions/plans',
    operationId: 'createCommissionPlan',
    summary: 'Create a commission plan (Active as given, default false; one active plan per rep)',
    tag: TAG,
    auth: ['Admin'],
    body: planSchema,
    responses: { 201: json(schema.commissionPlan, 'The new plan', { headers: LOCATION }), 400: 'Invalid fields (rates 0 to 1, unique priorities, dates in order, patterns)', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'Active and the rep already has an active plan' },
    async handler({ em, orgId, body }) {
      const plan = await createPlan(em, orgId, toPlanInput(body));
      return created(plan, `/api/commissions/plans/${plan.CommissionPlanId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/plans',
    operationId: 'listCommissionPlans',
    summary: 'List commission plans (paged: Data, TotalCount, PageNumber, PageSize; query salesRepId, active; sortOn CreatedAt or Name)',
    tag: TAG,
    auth: ['Admin'],
    query: planListQuery,
    paged: planListSpec,
    responses: { 200: json(schema.commissionPlanList, 'A page of plans, oldest first by default'), 400: 'Bad query', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query, ctx }) {
      return ok(await listPlans(em, orgId, ctx.query as Record<string, unknown>, { salesRepId: query.salesRepId, active: query.active }));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/plans/:commissionPlanId',
    operationId: 'getCommissionPlan',
    summary: 'Get a commission plan',
    tag: TAG,
    auth: ['Admin'],
    responses: { 200: PLAN, 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such plan in this organization' },
    async handler({ em, orgId, params }) {
      return ok(planView(await findPlan(em, orgId, params.commissionPlanId)));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/commissions/plans/:commissionPlanId',
    operationId: 'updateCommissionPlan',
    summary: 'Replace a commission plan\'s fields (SalesRepId cannot change)',
    tag: TAG,
    auth: ['Admin'],
    body: planSchema,
    responses: { 200: PLAN, 400: 'Invalid fields', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such plan', 409: 'Active and the rep already has another active plan' },
    async handler({ em, orgId, params, body }) {
      return ok(await updatePlan(em, orgId, params.commissionPlanId, toPlanInput(body)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/commissions/plans/:commissionPlanId/activate',
    operationId: 'activateCommissionPlan',
    summary: 'Activate a commission plan',
    tag: TAG,
    auth: ['Admin'],
    responses: { 200: PLAN, 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such plan', 409: 'Another plan of the rep is active (named in detail)' },
    async handler({ em, orgId, params }) {
      return ok(await setPlanActive(em, orgId, params.commissionPlanId, true));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/commissions/plans/:commissionPlanId/deactivate',
    operationId: 'deactivateCommissionPlan',
    summary: 'Deactivate a commission plan (statements already generated stay as they are)',
    tag: TAG,
    auth: ['Admin'],
    responses: { 200: PLAN, 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such plan' },
    async handler({ em, orgId, params }) {
      return ok(await setPlanActive(em, orgId, params.commissionPlanId, false));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/commissions/statements',
    operationId: 'generateCommissionStatement',
    summary: 'Generate a commission statement for a rep and an inclusive date period (workflow commission-statement-<statementId>)',
    tag: TAG,
    auth: ['Admin'],
    body: statementSchema,
    responses: { 202: json(schema.statementRequested, 'Generation started; the statement is Generating until its workflow wrote it (then Draft)', { headers: { Location: { description: 'Where the statement can be read', schema: { type: 'string', format: 'uri-reference' } } } }), 400: 'Invalid fields', 401: 'Unauthenticated', 403: 'Not Admin, or the caller is the rep', 409: 'The period overlaps another statement of the rep that is not Rejected' },
    async handler({ em, deps, orgId, auth, body }) {
      const r = await requestStatement({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, {
        salesRepId: body.salesRepId,
        startDate: dayOf(body.startDate) ?? body.startDate,
        endDate: dayOf(body.endDate) ?? body.endDate,
        currencyCode: body.currencyCode ?? null,
      });
      return { ...accepted(r), headers: { Location: `/api/commissions/statements/${r.statementId}` } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/statements',
    operationId: 'listCommissionStatements',
    summary: 'List commission statements (paged; salesRepId, status, filters); a SalesRep token sees its own',
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    query: statementListQuery,
    paged: statementListSpec,
    responses: { 200: json(schema.commissionStatementPage, 'A page of statement summaries (no entries)'), 400: 'Bad query', 401: 'Unauthenticated', 403: 'Customer token' },
    async handler({ em, orgId, auth, query, ctx }) {
      return ok(await listStatements(em, orgId, auth, ctx.query as Record<string, unknown>, { salesRepId: query.salesRepId, status: query.status }));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/clawbacks',
    operationId: 'listCommissionClawbacks',
    summary: 'Pending clawbacks (recorded and computable now) that will land on the rep\'s next statement (query salesRepId)',
    tag: TAG,
    auth: ['Admin'],
    query: planListQuery.pick(['salesRepId']),
    responses: { 200: json(schema.commissionClawbacks, 'Pending clawbacks: recorded ones first, then those computable now'), 400: 'Bad query', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, query }) {
      return ok(await pendingClawbacks(em, orgId, query.salesRepId ?? null));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/statements/:statementId',
    operationId: 'getCommissionStatement',
    summary: 'Get a commission statement with entries, adjustments and events; a SalesRep token only its own',
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    responses: { 200: STATEMENT, 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such statement (or another rep\'s)' },
    async handler({ em, orgId, auth, params }) {
      return ok(await statementView(em, await findStatement(em, orgId, params.statementId, auth)));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/statements/:statementId/export',
    operationId: 'exportCommissionStatement',
    reads: 'replica',
    summary: 'Payroll CSV of a statement (format=csv): one line per invoice entry and adjustment',
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    query: exportQuery,
    responses: { 200: file('text/csv', 'Payroll CSV (attachment)'), 400: 'Unknown format', 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such statement' },
    async handler({ em, orgId, auth, params }) {
      const st = await findStatement(em, orgId, params.statementId, auth);
      const csv = await statementCsv(em, st);
      return {
        status: 200,
        raw: { contentType: 'text/csv; charset=utf-8', data: csv },
        headers: { 'Content-Disposition': `attachment; filename="commission-statement-${st.repNumber.replace(/[^A-Za-z0-9_-]/g, '_')}-${st.startDate}-${st.endDate}.csv"` },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/commissions/statements/:statementId/pdf',
    operationId: 'getCommissionStatementPdf',
    summary: 'The statement PDF from object storage (rendered after generation and after each finance step)',
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    responses: { 200: file('application/pdf', 'The statement PDF (attachment)'), 401: 'Unauthenticated', 403: 'Customer token', 404: 'No such statement, or its PDF is not rendered yet' },
    async handler({ em, deps, orgId, auth, params }) {
      const st = await findStatement(em, orgId, params.statementId, auth);
      const data = await deps.storage.get(statementPdfKey(orgId, st.id));
      if (!data) throw AppError.notFound('Statement PDF (rendered once the statement is generated)');
      const file = `commission-statement-${st.repNumber.replace(/[^A-Za-z0-9_-]/g, '_')}-${st.startDate}-${st.endDate}.pdf`;
      return { status: 200, raw: { contentType: 'application/pdf', data }, headers: { 'Content-Disposition': `attachment; filename="${file}"` } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/commissions/statements/:statementId/recalculate',
    operationId: 'recalculateCommissionStatement',
    summary: 'Recalculate a Draft statement (workflow update)',
    tag: TAG,
    auth: ['Admin'],
    responses: FINANCE_RESPONSES,
    handler: (r) => finance(r, { action: 'recalculate' }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/commissions/statements/:statementId/approve',
    operationId: 'approveCommissionStatement',
    summary: 'Approve a Draft statement (entries frozen; workflow update)',
    tag: TAG,
    auth: ['Admin'],
    responses: FINANCE_RESPONSES,
    handler: (r) => finance(r, { action: 'approve' }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/commissions/statements/:statementId/reject',
    operationId: 'rejectCommissionStatement',
    summary: 'Reject a Draft statement (final; the period is free again; workflow update)',
    tag: TAG,
    auth: ['Admin'],
    body: rejectSchema,
    responses: FINANCE_RESPONSES,
    handler: (r) => finance(r, { action: 'reject', reason: r.body.reason }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/commissions/statements/:statementId/mark-paid',
    operationId: 'markCommissionStatementPaid',
    summary: 'Mark an Approved statement paid (workflow update)',
    tag: TAG,
    auth: ['Admin'],
    body: markPaidSchema,
    responses: FINANCE_RESPONSES,
    handler: (r) => finance(r, { action: 'markPaid', paymentReference: r.body.paymentReference, paidAt: new Date(r.body.paidAt).toISOString() }),
  }),
];

