/**
 * Payment terms (pure): how an invoice's due date follows from its invoice date.
 * - `Net` N: N days after the invoice date (Net 30).
 * - `DueOnReceipt`: the invoice date itself.
 * - `EndOfMonth` N: the last day of the invoice date's month, plus N days (EOM + 10).
 * Dates are calendar days in UTC; the due instant keeps the invoice date's time of day.
 */
export const TERM_TYPES = ['Net', 'DueOnReceipt', 'EndOfMonth'] as const;
export type TermType = (typeof TERM_TYPES)[number];

export interface TermRule {
  type: TermType;
  days: number;
}

const DAY_MS = 86_400_000;

export function isTermType(s: unknown): s is TermType {
  return typeof s === 'string' && (TERM_TYPES as readonly string[]).includes(s);
}

/** The due date of an invoice dated `invoiceDate` under `term`. */
export function dueDateFor(invoiceDate: Date, term: TermRule): Date {
  switch (term.type) {
    case 'DueOnReceipt':
      return new Date(invoiceDate.getTime());
    case 'Net':
      return new Date(invoiceDate.getTime() + term.days * DAY_MS);
    case 'EndOfMonth': {
      const d = new Date(invoiceDate.getTime());
      // Day 0 of the next month is the last day of this one.
      d.setUTCMonth(d.getUTCMonth() + 1, 0);
      return new Date(d.getTime() + term.days * DAY_MS);
    }
  }
}

/** Field errors of a term definition (Days 0..365; DueOnReceipt takes no days). */
export function termErrors(term: { type: string; days?: number | null }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!isTermType(term.type)) errors.Type = [`Type must be one of: ${TERM_TYPES.join(', ')}.`];
  const days = term.days ?? 0;
  if (!Number.isInteger(days) || days < 0 || days > 365) errors.Days = ['Days must be a whole number from 0 to 365.'];
  else if (term.type === 'DueOnReceipt' && days !== 0) errors.Days = ['DueOnReceipt takes no Days (0).'];
  return errors;
}

/** A display label, e.g. "Net 30", "Due on receipt", "EOM + 10". */
export function termLabel(term: TermRule): string {
  if (term.type === 'DueOnReceipt') return 'Due on receipt';
  if (term.type === 'Net') return `Net ${term.days}`;
  return term.days ? `EOM + ${term.days}` : 'EOM';
}

/** The terms of an invoice paid when it is made (a card checkout's): nothing is owed later, so no Net days. */
export const PREPAID_TERMS = 'Prepaid';
