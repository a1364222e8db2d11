/**
 * Commission plan use cases: create, read, list, update, activate, deactivate. Rules and
 * customer overrides are stored with the plan; rates and amounts as exact decimal strings.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { planProblems, type OverrideInput, type RuleInput } from '../../domain/commissions/index.js';
import type { commissionPlan, commissionRule } from '../../domain/commissions/responses.js';
import type { Out } from '../../domain/contract.js';
import type { StoredCustomerOverride, StoredRule } from '../../entities/Commission.js';
import { CommissionPlan, OrganizationSalesRep } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';

export interface PlanInput {
  SalesRepId: string;
  Name: string;
  Description?: string | null;
  DefaultRate: number;
  EffectiveStartDate: Date;
  EffectiveEndDate?: Date | null;
  Rules?: RuleInput[] | null;
  CustomerOverrides?: OverrideInput[] | null;
  Active?: boolean;
}

const dec = (v: number | string | null | undefined): string | null => (v === null || v === undefined ? null : new Decimal(v).toFixed());
const num = (v: string | null | undefined): number | null => (v === null || v === undefined ? null : Number(v));
const iso = (d: Date | string | null | undefined): string | null => (d === null || d === undefined ? null : new Date(d).toISOString());

function storeRule(r: RuleInput): StoredRule {
  const m = r.Match ?? {};
  return {
    Priority: r.Priority,
    Name: r.Name,
    Rate: new Decimal(r.Rate).toFixed(),
    Match: {
      ...(m.SkuPatterns?.length ? { SkuPatterns: [...m.SkuPatterns] } : {}),
      ...(m.ProductNamePatterns?.length ? { ProductNamePatterns: [...m.ProductNamePatterns] } : {}),
      ...(m.CustomerNumbers?.length ? { CustomerNumbers: [...m.CustomerNumbers] } : {}),
      ...(m.MinLineAmount !== undefined && m.MinLineAmount !== null ? { MinLineAmount: dec(m.MinLineAmount) } : {}),
      ...(m.MaxLineAmount !== undefined && m.MaxLineAmount !== null ? { MaxLineAmount: dec(m.MaxLineAmount) } : {}),
    },
  };
}

const sortRules = (rules: StoredRule[]) => [...rules].sort((a, b) => a.Priority - b.Priority);

function ruleView(r: StoredRule): Out<typeof commissionRule> {
  return {
    Priority: r.Priority,
    Name: r.Name,
    Rate: Number(r.Rate),
    Match: {
      SkuPatterns: r.Match.SkuPatterns ?? [],
      ProductNamePatterns: r.Match.ProductNamePatterns ?? [],
      CustomerNumbers: r.Match.CustomerNumbers ?? [],
      MinLineAmount: num(r.Match.MinLineAmount),
      MaxLineAmount: num(r.Match.MaxLineAmount),
    },
  };
}

/** The plan as the API answers it (SPEC's PascalCase fields). */
export function planView(p: CommissionPlan): Out<typeof commissionPlan> {
  return {
    CommissionPlanId: p.id,
    SalesRepId: p.salesRepId,
    Name: p.name,
    Description: p.description ?? null,
    DefaultRate: Number(p.defaultRate),
    EffectiveStartDate: new Date(p.effectiveStartDate).toISOString(),
    EffectiveEndDate: iso(p.effectiveEndDate),
    Rules: sortRules(p.rules).map(ruleView),
    CustomerOverrides: p.customerOverrides.map((o) => ({
      CustomerNumber: o.CustomerNumber,
      EffectiveStartDate: new Date(o.EffectiveStartDate).toISOString(),
      EffectiveEndDate: iso(o.EffectiveEndDate),
      Rules: sortRules(o.Rules).map(ruleView),
    })),
    Active: p.active,
    CreatedAt: new Date(p.createdAt).toISOString(),
    UpdatedAt: new Date(p.updatedAt).toISOString(),
  };
}
export type PlanView = ReturnType<typeof planView>;

function check(input: Omit<PlanInput, 'SalesRepId' | 'Name'>): void {
  const errors = planProblems({
    DefaultRate: input.DefaultRate,
    EffectiveStartDate: input.EffectiveStartDate,
    EffectiveEndDate: input.EffectiveEndDate ?? null,
    Rules: input.Rules ?? [],
    CustomerOverrides: input.CustomerOverrides ?? [],
  });
  if (Object.keys(errors).length) throw AppError.validation(errors);
}

async function assertRep(em: EntityManager, orgId: string, salesRepId: string): Promise<void> {
  if (!(await em.count(OrganizationSalesRep, { organization: orgId, salesRep: salesRepId }))) {
    throw AppError.field('SalesRepId', 'SalesRepId must be the salesRepId of a sales rep of this organization.');
  }
}

