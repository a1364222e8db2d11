/** Order money (pure): one way to turn lines, tax and shipping into line subtotals and totals. */
import { Decimal } from 'decimal.js';
import { minorUnitDigits, roundMoney, type Amount } from '../money.js';

export interface OrderLineInput {
  /** Unit price (decimal string or number). */
  price: Amount;
  quantity: number;
}

export interface OrderTotals {
  /** Per line, in input order: unit price and price × quantity rounded half-up to the currency's minor unit. */
  lines: { price: Decimal; subTotal: Decimal }[];
  subtotal: Decimal;
  tax: Decimal;
  shipping: Decimal;
  total: Decimal;
}

export function orderTotals(lines: readonly OrderLineInput[], currency: string, tax: Amount = 0, shipping: Amount = 0): OrderTotals {
  const priced = lines.map((l) => {
    const price = new Decimal(l.price);
    return { price, subTotal: roundMoney(price.times(l.quantity), currency) };
  });
  const subtotal = priced.reduce((s, l) => s.plus(l.subTotal), new Decimal(0));
  const t = roundMoney(tax, currency);
  const s = roundMoney(shipping, currency);
  return { lines: priced, subtotal, tax: t, shipping: s, total: subtotal.plus(t).plus(s) };
}

/** What lines come to as a checkout charges them: the total in the currency's minor unit, as text (`25.00`). */
export function amountDue(lines: readonly OrderLineInput[], currency: string): string {
  return orderTotals(lines, currency).total.toFixed(minorUnitDigits(currency));
}
