/**
 * Aging of open invoices for the statement of account (pure; docs/credit.md "Statement of
 * account"). Days past due count whole UTC calendar days from the invoice's due day to the
 * statement's as-of day: an invoice due on the as-of day (or later) is 0 days past due and
 * "current"; then 1-30, 31-60, 61-90 and 90+ (91 days and more). Sums are exact decimals rounded
 * half-up to the currency's minor unit once per invoice balance (the amounts the invoice shows).
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export const AGING_BUCKETS = ['current', '1-30', '31-60', '61-90', '90+'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];

/** The bucket's range of days past due (inclusive; `maxDays` null for the open end). */
export const BUCKET_RANGES: Record<AgingBucket, { minDays: number; maxDays: number | null }> = {
  current: { minDays: 0, maxDays: 0 },
  '1-30': { minDays: 1, maxDays: 30 },
  '31-60': { minDays: 31, maxDays: 60 },
  '61-90': { minDays: 61, maxDays: 90 },
  '90+': { minDays: 91, maxDays: null },
};

const DAY_MS = 86_400_000;
const utcDay = (d: Date | string) => Math.floor(new Date(d).getTime() / DAY_MS);

/** Whole days from the due date's UTC day to the as-of day (YYYY-MM-DD); 0 when not yet due. */
export function daysPastDue(dueDate: Date | string, asOfDay: string): number {
  return Math.max(0, utcDay(`${asOfDay}T00:00:00Z`) - utcDay(dueDate));
}

/** The bucket of an invoice `days` past due (0 or less: current; 1-30; 31-60; 61-90; 91 and more: 90+). */
export function agingBucket(days: number): AgingBucket {
  if (days <= 0) return 'current';
  if (days <= 30) return '1-30';
  if (days <= 60) return '31-60';
  if (days <= 90) return '61-90';
  return '90+';
}

export interface AgingLine {
  bucket: AgingBucket;
  count: number;
  amount: Decimal;
}

/** One line per bucket, in order (empty buckets included), and the total, of balances in `currency`. */
export function agingSummary(items: readonly { bucket: AgingBucket; balance: Amount }[], currency: string): { lines: AgingLine[]; total: Decimal } {
  const lines = AGING_BUCKETS.map((bucket): AgingLine => ({ bucket, count: 0, amount: new Decimal(0) }));
  let total = new Decimal(0);
  for (const it of items) {
    const line = lines[AGING_BUCKETS.indexOf(it.bucket)];
    const balance = roundMoney(it.balance, currency);
    line.count += 1;
    line.amount = line.amount.plus(balance);
    total = total.plus(balance);
  }
  return { lines, total };
}
