/**
 * Invoice money (pure): line totals, discount (Percentage or Amount), tax, total, amount
 * paid and balance in exact decimals, rounded half-up to the currency's minor unit.
 * importedInvoiceTotal overrides the computed total; importedBalance derives the amount
 * already paid as (importedInvoiceTotal or computed total) - importedBalance.
 */
import { Decimal } from 'decimal.js';
import { formatMoney, minorUnitDigits, moneyNumber, roundMoney, type Amount } from '../money.js';

export interface InvoiceLineInput {
  quantity: number;
  price: Amount;
}

export interface DiscountInput {
  type: 'Percentage' | 'Amount';
  value: Amount;
}

export interface TotalsInput {
  currencyCode: string;
  items: readonly InvoiceLineInput[];
  tax?: Amount | null;
  discount?: DiscountInput | null;
  importedInvoiceTotal?: Amount | null;
  importedBalance?: Amount | null;
}

export interface InvoiceTotals {
  subtotal: Decimal;
  discountAmount: Decimal;
  tax: Decimal;
  total: Decimal;
  /** Paid amount derived from importedBalance (0 when not imported). */
  importedPaid: Decimal;
}

export function lineTotal(line: InvoiceLineInput, currency: string): Decimal {
  return roundMoney(new Decimal(line.price).times(line.quantity), currency);
}

export function discountAmount(subtotal: Amount, discount: DiscountInput | null | undefined, currency: string): Decimal {
  if (!discount) return new Decimal(0);
  const sub = new Decimal(subtotal);
  const raw = discount.type === 'Percentage' ? sub.times(discount.value).dividedBy(100) : new Decimal(discount.value);
  // A discount never exceeds the subtotal.
  return roundMoney(Decimal.min(raw, sub), currency);
}

export function computeTotals(input: TotalsInput): InvoiceTotals {
  const c = input.currencyCode;
  const subtotal = input.items.reduce((s, l) => s.plus(lineTotal(l, c)), new Decimal(0));
  const disc = discountAmount(subtotal, input.discount, c);
  const tax = roundMoney(input.tax ?? 0, c);
  const computed = subtotal.minus(disc).plus(tax);
  const total = input.importedInvoiceTotal !== undefined && input.importedInvoiceTotal !== null ? roundMoney(input.importedInvoiceTotal, c) : computed;
  const importedPaid =
    input.importedBalance !== undefined && input.importedBalance !== null ? roundMoney(total.minus(input.importedBalance), c) : new Decimal(0);
  return { subtotal, discountAmount: disc, tax, total, importedPaid };
}

export function balanceOf(total: Amount, amountPaid: Amount, currency: string): Decimal {
  return roundMoney(new Decimal(total).minus(amountPaid), currency);
}

/** Field errors for an offline payment amount against the open balance. */
export function checkPaymentAmount(amount: Amount, balance: Amount, currency: string): string | null {
  const a = new Decimal(amount);
  if (!a.isFinite() || a.lte(0)) return 'amount must be greater than 0.';
  if (a.decimalPlaces() > minorDigits(currency)) return `amount must have at most ${minorDigits(currency)} decimal places for ${currency}.`;
  if (a.gt(balance)) return `amount must not exceed the balance of ${formatMoney(balance, currency)}.`;
  return null;
}

export function checkRefundAmount(amount: Amount, refundable: Amount, currency: string): string | null {
  const a = new Decimal(amount);
  if (!a.isFinite() || a.lte(0)) return 'amount must be greater than 0.';
  if (a.decimalPlaces() > minorDigits(currency)) return `amount must have at most ${minorDigits(currency)} decimal places for ${currency}.`;
  if (a.gt(refundable)) return `amount must not exceed the refundable amount of ${formatMoney(refundable, currency)}.`;
  return null;
}

const minorDigits = (currency: string) => minorUnitDigits(currency);

/** `{ [name]: number, [name]Formatted: string }` for a response. */
export function moneyFields<K extends string>(name: K, value: Amount, currency: string): Record<K, number> & Record<`${K}Formatted`, string> {
  return { [name]: moneyNumber(value, currency), [`${name}Formatted`]: formatMoney(value, currency) } as Record<K, number> & Record<`${K}Formatted`, string>;
}
