/**
 * Checks of a commission plan that span fields (pure): rates from 0 to 1, priorities unique
 * within a rule list, effective dates in order, wildcard patterns usable, min <= max line amount.
 * Answers field errors keyed by the request's PascalCase paths, all at once.
 */
import { Decimal } from 'decimal.js';
import { patternProblem } from './patterns.js';

export interface RuleInput {
  Priority: number;
  Name: string;
  Rate: number | string;
  Match?: {
    SkuPatterns?: readonly string[] | null;
    ProductNamePatterns?: readonly string[] | null;
    CustomerNumbers?: readonly string[] | null;
    MinLineAmount?: number | string | null;
    MaxLineAmount?: number | string | null;
  } | null;
}

export interface OverrideInput {
  CustomerNumber: string;
  EffectiveStartDate: Date | string;
  EffectiveEndDate?: Date | string | null;
  Rules: readonly RuleInput[];
}

export interface PlanShape {
  DefaultRate: number | string;
  EffectiveStartDate: Date | string;
  EffectiveEndDate?: Date | string | null;
  Rules: readonly RuleInput[];
  CustomerOverrides: readonly OverrideInput[];
}

export const MAX_RATE_DECIMALS = 6;

export function rateProblem(rate: number | string): string | null {
  let d: Decimal;
  try {
    d = new Decimal(rate);
  } catch {
    return 'must be a number from 0 to 1.';
  }
  if (!d.isFinite() || d.lt(0) || d.gt(1)) return 'must be a fraction from 0 to 1 (0.05 means 5 percent).';
  if (d.decimalPlaces() > MAX_RATE_DECIMALS) return `must have at most ${MAX_RATE_DECIMALS} decimal places.`;
  return null;
}

const t = (d: Date | string) => (d instanceof Date ? d.getTime() : Date.parse(d));

export function planProblems(plan: PlanShape): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  const r = rateProblem(plan.DefaultRate);
  if (r) add('DefaultRate', `DefaultRate ${r}`);
  if (plan.EffectiveEndDate && t(plan.EffectiveEndDate) < t(plan.EffectiveStartDate)) add('EffectiveEndDate', 'EffectiveEndDate must not be before EffectiveStartDate.');
  const rules = (prefix: string, list: readonly RuleInput[]) => {
    const seen = new Map<number, number>();
    list.forEach((rule, i) => {
      const at = `${prefix}[${i}]`;
      const rp = rateProblem(rule.Rate);
      if (rp) add(`${at}.Rate`, `${at}.Rate ${rp}`);
      const prev = seen.get(rule.Priority);
      if (prev !== undefined) add(`${at}.Priority`, `${at}.Priority ${rule.Priority} is already used by ${prefix}[${prev}]; priorities must be unique.`);
      else seen.set(rule.Priority, i);
      const m = rule.Match;
      if (!m) return;
      for (const key of ['SkuPatterns', 'ProductNamePatterns'] as const) {
        (m[key] ?? []).forEach((p, j) => {
          const pp = patternProblem(p);
          if (pp) add(`${at}.Match.${key}[${j}]`, `${at}.Match.${key}[${j}] ${pp}`);
        });
      }
      const min = m.MinLineAmount ?? null;
      const max = m.MaxLineAmount ?? null;
      if (min !== null && max !== null && new Decimal(min).gt(max)) add(`${at}.Match.MaxLineAmount`, `${at}.Match.MaxLineAmount must not be below MinLineAmount.`);
    });
  };
  rules('Rules', plan.Rules);
  const overrideKeys = new Map<string, number[]>();
  plan.CustomerOverrides.forEach((o, i) => {
    const at = `CustomerOverrides[${i}]`;
    if (o.EffectiveEndDate && t(o.EffectiveEndDate) < t(o.EffectiveStartDate)) add(`${at}.EffectiveEndDate`, `${at}.EffectiveEndDate must not be before its EffectiveStartDate.`);
    rules(`${at}.Rules`, o.Rules);
    const k = o.CustomerNumber.toLowerCase();
    for (const j of overrideKeys.get(k) ?? []) {
      const other = plan.CustomerOverrides[j];
      const aEnd = o.EffectiveEndDate ? t(o.EffectiveEndDate) : Infinity;
      const bEnd = other.EffectiveEndDate ? t(other.EffectiveEndDate) : Infinity;
      if (t(o.EffectiveStartDate) <= bEnd && t(other.EffectiveStartDate) <= aEnd)
        add(`${at}.EffectiveStartDate`, `${at} overlaps CustomerOverrides[${j}] for customer ${o.CustomerNumber}.`);
    }
    overrideKeys.set(k, [...(overrideKeys.get(k) ?? []), i]);
  });
  return errors;
}
