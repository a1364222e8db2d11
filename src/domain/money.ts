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

/** The JSON number of a rounded amount (exact for the minor unit digits). */
export function moneyNumber(value: Amount, currency: string): number {
  return Number(roundMoney(value, currency).toFixed(minorUnitDigits(currency)));
}

const formatters = new Map<string, Intl.NumberFormat>();

/** Display string, e.g. "$1,234.50", from the half-up rounded amount. */
export function formatMoney(value: Amount, currency: string): string {
  const key = currency.toUpperCase();
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.NumberFormat('en-US', { style: 'currency', currency: key })));
  // Format the already rounded string so Intl's own rounding never applies to binary floats (Intl accepts
  // numeric strings at runtime; TypeScript's lib types only number | bigint).
  return f.format(roundMoney(value, key).toFixed(minorUnitDigits(key)) as unknown as number);
}

/** A price for a response: `{ price, priceFormatted }` rounded to the currency's minor unit. */
export function presentPrice(value: Amount, currency: string): { price: number; priceFormatted: string } {
  return { price: moneyNumber(value, currency), priceFormatted: formatMoney(value, currency) };
}
