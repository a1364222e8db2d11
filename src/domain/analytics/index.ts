/**
 * Analytics rules (pure; no ORM): how a requested range splits into raw-row edges, whole UTC
 * days and whole UTC months (so the rollups answer the middle and the raw rows only the edges),
 * the monthly series with zero months, the month-to-date windows, percent changes and the
 * ranking order. Times are epoch milliseconds; a window is half-open [from, to).
 */
import { Decimal } from 'decimal.js';

export const DAY_MS = 86_400_000;
/** The longest range accepted: endDate at most 5 calendar years (UTC) after startDate. */
export const MAX_SPAN_YEARS = 5;

/** Whether `endMs` is at most MAX_SPAN_YEARS calendar years after `startMs` (Feb 29 + 1 year = Mar 1). */
export function withinSpan(startMs: number, endMs: number): boolean {
  const limit = new Date(startMs);
  limit.setUTCFullYear(limit.getUTCFullYear() + MAX_SPAN_YEARS);
  return endMs <= limit.getTime();
}

/** ISO 8601 date-time with an explicit offset (Z or +hh:mm). */
export const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

export interface Window {
  from: number;
  to: number;
}

/** A range of UTC dates, `from` inclusive, `to` exclusive, as YYYY-MM-DD. */
export interface DateRange {
  from: string;
  to: string;
}

export interface Split {
  /** Pieces smaller than a day at the edges: read from the raw rows. */
  raw: Window[];
  /** Whole UTC days not inside a whole month. */
  days: DateRange[];
  /** Whole UTC months. */
  months: DateRange[];
  /** All whole days of the range (days + months), for day-only rollups. */
  allDays: DateRange | null;
}

export const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const ceilDay = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS;
const monthStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const ceilMonth = (ms: number) => {
  const m = monthStart(ms);
  if (m === ms) return ms;
  const d = new Date(m);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/** Splits [from, to) into raw edges, whole days and whole months. */
export function splitWindow(w: Window): Split {
  const out: Split = { raw: [], days: [], months: [], allDays: null };
  if (w.to <= w.from) return out;
  const d0 = ceilDay(w.from);
  const d1 = floorDay(w.to);
  if (d0 >= d1) {
    out.raw.push({ from: w.from, to: w.to });
    return out;
  }
  if (w.from < d0) out.raw.push({ from: w.from, to: d0 });
  if (d1 < w.to) out.raw.push({ from: d1, to: w.to });
  out.allDays = { from: isoDate(d0), to: isoDate(d1) };
  const m0 = ceilMonth(d0);
  const m1 = monthStart(d1);
  if (m0 < m1) {
    if (d0 < m0) out.days.push({ from: isoDate(d0), to: isoDate(m0) });
    out.months.push({ from: isoDate(m0), to: isoDate(m1) });
    if (m1 < d1) out.days.push({ from: isoDate(m1), to: isoDate(d1) });
  } else out.days.push({ from: isoDate(d0), to: isoDate(d1) });
  return out;
}

/** The inclusive request range [start, end] as a half-open window (times have millisecond precision). */
export const requestWindow = (startMs: number, endMs: number): Window => ({ from: startMs, to: endMs + 1 });

/** The window of the same length just before `w`. */
export const previousWindow = (w: Window): Window => ({ from: w.from - (w.to - w.from), to: w.from });

/** YYYY-MM-01 of every UTC month from the month of `startMs` to the month of `endMs`. */
export function monthSeries(startMs: number, endMs: number): string[] {
  const out: string[] = [];
  const s = new Date(startMs);
  const e = new Date(endMs);
  let y = s.getUTCFullYear();
  let m = s.getUTCMonth();
  while (y < e.getUTCFullYear() || (y === e.getUTCFullYear() && m <= e.getUTCMonth())) {
    out.push(`${String(y).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}-01`);
    if (++m === 12) {
      m = 0;
      y++;
    }
  }
  return out;
}

/** Fills the months of the series that have no figure with zero, in series order. */
export function fillMonths<T>(series: string[], found: ReadonlyMap<string, T>, zero: T): { date: string; value: T }[] {
  return series.map((date) => ({ date, value: found.get(date) ?? zero }));
}

/**
 * Month to date: from the first of endDate's month to endDate (inclusive), and the previous
 * month from its first to the same day and time, clamped to that month's end.
 */
export function monthToDateWindows(endMs: number): { current: Window; previous: Window } {
  const e = new Date(endMs);
  const y = e.getUTCFullYear();
  const m = e.getUTCMonth();
  const current = { from: Date.UTC(y, m, 1), to: endMs + 1 };
  const prevFirst = Date.UTC(y, m - 1, 1);
  const daysInPrev = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const to =
    e.getUTCDate() > daysInPrev
      ? current.from
      : Date.UTC(y, m - 1, e.getUTCDate(), e.getUTCHours(), e.getUTCMinutes(), e.getUTCSeconds(), e.getUTCMilliseconds()) + 1;
  return { current, previous: { from: prevFirst, to } };
}

/** (current - previous) / previous x 100, half-up to 2 decimals; null when previous is 0. */
export function percentChange(current: Decimal.Value, previous: Decimal.Value): number | null {
  const p = new Decimal(previous);
  if (p.isZero()) return null;
  return new Decimal(current).minus(p).div(p).times(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber();
}

/** Code-point order (PostgreSQL COLLATE "C"), nulls last. */
export function compareKeys(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** Ranking order: revenue descending, ties by key ascending (nulls last). */
export function compareRanked(a: { revenue: Decimal.Value; key: string | null }, b: { revenue: Decimal.Value; key: string | null }): number {
  const c = new Decimal(b.revenue).comparedTo(a.revenue);
  return c !== 0 ? c : compareKeys(a.key, b.key);
}

/** The first `limit` rows in ranking order. */
export function rankTop<T extends { revenue: Decimal.Value; key: string | null }>(rows: readonly T[], limit: number): T[] {
  return [...rows].sort(compareRanked).slice(0, limit);
}