async function assertNoOtherActive(em: EntityManager, orgId: string, salesRepId: string, exceptId: string | null): Promise<void> {
  const other = await em.findOne(CommissionPlan, { organization: orgId, salesRepId, active: true, ...(exceptId ? { id: { $ne: exceptId } } : {}) });
  if (other) throw AppError.conflict(`Sales rep ${salesRepId} already has an active plan: ${other.id} ("${other.name}"). Deactivate it first.`);
}

const activeConflict = (e: unknown, salesRepId: string): never => {
  if (isUniqueViolation(e, 'commission_plan_one_active_unique')) throw AppError.conflict(`Sales rep ${salesRepId} already has an active plan. Deactivate it first.`);
  throw e;
};

function apply(p: CommissionPlan, input: Omit<PlanInput, 'SalesRepId' | 'Active'>): void {
  p.name = input.Name;
  p.description = input.Description ?? null;
  p.defaultRate = new Decimal(input.DefaultRate).toFixed();
  p.effectiveStartDate = input.EffectiveStartDate;
  p.effectiveEndDate = input.EffectiveEndDate ?? null;
  p.rules = (input.Rules ?? []).map(storeRule);
  p.customerOverrides = (input.CustomerOverrides ?? []).map(
    (o): StoredCustomerOverride => ({
      CustomerNumber: o.CustomerNumber,
      EffectiveStartDate: iso(o.EffectiveStartDate) ?? '',
      EffectiveEndDate: iso(o.EffectiveEndDate),
      Rules: o.Rules.map(storeRule),
    }),
  );
}

export async function createPlan(em: EntityManager, orgId: string, input: PlanInput): Promise<PlanView> {
  check(input);
  await assertRep(em, orgId, input.SalesRepId);
  if (input.Active) await assertNoOtherActive(em, orgId, input.SalesRepId, null);
  const p = em.create(CommissionPlan, {
    organization: orgId,
    salesRepId: input.SalesRepId,
    name: input.Name,
    defaultRate: '0',
    effectiveStartDate: input.EffectiveStartDate,
    rules: [],
    customerOverrides: [],
    active: input.Active ?? false,
  });
  apply(p, input);
  try {
    await em.flush();
  } catch (e) {
    activeConflict(e, input.SalesRepId);
  }
  return planView(p);
}

export async function findPlan(em: EntityManager, orgId: string, id: string): Promise<CommissionPlan> {
  const p = await em.findOne(CommissionPlan, { id, organization: orgId });
  if (!p) throw AppError.notFound('Commission plan');
  return p;
}

/** Paging and sorting of the plan list (the route documents them from this); `salesRepId` and `active` are plain query parameters. */
export const planListSpec: ListSpec = {
  filters: {},
  sorts: { CreatedAt: 'createdAt', Name: 'name' },
  defaultSort: 'CreatedAt',
};

/** A page of plans, oldest first by default: SPEC's generic envelope (SPEC does not define this list). */
export async function listPlans(em: EntityManager, orgId: string, query: Record<string, unknown>, filter: { salesRepId?: string; active?: boolean }) {
  const q = parseList(query, planListSpec);
  const [rows, total] = await em.findAndCount(
    CommissionPlan,
    { organization: orgId, ...(filter.salesRepId ? { salesRepId: filter.salesRepId } : {}), ...(filter.active !== undefined ? { active: filter.active } : {}) },
    { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(planView), total, q);
}

/** Replaces the plan's fields (PUT). SalesRepId cannot move a plan to another rep; Active goes through activate/deactivate. */
export async function updatePlan(em: EntityManager, orgId: string, id: string, input: PlanInput): Promise<PlanView> {
  const p = await findPlan(em, orgId, id);
  if (input.SalesRepId !== p.salesRepId) throw AppError.field('SalesRepId', 'SalesRepId cannot be changed; create a plan for the other rep.');
  check(input);
  apply(p, input);
  if (input.Active !== undefined && input.Active !== p.active) {
    if (input.Active) await assertNoOtherActive(em, orgId, p.salesRepId, p.id);
    p.active = input.Active;
  }
  try {
    await em.flush();
  } catch (e) {
    activeConflict(e, p.salesRepId);
  }
  return planView(p);
}

export async function setPlanActive(em: EntityManager, orgId: string, id: string, active: boolean): Promise<PlanView> {
  const p = await findPlan(em, orgId, id);
  if (p.active === active) return planView(p);
  if (active) await assertNoOtherActive(em, orgId, p.salesRepId, p.id);
  p.active = active;
  try {
    await em.flush();
  } catch (e) {
    activeConflict(e, p.salesRepId);
  }
  return planView(p);
}
