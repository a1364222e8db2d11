/**
 * Card rules of the payment provider sandbox (pure, no I/O): Luhn check, card type by prefix,
 * masking, expiry, and the outcome of the sandbox's test cards. The sandbox is a stand-in for
 * ProviderDirect and ProviderHosted (DESIGN "Payments"); the service never sees raw card numbers
 * beyond passing them to a provider once.
 */
export type CardType = 'Visa' | 'Mastercard' | 'AmericanExpress' | 'Discover';
export type CardOutcome = 'approved' | 'declined' | 'insufficient_funds' | 'expired' | 'invalid';

/** Test cards with a fixed non-approving outcome; every other valid card is approved. */
export const TEST_CARDS = {
  approveVisa: '4111111111111111',
  approveMastercard: '5555555555554444',
  approveAmex: '378282246310005',
  approveDiscover: '6011111111111117',
  decline: '4000000000000002',
  insufficientFunds: '4000000000009995',
  expired: '4000000000000069',
} as const;

const FIXED_OUTCOMES: Record<string, CardOutcome> = {
  [TEST_CARDS.decline]: 'declined',
  [TEST_CARDS.insufficientFunds]: 'insufficient_funds',
  [TEST_CARDS.expired]: 'expired',
};

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

/** "MMYY" as ProviderDirect returns it. */
export const expirationMMYY = (expMonth: number, expYear: number): string => `${String(expMonth).padStart(2, '0')}${String(expYear % 100).padStart(2, '0')}`;

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

/** Decides what the sandbox provider answers for a card. */
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
  const fixed = FIXED_OUTCOMES[digits];
  if (fixed) return { outcome: fixed, ...base, ...exp };
  if (isExpired(exp.expMonth, exp.expYear, now)) return { outcome: 'expired', ...base, ...exp };
  return { outcome: 'approved', ...base, ...exp };
}

/** ProviderHosted's callback `Result` values. */
export type HostedResult = 'Approved' | 'Declined' | 'InsufficientFunds' | 'Expired';
export function hostedResult(outcome: Exclude<CardOutcome, 'invalid'>): HostedResult {
  return ({ approved: 'Approved', declined: 'Declined', insufficient_funds: 'InsufficientFunds', expired: 'Expired' } as const)[outcome];
}

/** ProviderDirect's 402 error codes. */
export function directErrorCode(outcome: Exclude<CardOutcome, 'approved'>): 'card_declined' | 'insufficient_funds' | 'expired_card' | 'invalid_card' {
  return ({ declined: 'card_declined', insufficient_funds: 'insufficient_funds', expired: 'expired_card', invalid: 'invalid_card' } as const)[outcome];
}

/** Money as integer cents; accepts "12", "12.5", "12.50" (and finite numbers with up to 2 decimals). */
export function parseAmountCents(value: unknown): bigint | null {
  let s: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return null;
    s = value.toFixed(2);
    if (Math.abs(Number(s) - value) > 1e-9) return null;
  } else if (typeof value === 'string') s = value.trim();
  else return null;
  const m = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return null;
  return BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
}

export const formatCents = (cents: bigint): string => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
