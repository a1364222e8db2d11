/**
 * Money (pure): exact decimals (decimal.js), half-up rounding to the currency's minor unit, and
 * display formatting.
 */
import { Decimal } from 'decimal.js';

export type Amount = Decimal | string | number;

const digitsCache = new Map<string, number>();

/** Number of minor-unit digits of an ISO 4217 currency (USD 2, JPY 0, BHD 3). */
export function minorUnitDigits(currency: string): number {
  const key = currency.toUpperCase();
  let d = digitsCache.get(key);
  if (d === undefined) {
    d = new Intl.NumberFormat('en-US', { style: 'currency', currency: key }).resolvedOptions().maximumFractionDigits ?? 2;
    digitsCache.set(key, d);
  }
  return d;
}

/** Rounds half-up (away from zero at .5) to the currency's minor unit. */
export function roundMoney(value: Amount, currency: string): Decimal {
  return new Decimal(value).toDecimalPlaces(minorUnitDigits(currency), Decimal.ROUND_HALF_UP);
}

const PLAIN_DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

/** A digit string plus one in its last place ("0129" -> "0130", "999" -> "1000"). */
function plusOne(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits.charCodeAt(i) === 57) i--;
  if (i < 0) return `1${'0'.repeat(digits.length)}`;
  return `${digits.slice(0, i)}${String.fromCharCode(digits.charCodeAt(i) + 1)}${'0'.repeat(digits.length - i - 1)}`;
}

/**
 * A plain non-negative decimal string (as PostgreSQL sends a numeric, "12.4286") rounded half-up to
 * `digits` fraction digits on its digits alone: the first dropped digit decides (5 or more rounds
 * up). Null for anything else (negative, exponent, a number), which the caller rounds with Decimal.
 * Spares a Decimal per price on reads; test/unit/money.test.ts compares both paths.
 */
function fixedOfText(value: Amount, digits: number): string | null {
  if (typeof value !== 'string') return null;
  const m = PLAIN_DECIMAL.exec(value);
  if (!m) return null;
  const frac = m[2] ?? '';
  if (frac.length <= digits) return digits ? `${m[1]}.${frac.padEnd(digits, '0')}` : m[1];
  let kept = m[1] + frac.slice(0, digits);
  if (frac.charCodeAt(digits) >= 53) kept = plusOne(kept);
  const whole = kept.length - digits;
  return digits ? `${kept.slice(0, whole)}.${kept.slice(whole)}` : kept;
}

/** The amount rounded half-up to the currency's minor unit, as a fixed-point string ("12.50"). */
export function fixedMoney(value: Amount, currency: string): string {
  const digits = minorUnitDigits(currency);
  return fixedOfText(value, digits) ?? roundMoney(value, currency).toFixed(digits);
}

/** The JSON number of a rounded amount (exact for the minor unit digits). */
export function moneyNumber(value: Amount, currency: string): number {
  return Number(fixedMoney(value, currency));
}

const formatters = new Map<string, Intl.NumberFormat>();

/** Display string, e.g. "$1,234.50", from the half-up rounded amount. */
export function formatMoney(value: Amount, currency: string): string {
  const key = currency.toUpperCase();
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.NumberFormat('en-US', { style: 'currency', currency: key })));
  // Format the already rounded string so Intl's own rounding never applies to binary floats (Intl accepts
  // numeric strings at runtime; TypeScript's lib types only number | bigint).
  return f.format(fixedMoney(value, key) as unknown as number);
}

/** A price for a response: `{ price, priceFormatted }` rounded to the currency's minor unit. */
export function presentPrice(value: Amount, currency: string): { price: number; priceFormatted: string } {
  return { price: moneyNumber(value, currency), priceFormatted: formatMoney(value, currency) };
}
