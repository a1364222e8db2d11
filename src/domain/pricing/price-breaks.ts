/**
 * Price breaks (pure): which tier price applies at a quantity, the validation of a product's price
 * entries (quantity rules: ./quantity-rules.ts). Money rounding and formatting: src/domain/money.ts.
 */
import { Decimal } from 'decimal.js';

import type { Amount } from '../money.js';

export interface PriceEntry {
  tier: string;
  /** Exact decimal as stored (numeric) or given. */
  price: Amount;
  atQuantity: number;
}

const sameTier = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The entries of one tier (case-insensitive), ordered by atQuantity ascending. */
export function tierEntries<T extends PriceEntry>(entries: readonly T[], tier: string): T[] {
  return entries.filter((e) => sameTier(e.tier, tier)).sort((a, b) => a.atQuantity - b.atQuantity);
}

/**
 * The unit price for `quantity` units in `tier`: the entry with the highest atQuantity that
 * is <= quantity. Null when the tier has no entry that applies (no price, or quantity below
 * the first break).
 */
export function resolveUnitPrice(entries: readonly PriceEntry[], tier: string, quantity = 1): Decimal | null {
  if (!Number.isInteger(quantity) || quantity < 1) throw new RangeError('quantity must be a whole number of at least 1');
  let best: PriceEntry | null = null;
  for (const e of entries) {
    if (!sameTier(e.tier, tier) || e.atQuantity > quantity) continue;
    if (!best || e.atQuantity > best.atQuantity) best = e;
  }
  return best ? new Decimal(best.price) : null;
}

/** Field errors for a list of price entries: duplicates of (tier, atQuantity), bad amounts. */
export function validatePriceEntries(entries: readonly { tier: string; price: Amount; atQuantity: number }[], path = 'prices'): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const key = `${e.tier.toLowerCase()}@${e.atQuantity}`;
    if (seen.has(key)) (errors[`${path}[${i}]`] ??= []).push(`Duplicate price for tier "${e.tier}" at quantity ${e.atQuantity}.`);
    seen.add(key);
    let d: Decimal | null = null;
    try {
      d = new Decimal(e.price);
    } catch {
      /* reported below */
    }
    if (!d || !d.isFinite() || d.isNegative()) (errors[`${path}[${i}].price`] ??= []).push('price must be a number of at least 0.');
    else if (d.decimalPlaces() > 4) (errors[`${path}[${i}].price`] ??= []).push('price must have at most 4 decimal places.');
    else if (d.abs().gte('1e15')) (errors[`${path}[${i}].price`] ??= []).push('price is too large.');
    if (!Number.isInteger(e.atQuantity) || e.atQuantity < 1)
      (errors[`${path}[${i}].atQuantity`] ??= []).push('atQuantity must be a whole number of at least 1.');
  });
  return errors;
}
