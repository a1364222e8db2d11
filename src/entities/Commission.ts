import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { Organization } from './Organization.js';

/** A rule as stored on a plan (SPEC "Commission plan"); rates and amounts are exact decimal strings. */
export interface StoredRule {
  Priority: number;
  Name: string;
  Rate: string;
  Match: {
    SkuPatterns?: string[];
    ProductNamePatterns?: string[];
    CustomerNumbers?: string[];
    MinLineAmount?: string | null;
    MaxLineAmount?: string | null;
  };
}

export interface StoredCustomerOverride {
  CustomerNumber: string;
  EffectiveStartDate: string;
  EffectiveEndDate: string | null;
  Rules: StoredRule[];
}

/**
 * A sales rep's commission plan. Rules and customer overrides are kept with the plan (JSON),
 * read and written as a whole. At most one active plan per rep and organization (partial
 * unique index); the API answers a second activation with a 409 naming the active plan.
 */
export const CommissionPlan = defineEntity({
  name: 'CommissionPlan',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    salesRepId: p.uuid(),
    name: p.string().length(200),
    description: p.text().nullable(),
    defaultRate: p.decimal().precision(9).scale(6),
    effectiveStartDate: p.datetime(),
    effectiveEndDate: p.datetime().nullable(),
    rules: p.json<StoredRule[]>(),
    customerOverrides: p.json<StoredCustomerOverride[]>(),
    active: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ name: 'commission_plan_org_rep_index', properties: ['organization', 'salesRepId'] }],
  uniques: [
    {
      name: 'commission_plan_one_active_unique',
      expression: 'create unique index "commission_plan_one_active_unique" on "commission_plan" ("organization_id", "sales_rep_id") where "active"',
    },
  ],
  checks: [{ name: 'commission_plan_default_rate_check', expression: 'default_rate >= 0 and default_rate <= 1' }],
});
export type CommissionPlan = InferEntity<typeof CommissionPlan>;

export type CommissionStatementStatus = 'Generating' | 'Draft' | 'Approved' | 'Rejected' | 'Paid';

/** One step of a statement's history; `key` makes an activity's append idempotent. */
export interface StatementEvent {
  key: string;
  type: string;
  at: string;
  by: string | null;
  note: string | null;
}

/**
 * A commission statement: one rep, one inclusive date period, driven by the workflow
 * `commission-statement-<id>`. Created by the API (so a crashed worker never duplicates it);
 * entries and adjustments are separate rows carrying organization_id.
 */
export const CommissionStatement = defineEntity({
  name: 'CommissionStatement',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    salesRepId: p.uuid(),
    repNumber: p.string(),
    startDate: p.string().length(10),
    endDate: p.string().length(10),
    status: p.string().length(20).$type<CommissionStatementStatus>().default('Generating'),
    currencyCode: p.string().length(3),
    totalCommission: p.decimal().precision(19).scale(4).default('0'),
    payableTotal: p.decimal().precision(19).scale(4).default('0'),
    events: p.json<StatementEvent[]>(),
    workflowId: p.string(),
    approvedAt: p.datetime().nullable(),
    approvedBy: p.string().nullable(),
    rejectedReason: p.text().nullable(),
    paidAt: p.datetime().nullable(),
    paymentReference: p.string().nullable(),
    generatedAt: p.datetime().nullable(),
    createdBy: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ name: 'commission_statement_org_rep_index', properties: ['organization', 'salesRepId', 'startDate'] }],
  checks: [
    { name: 'commission_statement_status_check', expression: "status in ('Generating','Draft','Approved','Rejected','Paid')" },
    { name: 'commission_statement_period_check', expression: 'start_date <= end_date' },
  ],
});
export type CommissionStatement = InferEntity<typeof CommissionStatement>;

/**
 * One invoice line of an entry as stored: a compact array in a `json` column (written 30,000 at a
 * time by a generation, read whole; migration Migration20261128013000_commission_entry_lines_json).
 * Amounts and the rate are exact decimal strings.
 */
export type StoredEntryLine = [sku: string, productName: string | null, quantity: number, base: string, rule: string, rate: string, commission: string];

/** A statement's entry for one invoice (its lines' detail in `lines`); unique per statement and invoice. */
export const CommissionEntry = defineEntity({
  name: 'CommissionEntry',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    statementId: p.uuid(),
    invoiceId: p.uuid(),
    invoiceNumber: p.string(),
    customerNumber: p.string(),
    invoiceDate: p.datetime(),
    invoiceTotal: p.decimal().precision(19).scale(4),
    base: p.decimal().precision(19).scale(4),
    commission: p.decimal().precision(19).scale(4),
    lines: p.json<StoredEntryLine[]>().columnType('json'),
  },
  uniques: [{ name: 'commission_entry_statement_invoice_unique', properties: ['organizationId', 'statementId', 'invoiceId'] }],
  indexes: [{ name: 'commission_entry_org_invoice_index', properties: ['organizationId', 'invoiceId'] }],
});
export type CommissionEntry = InferEntity<typeof CommissionEntry>;

/**
 * A statement adjustment; today only `Clawback` (negative). Pending while statementId is null;
 * a statement's generation attaches the rep's pending ones. (sourceEntryId, cause) is unique,
 * so a refund, void or cancellation is clawed back once.
 */
export const CommissionAdjustment = defineEntity({
  name: 'CommissionAdjustment',
  properties: {
    id: p.uuid().primary().onCreate(() => randomUUID()),
    organizationId: p.uuid(),
    salesRepId: p.uuid(),
    statementId: p.uuid().nullable(),
    type: p.string().length(20).default('Clawback'),
    sourceStatementId: p.uuid(),
    sourceEntryId: p.uuid(),
    invoiceId: p.uuid(),
    invoiceNumber: p.string(),
    cause: p.string(),
    currencyCode: p.string().length(3),
    amount: p.decimal().precision(19).scale(4),
    reason: p.text(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'commission_adjustment_entry_cause_unique', properties: ['organizationId', 'sourceEntryId', 'cause'] }],
  indexes: [
    { name: 'commission_adjustment_org_rep_index', properties: ['organizationId', 'salesRepId', 'statementId'] },
    { name: 'commission_adjustment_org_statement_index', properties: ['organizationId', 'statementId'] },
  ],
});
export type CommissionAdjustment = InferEntity<typeof CommissionAdjustment>;
