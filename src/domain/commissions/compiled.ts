/**
 * The rule engine for a whole statement (pure): each plan is compiled once (rules sorted by
 * Priority, each condition's patterns joined into one RegExp, customer lists as sets, amounts
 * parsed, overrides indexed by customer), the override of an invoice is chosen once per invoice,
 * and money is computed in exact integer minor units (BigInt) instead of decimal objects per
 * operation. The results are the same as engine.ts's line-by-line functions (rateFor,
 * computeEntry), which stay the reference: test/unit/commissions.test.ts compares both on
 * generated invoices. Anything the integer path cannot represent exactly (an exponent in an
 * amount, a discount finer than the currency's minor unit) goes through computeEntry.
 */
import { Decimal } from 'decimal.js';
import { minorUnitDigits, type Amount } from '../money.js';
import { choosePlan, computeEntry, isEffective, type Entry, type EntryLine, type InvoiceFacts, type PlanRules, type Rule } from './engine.js';
import { patternToRegExp } from './patterns.js';

interface CompiledRule {
  name: string;
  rate: Decimal;
  /** The rate as an integer and its number of fraction digits. */
  rateInt: bigint;
  rateScale: bigint;
  sku: RegExp | null;
  productName: RegExp | null;
  customers: Set<string> | null;
  min: Decimal | null;
  max: Decimal | null;
  /** The bounds as integer and scale, compared with a line's integer amount without a Decimal (null: compare Decimals). */
  minScaled: { int: bigint; scale: number } | null;
  maxScaled: { int: bigint; scale: number } | null;
}

interface CompiledOverride {
  start: Date | string;
  end: Date | string | null | undefined;
  rules: CompiledRule[];
}

export interface CompiledPlan {
  plan: PlanRules;
  rules: CompiledRule[];
  /** Overrides by lower-cased customer number, latest start first. */
  overrides: Map<string, CompiledOverride[]>;
  fallback: CompiledRule;
}

/** Integer and scale of a plain decimal string ("-12.50" -> -1250n, 2), or null (exponent, garbage). */
function scaled(v: Amount): { int: bigint; scale: number } | null {
  const s = v instanceof Decimal ? v.toFixed() : String(v);
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(s.trim());
  if (!m || (m[2] === '' && !m[3])) return null;
  const frac = m[3] ?? '';
  const int = BigInt(`${m[2] || '0'}${frac}`);
  return { int: m[1] ? -int : int, scale: frac.length };
}

const POW10 = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));
const pow10 = (n: number): bigint => POW10[n] ?? 10n ** BigInt(n);

/** n / d rounded half away from zero (d > 0), as Decimal.ROUND_HALF_UP does. */
function divHalfUp(n: bigint, d: bigint): bigint {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const q = (a * 2n + d) / (2n * d);
  return neg ? -q : q;
}

/** The value in units of 10^-digits when it is exactly representable, else null. */
function toUnits(v: Amount, digits: number): bigint | null {
  const s = scaled(v);
  if (!s) return null;
  if (s.scale <= digits) return s.int * pow10(digits - s.scale);
  const div = pow10(s.scale - digits);
  return s.int % div === 0n ? s.int / div : null;
}

/** Amount (price x quantity) rounded half-up to `digits`, in units of 10^-digits. */
function lineUnits(price: Amount, quantity: number, digits: number): bigint | null {
  const s = scaled(price);
  if (!s || !Number.isInteger(quantity)) return null;
  const raw = s.int * BigInt(quantity);
  return s.scale <= digits ? raw * pow10(digits - s.scale) : divHalfUp(raw, pow10(s.scale - digits));
}

/** Plain decimal text of an amount in units of 10^-digits, without trailing zeros (as Decimal#toFixed() writes it). */
function textOf(units: bigint, digits: number): string {
  if (digits === 0 || units === 0n) return units.toString();
  const neg = units < 0n;
  const s = (neg ? -units : units).toString().padStart(digits + 1, '0');
  const frac = s.slice(-digits).replace(/0+$/, '');
  return `${neg ? '-' : ''}${s.slice(0, -digits)}${frac ? `.${frac}` : ''}`;
}

const decimalOf = (units: bigint, digits: number): Decimal => new Decimal(textOf(units, digits));

/**
 * A priced line whose amounts stay integers until asked for: `base` and `commission` are Decimals
 * made on first read, while amountText() gives their text without making one (30,000 lines a
 * statement: decimal objects were most of the engine's time and garbage).
 */
