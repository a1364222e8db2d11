/**
 * Card rules of the payment provider sandbox only (src/domain/payments/cards.ts holds the rules the
 * service itself applies): the sandbox's test cards with fixed outcomes, what it answers for a card,
 * ProviderDirect's and ProviderHosted's result codes, MMYY expiry and amounts as cents.
 */
import { checkCard, normalizeCardNumber, type CardCheck } from '../../src/domain/payments/cards.js';

export type SandboxOutcome = CardCheck['outcome'] | 'declined' | 'insufficient_funds';
export interface SandboxCardCheck extends Omit<CardCheck, 'outcome'> {
  outcome: SandboxOutcome;
}

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

const FIXED_OUTCOMES: Record<string, SandboxOutcome> = {
  [TEST_CARDS.decline]: 'declined',
  [TEST_CARDS.insufficientFunds]: 'insufficient_funds',
  [TEST_CARDS.expired]: 'expired',
};

/** Decides what the sandbox provider answers for a card: a valid test card's fixed outcome comes before its expiry. */
export function checkTestCard(input: { number: unknown; expMonth: unknown; expYear: unknown; cvv?: unknown }, now: Date = new Date()): SandboxCardCheck {
  const check = checkCard(input, now);
  if (check.outcome === 'invalid') return check;
  const fixed = FIXED_OUTCOMES[normalizeCardNumber(input.number as string) ?? ''];
  return fixed ? { ...check, outcome: fixed } : check;
}

/** "MMYY" as ProviderDirect returns it. */
export const expirationMMYY = (expMonth: number, expYear: number): string => `${String(expMonth).padStart(2, '0')}${String(expYear % 100).padStart(2, '0')}`;

/** ProviderHosted's callback `Result` values. */
export type HostedResult = 'Approved' | 'Declined' | 'InsufficientFunds' | 'Expired';
export function hostedResult(outcome: Exclude<SandboxOutcome, 'invalid'>): HostedResult {
  return ({ approved: 'Approved', declined: 'Declined', insufficient_funds: 'InsufficientFunds', expired: 'Expired' } as const)[outcome];
}

/** ProviderDirect's 402 error codes. */
export function directErrorCode(outcome: Exclude<SandboxOutcome, 'approved'>): 'card_declined' | 'insufficient_funds' | 'expired_card' | 'invalid_card' {
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
