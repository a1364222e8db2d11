/**
 * The commission rule engine (pure; no ORM, no Koa, no Temporal). DESIGN "Commission plans and
 * statements": the rate of one invoice line (invoice date D, customer C) comes from the rules of
 * the plan's customer override for C effective at D (by Priority, first match), then the plan's
 * Rules (by Priority, first match), then DefaultRate. The plan is the rep's active plan whose
 * effective dates contain D. An invoice discount is spread over its lines in proportion to their
 * amounts; line commission = line base x rate, rounded half-up to the currency's minor unit.
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';
import { matchesAny } from './patterns.js';

export type { Amount };

export interface RuleMatch {
  SkuPatterns?: readonly string[] | null;
  ProductNamePatterns?: readonly string[] | null;
  CustomerNumbers?: readonly string[] | null;
  /** Line subtotal at or above (before the discount spread). */
  MinLineAmount?: Amount | null;
  /** Line subtotal at or below (before the discount spread). */
  MaxLineAmount?: Amount | null;
}

export interface Rule {
  Priority: number;
  Name: string;
  Rate: Amount;
  Match?: RuleMatch | null;
}

export interface CustomerOverride {
  CustomerNumber: string;
  EffectiveStartDate: Date | string;
  EffectiveEndDate?: Date | string | null;
  Rules: readonly Rule[];
}

export interface PlanRules {
  id: string;
  DefaultRate: Amount;
  EffectiveStartDate: Date | string;
  EffectiveEndDate?: Date | string | null;
  Rules: readonly Rule[];
  CustomerOverrides: readonly CustomerOverride[];
  Active: boolean;
}

export interface LineFacts {
  sku: string;
  productName: string | null;
  customerNumber: string;
  /** quantity x price, rounded to the currency (before the discount spread). */
  lineAmount: Amount;
}

export interface RateChoice {
  /** The matched rule's Name, or `Default`. */
  rule: string;
  rate: Decimal;
  /** Where the rate came from. */
  source: 'CustomerOverride' | 'Rule' | 'Default';
}

const parsed = new Map<string, number>();
const time = (d: Date | string): number => {
  if (d instanceof Date) return d.getTime();
  let t = parsed.get(d);
  if (t === undefined) {
    t = Date.parse(d);
    if (parsed.size > 10_000) parsed.clear();
    parsed.set(d, t);
  }
  return t;
};

/** Whether [start, end] (end open when absent) contains `at`; both ends inclusive. */
export function isEffective(start: Date | string, end: Date | string | null | undefined, at: Date | string): boolean {
  const t = time(at);
  return time(start) <= t && (end === null || end === undefined || t <= time(end));
}

const decimals = new Map<string, Decimal>();
/** Decimal of a stored rate or amount; plan values repeat on every line, so they are parsed once. */
const dec = (v: Amount): Decimal => {
  if (v instanceof Decimal) return v;
  const k = String(v);
  let d = decimals.get(k);
  if (!d) {
    d = new Decimal(v);
    if (decimals.size > 10_000) decimals.clear();
    decimals.set(k, d);
  }
  return d;
};

const nonEmpty = <T>(a: readonly T[] | null | undefined): a is readonly T[] => Array.isArray(a) && a.length > 0;

/** A rule matches when every condition it gives holds; an empty Match always matches. */
export function ruleMatches(rule: Rule, line: LineFacts): boolean {
  const m = rule.Match;
  if (!m) return true;
  if (nonEmpty(m.SkuPatterns) && !matchesAny(m.SkuPatterns, line.sku)) return false;
  if (nonEmpty(m.ProductNamePatterns) && !matchesAny(m.ProductNamePatterns, line.productName ?? '')) return false;
  if (nonEmpty(m.CustomerNumbers) && !m.CustomerNumbers.some((c) => c.toLowerCase() === line.customerNumber.toLowerCase())) return false;
  const amount = line.lineAmount instanceof Decimal ? line.lineAmount : new Decimal(line.lineAmount);
  if (m.MinLineAmount !== undefined && m.MinLineAmount !== null && amount.lt(dec(m.MinLineAmount))) return false;
  if (m.MaxLineAmount !== undefined && m.MaxLineAmount !== null && amount.gt(dec(m.MaxLineAmount))) return false;
  return true;
}

/** The first rule by ascending Priority that matches (ties keep their given order). */
const sortedRules = new WeakMap<readonly Rule[], Rule[]>();

export function firstMatch(rules: readonly Rule[], line: LineFacts): Rule | null {
  let ordered = sortedRules.get(rules);
  if (!ordered) {
    ordered = [...rules].sort((a, b) => a.Priority - b.Priority);
    sortedRules.set(rules, ordered);
  }
  return ordered.find((r) => ruleMatches(r, line)) ?? null;
}

/** The override of `customerNumber` effective at `at` (the latest-starting one when several are). */
const overridesByCustomer = new WeakMap<readonly CustomerOverride[], Map<string, CustomerOverride[]>>();

