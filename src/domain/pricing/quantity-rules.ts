/**
 * Quantity rules (pure; docs/pricing.md "Quantity rules"): a product's minimum, maximum and
 * increment, each overridable by the price list entry that prices the SKU for the customer
 * (null: the product's). Which entry applies is decided by the one resolver
 * (src/services/pricing/resolve.ts); what a quantity must satisfy is decided here.
 */
import type { FieldErrors } from '../../errors.js';

export interface QuantityRules {
  minimumOrderQuantity: number;
  /** Null: no maximum. */
  maximumOrderQuantity: number | null;
  quantityIncrement: number;
}

/** A price list entry's overrides: null (or absent) inherits the product's rule. */
export interface QuantityRuleOverrides {
  minimumOrderQuantity?: number | null;
  maximumOrderQuantity?: number | null;
  quantityIncrement?: number | null;
}

export type QuantityRuleName = keyof QuantityRules;

/** The rules in force: each override that is set, else the product's rule. */
export function rulesInForce(product: QuantityRules, entry: QuantityRuleOverrides | null | undefined): QuantityRules {
  return {
    minimumOrderQuantity: entry?.minimumOrderQuantity ?? product.minimumOrderQuantity,
    maximumOrderQuantity: entry?.maximumOrderQuantity ?? product.maximumOrderQuantity,
    quantityIncrement: entry?.quantityIncrement ?? product.quantityIncrement,
  };
}

/** The rule a quantity breaks (checked in the order minimum, maximum, increment) with why, or null when it is acceptable. */
export function quantityRuleBroken(quantity: number, rules: QuantityRules): { rule: QuantityRuleName | null; message: string } | null {
  if (!Number.isInteger(quantity) || quantity < 1) return { rule: null, message: 'quantity must be a whole number of at least 1.' };
  if (quantity < rules.minimumOrderQuantity)
    return { rule: 'minimumOrderQuantity', message: `quantity must be at least the minimum order quantity of ${rules.minimumOrderQuantity} (minimumOrderQuantity).` };
  if (rules.maximumOrderQuantity !== null && quantity > rules.maximumOrderQuantity)
    return { rule: 'maximumOrderQuantity', message: `quantity must be at most the maximum order quantity of ${rules.maximumOrderQuantity} (maximumOrderQuantity).` };
  if (quantity % rules.quantityIncrement !== 0)
    return { rule: 'quantityIncrement', message: `quantity must be a multiple of ${rules.quantityIncrement} (quantityIncrement).` };
  return null;
}

/** Why an order quantity breaks the rules (the message), or null when it is acceptable. */
export function checkOrderQuantity(quantity: number, rules: QuantityRules): string | null {
  return quantityRuleBroken(quantity, rules)?.message ?? null;
}

/**
 * Field errors of a rule set as given (a product's, or an entry's overrides): each a whole number
 * of at least 1 (null allowed where `nullable`), and a maximum not below the minimum. `path`
 * prefixes the field names (`entries[3].`).
 */
export function quantityRuleErrors(rules: QuantityRuleOverrides, opts: { path?: string; nullable?: boolean; inheritedMinimum?: number } = {}): FieldErrors {
  const path = opts.path ?? '';
  const errors: FieldErrors = {};
  for (const key of ['minimumOrderQuantity', 'maximumOrderQuantity', 'quantityIncrement'] as const) {
    const v = rules[key];
    if (v === undefined || (v === null && (opts.nullable || key === 'maximumOrderQuantity'))) continue;
    if (v === null || !Number.isInteger(v) || v < 1) errors[`${path}${key}`] = [`${key} must be a whole number of at least 1.`];
  }
  const min = rules.minimumOrderQuantity ?? opts.inheritedMinimum;
  const max = rules.maximumOrderQuantity;
  if (!Object.keys(errors).length && typeof max === 'number' && typeof min === 'number' && max < min)
    errors[`${path}maximumOrderQuantity`] = [`maximumOrderQuantity must not be below minimumOrderQuantity (${min}).`];
  return errors;
}
