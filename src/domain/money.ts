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

/**
 * `value` with exactly `digits` fraction digits when that needs no rounding: a plain non-negative
 * decimal string (as PostgreSQL sends a numeric, "12.5000") whose digits beyond the minor unit are
 * zeros. Null otherwise (the caller rounds with Decimal). Spares a Decimal per price on reads.
 */
function exactFixed(value: Amount, digits: number): string | null {
  if (typeof value !== 'string') return null;
  const m = PLAIN_DECIMAL.exec(value);
  if (!m) return null;
  const frac = m[2] ?? '';
  for (let i = digits; i < frac.length; i++) if (frac.charCodeAt(i) !== 48) return null;
  return digits ? `${m[1]}.${frac.slice(0, digits).padEnd(digits, '0')}` : m[1];
}

/** The amount rounded half-up to the currency's minor unit, as a fixed-point string ("12.50"). */
export function fixedMoney(value: Amount, currency: string): string {
  const digits = minorUnitDigits(currency);
  return exactFixed(value, digits) ?? roundMoney(value, currency).toFixed(digits);
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
