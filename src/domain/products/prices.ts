/** Price entries of a product upsert or price replacement: checked against the organization's tiers. */
import type { FieldErrors } from '../../errors.js';
import { validatePriceEntries } from '../pricing/price-breaks.js';
import type { PriceInput } from './schemas.js';

export type PriceRow = { tier: string; price: string; atQuantity: number };

/** Canonical tier names for entries; field errors for unknown tiers and duplicates. */
export function checkPrices(entries: PriceInput[], tiers: readonly { name: string }[], path: string): { rows: PriceRow[]; errors: FieldErrors } {
  const errors: FieldErrors = validatePriceEntries(
    entries.map((e) => ({ tier: e.tier, price: String(e.price), atQuantity: e.atQuantity ?? 1 })),
    path,
  );
  const rows: PriceRow[] = [];
  entries.forEach((e, i) => {
    const tier = tiers.find((t) => t.name.toLowerCase() === e.tier.toLowerCase());
    if (!tier) (errors[`${path}[${i}].tier`] ??= []).push(`"${e.tier}" is not a price tier of the organization.`);
    // String(number) keeps the decimal the client wrote for ordinary amounts (no float sums).
    rows.push({ tier: tier?.name ?? e.tier, price: String(e.price), atQuantity: e.atQuantity ?? 1 });
  });
  return { rows, errors };
}
