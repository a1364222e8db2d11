/**
 * Commission statement use cases: request one (overlap check under a per-rep lock, then the
 * workflow), read, list and export; finance actions go through the statement's workflow as
 * updates; the activities' state changes (approve, reject, mark paid, reminders) live here too.
 */
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { toCsv } from '../../domain/csv.js';
import { financeMove, type FinanceAction } from '../../domain/commissions/statement.js';
import { moneyNumber } from '../../domain/money.js';
import { boundRows } from '../../db/orm-sql.js';
import type { StatementEvent } from '../../entities/Commission.js';
import { CommissionAdjustment, CommissionEntry, CommissionStatement, Organization, OrganizationMember, OrganizationSalesRep, PriceTier } from '../../entities/index.js';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { isWorkflowNotFound, startOnce, updateRefusal, type Client } from '../../adapters/temporal.js';
import {
  approveUpdate,
  markPaidUpdate,
  recalculateUpdate,
  rejectUpdate,
  WRONG_STATE,
  type CommissionStatementInput,
  type StatementState,
} from '../../workflows/commission-statement-defs.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { emitEvent } from '../webhooks/events.js';
import { appendEvent } from './generate.js';
import type { commissionStatement, commissionStatementSummary } from '../../domain/commissions/responses.js';
import type { Out } from '../../domain/contract.js';

export const statementWorkflowId = (statementId: string) => `commission-statement-${statementId}`;

/** Who is asking: the organization's admin (finance) or a sales rep (own statements only). */
export interface Viewer {
  role: 'Admin' | 'SalesRep' | 'Customer';
  isSuper: boolean;
  userId: string | null;
  subject: string;
  repNumber: string | null;
}

const actor = (v: Viewer) => v.userId ?? v.subject;

export interface StatementRequest {
  salesRepId: string;
  startDate: string;
  endDate: string;
  currencyCode?: string | null;
}

