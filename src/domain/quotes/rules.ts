/**
 * Quote negotiation rules (pure): states, who may take which step from which state, and the money
 * of a version. Requested -(seller offers)-> Quoted -(buyer counters)-> Countered -(seller offers)->
 * Quoted ... ; from Quoted the buyer accepts (-> Accepted, an order at the quoted prices) or
 * rejects (-> Rejected); a Quoted offer left open past its expiresAt becomes Expired. The seller
 * may also decline a Requested or Countered quote (-> Rejected). Accepted, Rejected and Expired are final.
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export * from './states.js';
export interface QuoteLineInput {
  sku: string;
  quantity: number;
  /** The seller's unit price before the version's discount (offers). */
  unitPrice?: Amount | null;
  /** The buyer's wish (requests and counters). */
  targetPrice?: Amount | null;
}

export interface PricedLine {
  sku: string;
  quantity: number;
  unitPrice: Decimal;
  /** unitPrice less the version's discount, rounded to the currency: the price the order gets. */
  netUnitPrice: Decimal;
  lineTotal: Decimal;
}

export interface OfferTotals {
  lines: PricedLine[];
  /** Sum of unitPrice × quantity. */
  subtotal: Decimal;
  /** subtotal − total. */
  discountAmount: Decimal;
  total: Decimal;
}

/**
 * The money of an offer: each line's net unit price is its unit price less `discountPercent`,
 * rounded half-up to the currency's minor unit, so the order created at acceptance (lines at the
 * net unit prices) totals exactly the quoted total.
 */
export function offerTotals(lines: readonly { sku: string; quantity: number; unitPrice: Amount }[], currency: string, discountPercent = 0): OfferTotals {
  if (discountPercent < 0 || discountPercent > 100) throw new RangeError('discountPercent must be between 0 and 100');
  const factor = new Decimal(100).minus(discountPercent).div(100);
  const priced = lines.map((l) => {
    const unitPrice = new Decimal(l.unitPrice);
    const netUnitPrice = roundMoney(unitPrice.times(factor), currency);
    return { sku: l.sku, quantity: l.quantity, unitPrice, netUnitPrice, lineTotal: roundMoney(netUnitPrice.times(l.quantity), currency) };
  });
  const subtotal = priced.reduce((s, l) => s.plus(roundMoney(l.unitPrice.times(l.quantity), currency)), new Decimal(0));
  const total = priced.reduce((s, l) => s.plus(l.lineTotal), new Decimal(0));
  return { lines: priced, subtotal, discountAmount: subtotal.minus(total), total };
}

/** Why a buyer's or seller's line list is unusable (field errors by `items[i].field`), empty when fine. */
export function checkQuoteLines(lines: readonly QuoteLineInput[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!lines.length) errors.items = ['A quote needs at least one line.'];
  const seen = new Set<string>();
  lines.forEach((l, i) => {
    const key = l.sku.toLowerCase();
    if (seen.has(key)) errors[`items[${i}].sku`] = [`${l.sku} appears more than once.`];
    seen.add(key);
    if (!Number.isInteger(l.quantity) || l.quantity < 1) errors[`items[${i}].quantity`] = ['quantity must be a whole number of at least 1.'];
    for (const f of ['unitPrice', 'targetPrice'] as const) {
      const v = l[f];
      if (v !== undefined && v !== null && new Decimal(v).lt(0)) errors[`items[${i}].${f}`] = [`${f} must not be negative.`];
    }
  });
  return errors;
}
