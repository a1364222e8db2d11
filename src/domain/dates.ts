/**
 * Date inputs, one rule for every operation (issue 19 item 3): a field that takes a date accepts
 * both a calendar date (`2025-01-31`) and an ISO 8601 date-time with an offset
 * (`2025-01-31T00:00:00Z`, `2025-01-31T02:00:00+02:00`). A bare date means the UTC day; as the
 * start of a range it is that day's first instant, as the end of an inclusive range its last.
 * A field that holds a day (a statement period) takes a date-time only when it is midnight UTC,
 * where the meaning is clear; any other instant is refused rather than guessed.
 */
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
export const DATE_TIME_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** True when `v` is a real calendar date written YYYY-MM-DD (no 2025-02-30). */
export function isCalendarDate(v: string): boolean {
  if (!DATE_ONLY.test(v)) return false;
  const t = Date.parse(`${v}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().startsWith(v);
}

/** True for a calendar date or a valid date-time with an offset. */
export function isDateInput(v: string): boolean {
  if (DATE_ONLY.test(v)) return isCalendarDate(v);
  return DATE_TIME_WITH_OFFSET.test(v) && !Number.isNaN(Date.parse(v)) && isCalendarDate(v.slice(0, 10));
}

/** Epoch milliseconds of a date input: a bare date is its UTC day's first instant (`start`) or last (`end`). NaN when invalid. */
export function instantOf(v: string, edge: 'start' | 'end' = 'start'): number {
  if (!isDateInput(v)) return NaN;
  if (DATE_ONLY.test(v)) return Date.parse(`${v}T00:00:00Z`) + (edge === 'end' ? 86_400_000 - 1 : 0);
  return Date.parse(v);
}

/** The UTC day (YYYY-MM-DD) a day field means, or undefined when the input does not name one day clearly. */
export function dayOf(v: string): string | undefined {
  if (DATE_ONLY.test(v)) return isCalendarDate(v) ? v : undefined;
  if (!isDateInput(v)) return undefined;
  const iso = new Date(Date.parse(v)).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : undefined;
}

/** One output form for instants: ISO 8601 in UTC with `Z`. */
export const toUtc = (d: Date | string | number): string => new Date(d).toISOString();