async function defaultCurrency(em: EntityManager, orgId: string): Promise<string> {
  const tier = await em.findOne(PriceTier, { organization: orgId }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return tier?.currencyCode ?? 'USD';
}

/** Creates the statement (Generating) unless its period overlaps another open statement of the rep, then starts its workflow. */
export async function requestStatement(
  deps: { em: EntityManager; temporal: Client; config: Config },
  orgId: string,
  viewer: Viewer,
  input: StatementRequest,
): Promise<{ statementId: string; workflowId: string }> {
  const { em } = deps;
  const assignment = await em.findOne(OrganizationSalesRep, { organization: orgId, salesRep: input.salesRepId }, { populate: ['salesRep'] });
  if (!assignment) throw AppError.field('salesRepId', 'salesRepId must be the salesRepId of a sales rep of this organization.');
  if (viewer.userId && assignment.salesRep.user.id === viewer.userId) throw AppError.forbidden('A sales rep cannot request their own commission statement.');
  const currencyCode = input.currencyCode ?? (await defaultCurrency(em, orgId));
  const id = randomUUID();
  const workflowId = statementWorkflowId(id);
  await em.fork().transactional(async (tx) => {
    // One writer per rep at a time, so two overlapping requests cannot both pass the check.
    await boundRows(tx, `select pg_advisory_xact_lock(hashtext($1))`, [`commission-statement:${orgId}:${input.salesRepId}`]);
    const clash = await tx.findOne(CommissionStatement, {
      organization: orgId,
      salesRepId: input.salesRepId,
      status: { $ne: 'Rejected' },
      startDate: { $lte: input.endDate },
      endDate: { $gte: input.startDate },
    });
    if (clash) {
      throw AppError.conflict(`The period overlaps statement ${clash.id} (${clash.startDate} to ${clash.endDate}, ${clash.status}) of this sales rep.`);
    }
    tx.create(CommissionStatement, {
      id,
      organization: orgId,
      salesRepId: input.salesRepId,
      repNumber: assignment.repNumber,
      startDate: input.startDate,
      endDate: input.endDate,
      status: 'Generating',
      currencyCode,
      workflowId,
      createdBy: actor(viewer),
      events: [{ key: 'requested', type: 'Requested', at: new Date().toISOString(), by: actor(viewer), note: `${input.startDate} to ${input.endDate} (${currencyCode})` }],
    });
    await tx.flush();
  });
  const wfInput: CommissionStatementInput = {
    organizationId: orgId,
    statementId: id,
    requestedBy: actor(viewer),
    reminderMs: deps.config.commissionApprovalReminderSeconds !== null ? deps.config.commissionApprovalReminderSeconds * 1000 : deps.config.commissionApprovalReminderDays * 86_400_000,
  };
  try {
    await startOnce(deps.temporal, deps.config, {
      workflowType: 'commissionStatement',
      workflowId,
      args: [wfInput],
      keys: { organizationId: orgId, salesRepNumber: assignment.repNumber },
      about: { what: `Commission statement ${input.startDate} to ${input.endDate} (${currencyCode})` },
    });
  } catch (e) {
    // Without its workflow the statement would block the period forever.
    await em.fork().nativeDelete(CommissionStatement, { id, organization: orgId });
    throw e;
  }
  return { statementId: id, workflowId };
}

/** A SalesRep viewer's own salesRepId in the organization (by the token's user), or null for others. */
async function ownRepId(em: EntityManager, orgId: string, viewer: Viewer): Promise<string | null | undefined> {
  if (viewer.role !== 'SalesRep' || viewer.isSuper) return undefined;
  if (!viewer.userId) return null;
  const a = await em.findOne(OrganizationSalesRep, { organization: orgId, salesRep: { user: viewer.userId } });
  return a ? a.salesRep.id : null;
}

/** The statement of this organization that the viewer may see (a rep: their own only), else 404. */
export async function findStatement(em: EntityManager, orgId: string, id: string, viewer: Viewer): Promise<CommissionStatement> {
  const st = await em.findOne(CommissionStatement, { id, organization: orgId });
  if (!st) throw AppError.notFound('Commission statement');
  const own = await ownRepId(em, orgId, viewer);
  if (own !== undefined && st.salesRepId !== own) throw AppError.notFound('Commission statement');
  return st;
}

const iso = (d: Date | string | null | undefined) => (d === null || d === undefined ? null : new Date(d).toISOString());

export async function statementView(em: EntityManager, st: CommissionStatement) {
  const c = st.currencyCode;
  const orgId = st.organization.id;
  const [entries, adjustments] = await Promise.all([
    em.find(CommissionEntry, { organizationId: orgId, statementId: st.id }, { orderBy: [{ invoiceDate: 'asc' }, { invoiceNumber: 'asc' }] }),
    em.find(CommissionAdjustment, { organizationId: orgId, statementId: st.id }, { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
  ]);
  return {
    statementId: st.id,
    salesRepId: st.salesRepId,
    repNumber: st.repNumber,
    startDate: st.startDate,
    endDate: st.endDate,
    status: st.status,
    currencyCode: c,
    entries: entries.map((e) => ({
      invoiceId: e.invoiceId,
      invoiceNumber: e.invoiceNumber,
      customerNumber: e.customerNumber,
      invoiceDate: new Date(e.invoiceDate).toISOString(),
      base: moneyNumber(e.base, c),
      commission: moneyNumber(e.commission, c),
      lines: e.lines.map(([sku, productName, quantity, base, rule, rate, commission]) => ({ sku, productName, quantity, base: moneyNumber(base, c), rule, rate: Number(rate), commission: moneyNumber(commission, c) })),
    })),
    adjustments: adjustments.map((a) => ({ type: a.type, invoiceNumber: a.invoiceNumber, amount: moneyNumber(a.amount, c), reason: a.reason, createdAt: new Date(a.createdAt).toISOString() })),
    totalCommission: moneyNumber(st.totalCommission, c),
    payableTotal: moneyNumber(st.payableTotal, c),
    events: st.events.map((e) => ({ type: e.type, at: e.at, by: e.by, note: e.note })),
    approvedAt: iso(st.approvedAt),
    approvedBy: st.approvedBy ?? null,
    paidAt: iso(st.paidAt),
    paymentReference: st.paymentReference ?? null,
    rejectedReason: st.rejectedReason ?? null,
    workflowId: st.workflowId,
    createdAt: new Date(st.createdAt).toISOString(),
  } satisfies Out<typeof commissionStatement>;
}

export const statementListSpec: ListSpec = {
  filters: {
    salesRepId: { prop: 'salesRepId', type: 'uuid' },
    repNumber: { prop: 'repNumber', type: 'string' },
    status: { prop: 'status', type: 'string' },
    startDate: { prop: 'startDate', type: 'string' },
  },
  sorts: { StartDate: 'startDate', CreatedAt: 'createdAt', Status: 'status', RepNumber: 'repNumber' },
  defaultSort: 'StartDate',
};

/** Paged summaries (no entries): SPEC's generic envelope (SPEC does not define this list); plain `salesRepId` and `status` query parameters also filter. */
export async function listStatements(em: EntityManager, orgId: string, viewer: Viewer, query: Record<string, unknown>, plain: { salesRepId?: string; status?: string }) {
  const q = parseList(query, statementListSpec);
  const where: Record<string, unknown> = { organization: orgId, ...q.where };
  if (plain.salesRepId) where.salesRepId = plain.salesRepId;
  if (plain.status) where.status = plain.status;
  const own = await ownRepId(em, orgId, viewer);
  if (own !== undefined) where.salesRepId = own ?? '00000000-0000-0000-0000-000000000000';
  const [rows, total] = await em.findAndCount(CommissionStatement, where, { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset });
  const data = rows.map((st): Out<typeof commissionStatementSummary> => ({
    statementId: st.id,
    salesRepId: st.salesRepId,
    repNumber: st.repNumber,
    startDate: st.startDate,
    endDate: st.endDate,
    status: st.status,
    currencyCode: st.currencyCode,
    totalCommission: moneyNumber(st.totalCommission, st.currencyCode),
    payableTotal: moneyNumber(st.payableTotal, st.currencyCode),
    approvedAt: iso(st.approvedAt),
    paidAt: iso(st.paidAt),
    createdAt: new Date(st.createdAt).toISOString(),
  }));
  return genericEnvelope(data, total, q);
}

/** Payroll CSV: one line per invoice entry and per adjustment. */
export async function statementCsv(em: EntityManager, st: CommissionStatement): Promise<string> {
  const v = await statementView(em, st);
  const head = ['statementId', 'repNumber', 'salesRepId', 'periodStart', 'periodEnd', 'status', 'currencyCode', 'lineType', 'invoiceNumber', 'customerNumber', 'invoiceDate', 'base', 'amount', 'reason'];
  const fixed = [v.statementId, v.repNumber, v.salesRepId, v.startDate, v.endDate, v.status, v.currencyCode];
  const digits = (n: number) => n.toFixed(2);
  const rows = [
    ...v.entries.map((e) => [...fixed, 'Commission', e.invoiceNumber, e.customerNumber, e.invoiceDate, digits(e.base), digits(e.commission), '']),
    ...v.adjustments.map((a) => [...fixed, a.type, a.invoiceNumber, '', '', '', digits(a.amount), a.reason]),
  ];
  return toCsv([head, ...rows]);
}

export type FinanceRequest =
  | { action: 'recalculate' }
  | { action: 'approve' }
  | { action: 'reject'; reason: string }
  | { action: 'markPaid'; paymentReference: string; paidAt: string };

/**
 * Runs a finance action through the statement's workflow (an update answering the new state).
 * Finance is Admin and never the statement's own rep (403). A wrong state is a 409, whether the
 * recorded state shows it already or the workflow's validator refuses it.
 */
/** A finance action, then the statement as it now stands (re-read, not the identity-map copy). */
export async function financeActionView(deps: { em: EntityManager; temporal: Client }, orgId: string, viewer: Viewer, statementId: string, req: FinanceRequest) {
  await financeAction(deps, orgId, viewer, statementId, req);
  deps.em.clear();
  return statementView(deps.em, await findStatement(deps.em, orgId, statementId, viewer));
}

export async function financeAction(deps: { em: EntityManager; temporal: Client }, orgId: string, viewer: Viewer, statementId: string, req: FinanceRequest): Promise<StatementState> {
  const st = await findStatement(deps.em, orgId, statementId, viewer);
  if (viewer.userId) {
    const own = await deps.em.count(OrganizationSalesRep, { organization: orgId, salesRep: { id: st.salesRepId, user: viewer.userId } });
    if (own) throw AppError.forbidden('A sales rep cannot act on their own commission statement.');
  }
  const pre = financeMove(st.status, req.action as FinanceAction);
  if (!pre.ok) throw AppError.conflict(pre.reason);
  const handle = deps.temporal.workflow.getHandle(st.workflowId);
  const base = { requestId: randomUUID(), by: actor(viewer) };
  try {
    switch (req.action) {
      case 'recalculate':
        return await handle.executeUpdate(recalculateUpdate, { args: [base] });
      case 'approve':
        return await handle.executeUpdate(approveUpdate, { args: [base] });
      case 'reject':
        return await handle.executeUpdate(rejectUpdate, { args: [{ ...base, reason: req.reason }] });
      case 'markPaid':
        return await handle.executeUpdate(markPaidUpdate, { args: [{ ...base, paymentReference: req.paymentReference, paidAt: req.paidAt }] });
    }
  } catch (e) {
    // Refused by the validator, or by the handler once its turn came (another action got there first).
    const refusal = updateRefusal(e);
    if (refusal?.type === WRONG_STATE) throw AppError.conflict(refusal.message);
    if (isWorkflowNotFound(e)) throw AppError.conflict(`The statement is ${st.status}; its workflow has finished.`);
    throw e;
  }
}

export interface ActionInput {
  organizationId: string;
  statementId: string;
  action: 'approve' | 'reject' | 'markPaid';
  key: string;
  at: string;
  by: string | null;
  reason?: string;
  paymentReference?: string;
  paidAt?: string;
}

/** Applies an approve / reject / mark-paid under the row lock; idempotent per event key. */
export async function applyAction(em: EntityManager, input: ActionInput): Promise<{ status: CommissionStatement['status']; applied: boolean }> {
  return em.fork().transactional(async (tx) => {
    const st = await tx.findOneOrFail(CommissionStatement, { id: input.statementId, organization: input.organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (st.events.some((e) => e.key === input.key)) return { status: st.status, applied: false };
    const m = financeMove(st.status, input.action);
    if (!m.ok) throw ApplicationFailure.create({ type: WRONG_STATE, message: m.reason, nonRetryable: true });
    let event: StatementEvent;
    switch (input.action) {
      case 'approve':
        st.approvedAt = new Date(input.at);
        st.approvedBy = input.by;
        event = { key: input.key, type: 'Approved', at: input.at, by: input.by, note: null };
        // Committed with the transition; a retried action finds its event key above and writes nothing.
        emitEvent(tx, input.organizationId, 'commission_statement.approved', {
          statementId: st.id,
          salesRepId: st.salesRepId,
          repNumber: st.repNumber,
          period: { startDate: st.startDate, endDate: st.endDate },
          currencyCode: st.currencyCode,
          totalCommission: moneyNumber(st.totalCommission, st.currencyCode),
          payableTotal: moneyNumber(st.payableTotal, st.currencyCode),
          approvedAt: input.at,
          approvedBy: input.by,
        });
        break;
      case 'reject':
        st.rejectedReason = input.reason ?? null;
        // Its adjustments wait for the rep's next statement again.
        await boundRows(tx, `update commission_adjustment set statement_id = null where organization_id = $1 and statement_id = $2`, [input.organizationId, st.id]);
        event = { key: input.key, type: 'Rejected', at: input.at, by: input.by, note: input.reason ?? null };
        break;
      case 'markPaid':
        st.paidAt = new Date(input.paidAt ?? input.at);
        st.paymentReference = input.paymentReference ?? null;
        event = { key: input.key, type: 'Paid', at: input.at, by: input.by, note: `reference ${input.paymentReference ?? ''}, paid ${input.paidAt ?? input.at}` };
        break;
    }
    st.status = m.to;
    st.events = appendEvent(st.events, event);
    await tx.flush();
    return { status: st.status, applied: true };
  });
}

/** Records reminder n of a Draft statement and answers the e-mails to send (none when no longer Draft). */
export async function reminderMails(em: EntityManager, config: Config, input: { organizationId: string; statementId: string; n: number; at: string }): Promise<SendEmailInput[]> {
  return em.fork().transactional(async (tx) => {
    const st = await tx.findOneOrFail(CommissionStatement, { id: input.statementId, organization: input.organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (st.status !== 'Draft') return [];
    const org = await tx.findOneOrFail(Organization, { id: input.organizationId });
    const admins = await tx.find(OrganizationMember, { organization: input.organizationId, isAdmin: true }, { populate: ['user'], orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    const rep = await tx.findOne(OrganizationSalesRep, { organization: input.organizationId, salesRep: st.salesRepId }, { populate: ['salesRep'] });
    const to = admins.filter((a) => a.user.id !== rep?.salesRep.user.id);
    const key = `reminder-${input.n}`;
    st.events = appendEvent(st.events, { key, type: 'ReminderSent', at: input.at, by: null, note: `reminder ${input.n} to ${to.length} admin(s)` });
    await tx.flush();
    return to.map((a) => ({
      emailId: `commission-reminder-${st.id}-${input.n}-${a.user.id}`,
      organizationId: input.organizationId,
      template: 'generic' as const,
      to: a.user.email,
      data: {
        subject: `Commission statement for rep ${st.repNumber} (${st.startDate} to ${st.endDate}) awaits approval`,
        body: `The Draft commission statement ${st.id} of sales rep ${st.repNumber} at ${org.name} (${st.startDate} to ${st.endDate}, payable ${st.payableTotal} ${st.currencyCode}) is waiting for approval: ${config.publicBaseUrl}/api/commissions/statements/${st.id}`,
      },
    }));
  });
}
