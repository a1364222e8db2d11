/**
 * Quote states and moves (pure, no dependencies: the negotiateQuote workflow imports this file).
 * Overview in src/domain/quotes/rules.ts and docs/quotes.md.
 */
export const QUOTE_STATUSES = ['Requested', 'Quoted', 'Countered', 'Accepted', 'Rejected', 'Expired'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
export const FINAL_QUOTE_STATUSES: readonly QuoteStatus[] = ['Accepted', 'Rejected', 'Expired'];

export type QuoteAction = 'offer' | 'counter' | 'accept' | 'reject' | 'expire';
/** Which side takes a step: the buyer (the customer) or the seller (the customer's rep, an admin). */
export type QuoteSide = 'buyer' | 'seller';

const MOVES: Record<QuoteAction, { from: readonly QuoteStatus[]; to: QuoteStatus }> = {
  offer: { from: ['Requested', 'Countered'], to: 'Quoted' },
  counter: { from: ['Quoted'], to: 'Countered' },
  accept: { from: ['Quoted'], to: 'Accepted' },
  reject: { from: ['Requested', 'Quoted', 'Countered'], to: 'Rejected' },
  expire: { from: ['Quoted'], to: 'Expired' },
};

export type QuoteMove = { ok: true; to: QuoteStatus } | { ok: false; reason: string };

/**
 * The state `action` leads to from `from`, or why it is refused (a 409). `expiresAtMs` and `nowMs`
 * refuse an accept or counter of an offer whose validity has ended (its expiry may not have run yet).
 * A buyer rejects only an offer (Quoted); a seller declines only what waits for it (Requested, Countered).
 */
export function quoteMove(from: QuoteStatus, action: QuoteAction, opts: { side?: QuoteSide; expiresAtMs?: number | null; nowMs?: number } = {}): QuoteMove {
  const m = MOVES[action];
  let allowed = m.from;
  if (action === 'reject' && opts.side === 'buyer') allowed = ['Quoted'];
  if (action === 'reject' && opts.side === 'seller') allowed = ['Requested', 'Countered'];
  if (!allowed.includes(from)) {
    const verb = { offer: 'answered with an offer', counter: 'countered', accept: 'accepted', reject: 'rejected', expire: 'expired' }[action];
    return { ok: false, reason: `The quote is ${from}; only a ${allowed.join(' or ')} quote can be ${verb}.` };
  }
  if ((action === 'accept' || action === 'counter') && opts.expiresAtMs != null && opts.nowMs != null && opts.nowMs >= opts.expiresAtMs)
    return { ok: false, reason: 'The offer has expired.' };
  return { ok: true, to: m.to };
}

/** The time a reminder is due before `expiresAtMs` (never before `fromMs`), or null when there is no room for one. */
export function reminderAt(expiresAtMs: number, reminderBeforeMs: number, fromMs: number): number | null {
  const at = expiresAtMs - reminderBeforeMs;
  if (reminderBeforeMs <= 0 || expiresAtMs <= fromMs) return null;
  return Math.max(at, fromMs);
}

