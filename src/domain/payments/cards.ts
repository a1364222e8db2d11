/**
 * Card rules (pure, no I/O): Luhn check, card type by prefix, masking, expiry, and whether a card
 * is valid (checkCard). The service checks a card with them before passing it to a provider once
 * (it never keeps raw card numbers); the payment provider sandbox (scripts/provider-sandbox/cards.ts,
 * a stand-in for ProviderDirect and ProviderHosted, DESIGN "Payments") builds its test cards and
 * answers on them.
 */
export type CardType = 'Visa' | 'Mastercard' | 'AmericanExpress' | 'Discover';
/** What the card itself says: valid and not expired (approved), expired, or invalid; a provider may still decline it. */
export type CardOutcome = 'approved' | 'expired' | 'invalid';

/** Digits only: spaces and dashes are allowed as separators, anything else makes it invalid. */
export function normalizeCardNumber(input: string): string | null {
  const s = input.replace(/[\s-]/g, '');
  return /^\d{12,19}$/.test(s) ? s : null;
}

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function detectCardType(digits: string): CardType | null {
  if (/^4\d{12}(\d{3}){0,2}$/.test(digits)) return 'Visa';
  if (/^3[47]\d{13}$/.test(digits)) return 'AmericanExpress';
  if (/^(5[1-5]\d{2}|222[1-9]|22[3-9]\d|2[3-6]\d{2}|27[01]\d|2720)\d{12}$/.test(digits)) return 'Mastercard';
  if (/^(6011|65\d{2}|64[4-9]\d)\d{12,15}$/.test(digits)) return 'Discover';
  return null;
}

/** "XXXX1111": only the last four digits visible. */
export const maskCardNumber = (digits: string): string => `XXXX${digits.slice(-4)}`;

/** Two-digit years are read as 20YY. Returns null when month/year are not a real expiry. */
export function normalizeExpiry(month: unknown, year: unknown): { expMonth: number; expYear: number } | null {
  const m = typeof month === 'number' ? month : typeof month === 'string' && /^\d{1,2}$/.test(month.trim()) ? Number(month) : NaN;
  let y = typeof year === 'number' ? year : typeof year === 'string' && /^\d{2}(\d{2})?$/.test(year.trim()) ? Number(year) : NaN;
  if (!Number.isInteger(m) || m < 1 || m > 12 || !Number.isInteger(y)) return null;
  if (y < 100) y += 2000;
  if (y < 1000 || y > 9999) return null;
  return { expMonth: m, expYear: y };
}

/** A card is valid through the last day of its expiry month (UTC). */
export function isExpired(expMonth: number, expYear: number, now: Date): boolean {
  const firstDayAfter = Date.UTC(expYear, expMonth, 1); // month index expMonth == next month
  return now.getTime() >= firstDayAfter;
}

export interface CardCheck {
  outcome: CardOutcome;
  /** Why an invalid card is invalid (safe to show; never contains the number). */
  reason?: string;
  cardType?: CardType;
  lastFour?: string;
  maskedCardNumber?: string;
  expMonth?: number;
  expYear?: number;
}

/** Whether a card is valid and not expired (the provider sandbox adds its test cards' outcomes). */
export function checkCard(input: { number: unknown; expMonth: unknown; expYear: unknown; cvv?: unknown }, now: Date = new Date()): CardCheck {
  const digits = typeof input.number === 'string' ? normalizeCardNumber(input.number) : null;
  if (!digits || !luhnValid(digits)) return { outcome: 'invalid', reason: 'The card number is not valid.' };
  const cardType = detectCardType(digits);
  if (!cardType) return { outcome: 'invalid', reason: 'The card type is not supported.' };
  const base = { cardType, lastFour: digits.slice(-4), maskedCardNumber: maskCardNumber(digits) };
  const exp = normalizeExpiry(input.expMonth, input.expYear);
  if (!exp) return { outcome: 'invalid', reason: 'The expiration date is not valid.', ...base };
  if (input.cvv !== undefined) {
    const cvv = typeof input.cvv === 'number' ? String(input.cvv) : input.cvv;
    const len = cardType === 'AmericanExpress' ? 4 : 3;
    if (typeof cvv !== 'string' || !new RegExp(`^\\d{${len}}$`).test(cvv))
      return { outcome: 'invalid', reason: 'The security code is not valid.', ...base, ...exp };
  }
  if (isExpired(exp.expMonth, exp.expYear, now)) return { outcome: 'expired', ...base, ...exp };
  return { outcome: 'approved', ...base, ...exp };
}