class IntegerLine implements EntryLine {
  #base: bigint;
  #commission: bigint;
  #digits: number;
  constructor(
    readonly sku: string,
    readonly productName: string | null,
    readonly quantity: number,
    base: bigint,
    readonly rule: string,
    readonly rate: Decimal,
    commission: bigint,
    digits: number,
  ) {
    this.#base = base;
    this.#commission = commission;
    this.#digits = digits;
  }
  get base(): Decimal {
    return decimalOf(this.#base, this.#digits);
  }
  get commission(): Decimal {
    return decimalOf(this.#commission, this.#digits);
  }
  texts(): { base: string; commission: string } {
    return { base: textOf(this.#base, this.#digits), commission: textOf(this.#commission, this.#digits) };
  }
}

/** An entry priced here: like IntegerLine, its amounts stay integers until asked for. */
class IntegerEntry implements Entry {
  #base: bigint;
  #commission: bigint;
  #digits: number;
  constructor(
    readonly invoiceId: string,
    readonly invoiceNumber: string,
    readonly customerNumber: string,
    readonly invoiceDate: Date | string,
    base: bigint,
    commission: bigint,
    digits: number,
    readonly lines: EntryLine[],
  ) {
    this.#base = base;
    this.#commission = commission;
    this.#digits = digits;
  }
  get base(): Decimal {
    return decimalOf(this.#base, this.#digits);
  }
  get commission(): Decimal {
    return decimalOf(this.#commission, this.#digits);
  }
  texts(): { base: string; commission: string } {
    return { base: textOf(this.#base, this.#digits), commission: textOf(this.#commission, this.#digits) };
  }
  /** The commission in units of 10^-digits. */
  units(): { commission: bigint; digits: number } {
    return { commission: this.#commission, digits: this.#digits };
  }
}

/** The exact text of an entry's base and commission (Decimal#toFixed() of each), cheap for entries priced here. */
export function entryAmountTexts(entry: Entry): { base: string; commission: string } {
  return entry instanceof IntegerEntry ? entry.texts() : { base: entry.base.toFixed(), commission: entry.commission.toFixed() };
}

/** The exact sum of the entries' commissions (as a sum of their Decimals), in integers when every entry was priced here. */
export function totalCommission(entries: readonly Entry[]): Decimal {
  let sum = 0n;
  let digits = -1;
  for (const e of entries) {
    if (!(e instanceof IntegerEntry)) return entries.reduce((s, x) => s.plus(x.commission), new Decimal(0));
    const u = e.units();
    if (digits === -1) digits = u.digits;
    else if (u.digits !== digits) return entries.reduce((s, x) => s.plus(x.commission), new Decimal(0));
    sum += u.commission;
  }
  if (digits === -1) return new Decimal(0);
  // Beyond Decimal's precision (20 significant digits) its additions round: give the same figure.
  if ((sum < 0n ? -sum : sum).toString().length > 20) return entries.reduce((s, x) => s.plus(x.commission), new Decimal(0));
  return decimalOf(sum, digits);
}

/** The exact text of a line's base and commission (Decimal#toFixed() of each), cheap for lines priced here. */
export function lineAmountTexts(line: EntryLine): { base: string; commission: string } {
  return line instanceof IntegerLine ? line.texts() : { base: line.base.toFixed(), commission: line.commission.toFixed() };
}

const listOf = (x: readonly string[] | null | undefined): readonly string[] => x ?? [];

function joined(given: readonly string[] | null | undefined): RegExp | null {
  const patterns = listOf(given);
  if (!patterns.length) return null;
  if (patterns.length === 1) return patternToRegExp(patterns[0]);
  return new RegExp(patterns.map((p) => `(?:${patternToRegExp(p).source})`).join('|'), 'is');
}

function compileRule(r: { name: string; rate: Amount; match?: Rule['Match'] }): CompiledRule {
  const rate = new Decimal(r.rate);
  const s = scaled(rate) ?? { int: 0n, scale: 0 };
  const m = r.match ?? null;
  return {
    name: r.name,
    rate,
    rateInt: s.int,
    rateScale: pow10(s.scale),
    sku: joined(m?.SkuPatterns),
    productName: joined(m?.ProductNamePatterns),
    customers: listOf(m?.CustomerNumbers).length ? new Set(listOf(m?.CustomerNumbers).map((c) => c.toLowerCase())) : null,
    min: m?.MinLineAmount !== undefined && m?.MinLineAmount !== null ? new Decimal(m.MinLineAmount) : null,
    max: m?.MaxLineAmount !== undefined && m?.MaxLineAmount !== null ? new Decimal(m.MaxLineAmount) : null,
    minScaled: m?.MinLineAmount !== undefined && m?.MinLineAmount !== null ? scaled(m.MinLineAmount) : null,
    maxScaled: m?.MaxLineAmount !== undefined && m?.MaxLineAmount !== null ? scaled(m.MaxLineAmount) : null,
  };
}

/** Sign of (units x 10^-digits) - (bound.int x 10^-bound.scale), exactly. */
function compareUnits(units: bigint, digits: number, bound: { int: bigint; scale: number }): number {
  const a = units * pow10(bound.scale);
  const b = bound.int * pow10(digits);
  return a < b ? -1 : a > b ? 1 : 0;
}

const compileRules = (rules: readonly Rule[]): CompiledRule[] =>
  [...rules].sort((a, b) => a.Priority - b.Priority).map((r) => compileRule({ name: r.Name, rate: r.Rate, match: r.Match }));

/** Compiles a plan once for every line it prices. */
export function compilePlan(plan: PlanRules): CompiledPlan {
  const overrides = new Map<string, CompiledOverride[]>();
  for (const o of plan.CustomerOverrides) {
    const k = o.CustomerNumber.toLowerCase();
    overrides.set(k, [...(overrides.get(k) ?? []), { start: o.EffectiveStartDate, end: o.EffectiveEndDate, rules: compileRules(o.Rules) }]);
  }
  for (const list of overrides.values()) list.sort((a, b) => new Date(b.start).getTime() - new Date(a.start).getTime());
  return { plan, rules: compileRules(plan.Rules), overrides, fallback: compileRule({ name: 'Default', rate: plan.DefaultRate }) };
}

function matches(r: CompiledRule, sku: string, productName: string, customerLower: string, units: bigint, digits: number, amount: () => Decimal): boolean {
  if (r.sku && !r.sku.test(sku)) return false;
  if (r.productName && !r.productName.test(productName)) return false;
  if (r.customers && !r.customers.has(customerLower)) return false;
  if (r.min && (r.minScaled ? compareUnits(units, digits, r.minScaled) < 0 : amount().lt(r.min))) return false;
  if (r.max && (r.maxScaled ? compareUnits(units, digits, r.maxScaled) > 0 : amount().gt(r.max))) return false;
  return true;
}

/** One invoice's entry under a compiled plan (same result as computeEntry(plan, inv)). */
export function computeEntryCompiled(cp: CompiledPlan, inv: InvoiceFacts): Entry {
  const digits = minorUnitDigits(inv.currencyCode);
  const amounts: bigint[] = [];
  for (const l of inv.items) {
    const u = lineUnits(l.price, l.quantity, digits);
    if (u === null) return computeEntry(cp.plan, inv);
    amounts.push(u);
  }
  const discount = toUnits(inv.discountAmount, digits);
  if (discount === null) return computeEntry(cp.plan, inv);
  // Discount spread (engine.ts spreadDiscount): proportional shares rounded half-up, the last line with an amount takes the remainder.
  const subtotal = amounts.reduce((s, a) => s + a, 0n);
  const total = discount < subtotal ? discount : subtotal;
  const shares = amounts.map(() => 0n);
  if (total > 0n && subtotal > 0n) {
    let spread = 0n;
    let last = -1;
    amounts.forEach((a, i) => {
      shares[i] = divHalfUp(total * a, subtotal);
      spread += shares[i];
      if (a > 0n) last = i;
    });
    shares[last] += total - spread;
  }
  const customerLower = inv.customerNumber.toLowerCase();
  const override = (cp.overrides.get(customerLower) ?? []).find((o) => isEffective(o.start, o.end, inv.invoiceDate)) ?? null;
  let baseSum = 0n;
  let commissionSum = 0n;
  const lines = inv.items.map((l, i): EntryLine => {
    const productName = l.productName ?? null;
    let amountDec: Decimal | null = null;
    const amount = () => (amountDec ??= decimalOf(amounts[i], digits));
    const rule =
      (override && override.rules.find((r) => matches(r, l.sku, productName ?? '', customerLower, amounts[i], digits, amount))) ??
      cp.rules.find((r) => matches(r, l.sku, productName ?? '', customerLower, amounts[i], digits, amount)) ??
      cp.fallback;
    const base = amounts[i] - shares[i];
    const commission = divHalfUp(base * rule.rateInt, rule.rateScale);
    baseSum += base;
    commissionSum += commission;
    return new IntegerLine(l.sku, productName, l.quantity, base, rule.name, rule.rate, commission, digits);
  });
  return new IntegerEntry(inv.invoiceId, inv.invoiceNumber, inv.customerNumber, inv.invoiceDate, baseSum, commissionSum, digits, lines);
}

/** Entries for the invoices that have a plan at their date (invoices without one earn nothing and are left out); each plan compiled once. */
export function computeEntries<P extends PlanRules>(plans: readonly P[], invoices: readonly InvoiceFacts[]): Entry[] {
  const compiled = new Map<PlanRules, CompiledPlan>();
  const out: Entry[] = [];
  for (const inv of invoices) {
    const plan = choosePlan(plans, inv.invoiceDate);
    if (!plan) continue;
    let cp = compiled.get(plan);
    if (!cp) compiled.set(plan, (cp = compilePlan(plan)));
    out.push(computeEntryCompiled(cp, inv));
  }
  return out;
}