export function overrideFor(plan: PlanRules, customerNumber: string, at: Date | string): CustomerOverride | null {
  let index = overridesByCustomer.get(plan.CustomerOverrides);
  if (!index) {
    index = new Map();
    for (const o of plan.CustomerOverrides) {
      const k = o.CustomerNumber.toLowerCase();
      index.set(k, [...(index.get(k) ?? []), o]);
    }
    overridesByCustomer.set(plan.CustomerOverrides, index);
  }
  const hits = (index.get(customerNumber.toLowerCase()) ?? []).filter((o) => isEffective(o.EffectiveStartDate, o.EffectiveEndDate, at));
  hits.sort((a, b) => time(b.EffectiveStartDate) - time(a.EffectiveStartDate));
  return hits[0] ?? null;
}

/** The rate of one line: customer override rules, then plan rules, then DefaultRate. */
export function rateFor(plan: PlanRules, line: LineFacts, invoiceDate: Date | string): RateChoice {
  const override = overrideFor(plan, line.customerNumber, invoiceDate);
  if (override) {
    const r = firstMatch(override.Rules, line);
    if (r) return { rule: r.Name, rate: dec(r.Rate), source: 'CustomerOverride' };
  }
  const r = firstMatch(plan.Rules, line);
  if (r) return { rule: r.Name, rate: dec(r.Rate), source: 'Rule' };
  return { rule: 'Default', rate: dec(plan.DefaultRate), source: 'Default' };
}

/** The rep's active plan whose effective dates contain `at` (the latest-starting one if several). */
export function choosePlan<P extends PlanRules>(plans: readonly P[], at: Date | string): P | null {
  const hits = plans.filter((p) => p.Active && isEffective(p.EffectiveStartDate, p.EffectiveEndDate, at));
  hits.sort((a, b) => time(b.EffectiveStartDate) - time(a.EffectiveStartDate));
  return hits[0] ?? null;
}

const ZERO = new Decimal(0);

/**
 * Spreads `discount` over lines in proportion to their amounts: each line's share is rounded
 * half-up to the minor unit, and the last line with an amount takes the rounding remainder, so
 * the shares add up to the discount exactly. A discount never exceeds the lines' sum.
 */
export function spreadDiscount(lineAmounts: readonly Amount[], discount: Amount, currency: string): Decimal[] {
  const amounts = lineAmounts.map((a) => new Decimal(a));
  const subtotal = amounts.reduce((s, a) => s.plus(a), new Decimal(0));
  const total = Decimal.min(new Decimal(discount), subtotal);
  if (total.lte(0) || subtotal.lte(0)) return amounts.map(() => ZERO);
  const shares = amounts.map((a) => roundMoney(total.times(a).dividedBy(subtotal), currency));
  let last = -1;
  amounts.forEach((a, i) => {
    if (a.gt(0)) last = i;
  });
  const spread = shares.reduce((s, a) => s.plus(a), new Decimal(0));
  shares[last] = shares[last].plus(total.minus(spread));
  return shares;
}

export interface InvoiceFacts {
  invoiceId: string;
  invoiceNumber: string;
  customerNumber: string;
  invoiceDate: Date | string;
  currencyCode: string;
  items: readonly { sku: string; productName?: string | null; quantity: number; price: Amount }[];
  /** The invoice's discount amount (already computed and rounded). */
  discountAmount: Amount;
}

export interface EntryLine {
  sku: string;
  productName: string | null;
  quantity: number;
  base: Decimal;
  rule: string;
  rate: Decimal;
  commission: Decimal;
}

export interface Entry {
  invoiceId: string;
  invoiceNumber: string;
  customerNumber: string;
  invoiceDate: Date | string;
  base: Decimal;
  commission: Decimal;
  lines: EntryLine[];
}

/** One invoice's entry under `plan`: per line base (after the discount spread), rule, rate, commission. */
export function computeEntry(plan: PlanRules, inv: InvoiceFacts): Entry {
  const c = inv.currencyCode;
  const amounts = inv.items.map((l) => roundMoney(new Decimal(l.price).times(l.quantity), c));
  const shares = spreadDiscount(amounts, inv.discountAmount, c);
  const lines = inv.items.map((l, i): EntryLine => {
    const choice = rateFor(plan, { sku: l.sku, productName: l.productName ?? null, customerNumber: inv.customerNumber, lineAmount: amounts[i] }, inv.invoiceDate);
    const base = amounts[i].minus(shares[i]);
    return { sku: l.sku, productName: l.productName ?? null, quantity: l.quantity, base, rule: choice.rule, rate: choice.rate, commission: roundMoney(base.times(choice.rate), c) };
  });
  return {
    invoiceId: inv.invoiceId,
    invoiceNumber: inv.invoiceNumber,
    customerNumber: inv.customerNumber,
    invoiceDate: inv.invoiceDate,
    base: lines.reduce((s, l) => s.plus(l.base), new Decimal(0)),
    commission: lines.reduce((s, l) => s.plus(l.commission), new Decimal(0)),
    lines,
  };
}

// computeEntries (a whole statement, each plan compiled once) is in compiled.ts.
