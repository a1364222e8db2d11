/**
 * Price lists (pure; docs/pricing.md): statuses, validity windows and the check of a list's
 * header and entries. Which list prices a line is decided in one SQL statement
 * (src/services/pricing/resolve.ts); `inForce` states the same window rule for one list.
 */
import * as yup from 'yup';
import type { FieldErrors } from '../../errors.js';
import { validatePriceEntries } from './price-breaks.js';
import { quantityRuleErrors, type QuantityRuleOverrides } from './quantity-rules.js';

export const PRICE_LIST_STATUSES = ['Draft', 'Active', 'Archived'] as const;
export type PriceListStatus = (typeof PRICE_LIST_STATUSES)[number];

export interface Validity {
  validFrom: Date | null;
  validTo: Date | null;
}

/** Whether a list is in force at `at`: Active and `validFrom <= at < validTo` (either end open). */
export function inForce(list: Validity & { status: string }, at: Date): boolean {
  if (list.status !== 'Active') return false;
  if (list.validFrom && at.getTime() < list.validFrom.getTime()) return false;
  if (list.validTo && at.getTime() >= list.validTo.getTime()) return false;
  return true;
}

/** Field errors of a validity window: validFrom must come before validTo. */
export function validityErrors(v: Validity): FieldErrors {
  if (v.validFrom && v.validTo && v.validFrom.getTime() >= v.validTo.getTime()) return { validTo: ['validTo must be after validFrom.'] };
  return {};
}

export interface EntryInput extends QuantityRuleOverrides {
  sku: string;
  prices: { price: number | string; atQuantity?: number }[];
}

/** Field errors of entries: each SKU once, each with at least one price, breaks as tier prices are checked, rule overrides as a product's (null: inherit). */
export function entryErrors(entries: readonly EntryInput[], path = 'entries'): FieldErrors {
  const errors: FieldErrors = {};
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    const key = e.sku.toLowerCase();
    if (seen.has(key)) (errors[`${path}[${i}].sku`] ??= []).push(`The sku "${e.sku}" is given more than once.`);
    seen.add(key);
    if (!e.prices.length) (errors[`${path}[${i}].prices`] ??= []).push('prices must have at least one entry.');
    Object.assign(
      errors,
      validatePriceEntries(
        e.prices.map((p) => ({ tier: e.sku, price: String(p.price), atQuantity: p.atQuantity ?? 1 })),
        `${path}[${i}].prices`,
      ),
      quantityRuleErrors(
        { minimumOrderQuantity: e.minimumOrderQuantity, maximumOrderQuantity: e.maximumOrderQuantity, quantityIncrement: e.quantityIncrement },
        { nullable: true, path: `${path}[${i}].` },
      ),
    );
  });
  return errors;
}

/**
 * The instants at which a list's being in force changes, after `now`, for the schedule workflow:
 * its activation (validFrom) and expiry (validTo) when they are still ahead.
 */
export function upcomingBoundaries(list: Validity, now: Date): { activatesAt: Date | null; expiresAt: Date | null } {
  return {
    activatesAt: list.validFrom && list.validFrom.getTime() > now.getTime() ? list.validFrom : null,
    expiresAt: list.validTo && list.validTo.getTime() > now.getTime() ? list.validTo : null,
  };
}

/** What the schedule of a list knows: its header, when it last became Active, and the activation it announced. */
export interface ScheduleFacts extends Validity {
  status: string;
  /** When the list last became Active (null while Draft or Archived). */
  activeSince: Date | null;
  /** The activation instant `price_list.activated` announced for the period in force; null when none is open. */
  activatedAt: Date | null;
}

/** Why a list stopped pricing: its validTo passed, its status left Active, or its validFrom moved ahead. */
export type ExpiryReason = 'ValidityEnded' | 'StatusChanged' | 'Rescheduled';

export type ScheduleEvent = { type: 'activated'; activatedAt: Date } | { type: 'expired'; activatedAt: Date; expiredAt: Date; reason: ExpiryReason };

/**
 * The schedule's step at `now` (docs/pricing.md "Scheduled prices"): the event due, if any, and the
 * next instant the list's being in force can change by time alone (null: none; the workflow ends).
 * A list is activated the instant an Active list starts to price: max(validFrom, activeSince). It
 * expires the instant it stops: its validTo, or the change of status or validity that ended it.
 * Each period in force is announced once: activated when it opens, expired when it closes.
 */
export function scheduleStep(l: ScheduleFacts, now: Date): { event: ScheduleEvent | null; next: Date | null } {
  const pricing = inForce(l, now);
  let event: ScheduleEvent | null = null;
  if (pricing && !l.activatedAt) {
    const since = l.activeSince ?? now;
    event = { type: 'activated', activatedAt: l.validFrom && l.validFrom.getTime() > since.getTime() ? l.validFrom : since };
  } else if (!pricing && l.activatedAt) {
    const ended = l.status === 'Active' && l.validTo !== null && l.validTo.getTime() <= now.getTime();
    const reason: ExpiryReason = ended ? 'ValidityEnded' : l.status !== 'Active' ? 'StatusChanged' : 'Rescheduled';
    const expiredAt = ended && l.validTo!.getTime() >= l.activatedAt.getTime() ? l.validTo! : now;
    event = { type: 'expired', activatedAt: l.activatedAt, expiredAt, reason };
  }
  const { activatesAt, expiresAt } = upcomingBoundaries(l, now);
  const next = l.status !== 'Active' ? null : (activatesAt ?? expiresAt);
  return { event, next };
}
/**
 * One record of the `price-lists` import (docs/imports.md): one quantity break of a SKU on a list
 * named by id or name (case-insensitive), with the entry's quantity rule overrides when given.
 */
export const priceListBreakSchema = yup.object({
  priceList: yup.string().trim().min(1).max(200).required(),
  sku: yup.string().trim().min(1).max(100).required(),
  atQuantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').default(1),
  price: yup.number().min(0, '${path} must be at least 0.').required(),
  minimumOrderQuantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').nullable(),
  maximumOrderQuantity: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').nullable(),
  quantityIncrement: yup.number().integer('${path} must be a whole number.').min(1, '${path} must be at least 1.').nullable(),
});
export type PriceListBreakInput = yup.InferType<typeof priceListBreakSchema>;
