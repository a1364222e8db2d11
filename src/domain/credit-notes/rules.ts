/**
 * Credit notes (pure; docs/returns.md "Credit notes"): what of an invoice is still creditable, the
 * amount of credited lines, and how a credit is spread over a customer's open invoices.
 *
 * - Creditable: the invoice total less what was refunded on it and what earlier credit notes
 *   credited. A credit note is never above it.
 * - Lines: each names an invoice line by sku and a quantity no larger than the line's quantity less
 *   what earlier credit notes credited of it; its amount is quantity x the line's price, rounded to
 *   the currency. With lines and an amount, the amount must equal the lines' total (an amount alone
 *   credits no lines: a price adjustment).
 * - Allocation: staff name invoices and amounts, or the credit goes to the open invoices oldest
 *   due first (then oldest dated, then by number), each up to its balance; what is left stays
 *   available.
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export interface InvoiceLineFacts {
  sku: string;
  productName?: string | null;
  quantity: number;
  price: Amount;
}

export interface LineRequest {
  sku: string;
  quantity: number;
}

export interface PricedLine {
  sku: string;
  productName: string | null;
  quantity: number;
  price: string;
  amount: string;
}

/** Invoice total - refunded - already credited, never below 0. */
export function creditableAmount(total: Amount, refunded: Amount, credited: Amount, currency: string): Decimal {
  return Decimal.max(0, roundMoney(new Decimal(total).minus(refunded).minus(credited), currency));
}

/** The requested lines priced from the invoice's lines; field errors (`lines[i].sku`, `lines[i].quantity`) when a line is unknown or over what is left. */
export function priceLines(
  invoiceLines: readonly InvoiceLineFacts[],
  creditedBefore: readonly { sku: string; quantity: number }[],
  requested: readonly LineRequest[],
  currency: string,
): { lines: PricedLine[]; total: Decimal; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const lines: PricedLine[] = [];
  const asked = new Map<string, number>();
  let total = new Decimal(0);
  requested.forEach((r, i) => {
    const key = r.sku.toLowerCase();
    const line = invoiceLines.find((l) => l.sku.toLowerCase() === key);
    if (!line) {
      errors[`lines[${i}].sku`] = [`The invoice has no line with sku ${r.sku}.`];
      return;
    }
    const invoiced = invoiceLines.filter((l) => l.sku.toLowerCase() === key).reduce((s, l) => s + l.quantity, 0);
    const before = creditedBefore.filter((l) => l.sku.toLowerCase() === key).reduce((s, l) => s + l.quantity, 0);
    const soFar = (asked.get(key) ?? 0) + r.quantity;
    asked.set(key, soFar);
    if (!Number.isInteger(r.quantity) || r.quantity <= 0) {
      errors[`lines[${i}].quantity`] = ['quantity must be a positive whole number.'];
      return;
    }
    if (before + soFar > invoiced) {
      errors[`lines[${i}].quantity`] = [`At most ${Math.max(0, invoiced - before - (soFar - r.quantity))} of ${line.sku} can still be credited (invoiced ${invoiced}, credited ${before}).`];
      return;
    }
    const amount = roundMoney(new Decimal(line.price).times(r.quantity), currency);
    total = total.plus(amount);
    lines.push({ sku: line.sku, productName: line.productName ?? null, quantity: r.quantity, price: new Decimal(line.price).toFixed(), amount: amount.toFixed() });
  });
  return { lines, total, errors };
}

export interface OpenInvoice {
  invoiceId: string;
  invoiceNumber: string;
  dueDate: Date | string;
  invoiceDate: Date | string;
  balance: Amount;
}

export interface Allocation {
  invoiceId: string;
  invoiceNumber: string;
  amount: Decimal;
}

/** Oldest due first, then oldest dated, then by number. */
export function oldestFirst<T extends OpenInvoice>(invoices: readonly T[]): T[] {
  const t = (d: Date | string) => new Date(d).getTime();
  return [...invoices].sort((a, b) => t(a.dueDate) - t(b.dueDate) || t(a.invoiceDate) - t(b.invoiceDate) || a.invoiceNumber.localeCompare(b.invoiceNumber));
}

/**
 * Spreads `available` over the open invoices, oldest first, each up to its balance. Answers the
 * allocations (amounts > 0) in order; the rest of `available` stays unapplied.
 */
export function allocateOldestFirst(available: Amount, invoices: readonly OpenInvoice[], currency: string): Allocation[] {
  let left = roundMoney(available, currency);
  const out: Allocation[] = [];
  for (const inv of oldestFirst(invoices)) {
    if (left.lte(0)) break;
    const a = Decimal.min(left, roundMoney(inv.balance, currency));
    if (a.lte(0)) continue;
    out.push({ invoiceId: inv.invoiceId, invoiceNumber: inv.invoiceNumber, amount: a });
    left = left.minus(a);
  }
  return out;
}

/**
 * The credited invoice first, up to its balance, then the customer's other open invoices oldest
 * first (a return's note pays the invoice whose units came back before anything else).
 */
export function allocateCreditedFirst(available: Amount, invoices: readonly OpenInvoice[], creditedId: string, currency: string): Allocation[] {
  const credited = invoices.filter((i) => i.invoiceId === creditedId);
  const first = allocateOldestFirst(available, credited, currency);
  const used = first.reduce((s, a) => s.plus(a.amount), new Decimal(0));
  return [...first, ...allocateOldestFirst(roundMoney(available, currency).minus(used), invoices.filter((i) => i.invoiceId !== creditedId), currency)];
}

/**
 * Staff's choice: each named invoice (open, of the customer) and amount; errors name
 * `applyTo[i].invoiceId` / `applyTo[i].amount` (unknown or closed invoice, over its balance, over
 * what is available in total).
 */
export function allocateChosen(
  available: Amount,
  invoices: readonly OpenInvoice[],
  chosen: readonly { invoiceId: string; amount: Amount }[],
  currency: string,
): { allocations: Allocation[]; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const out: Allocation[] = [];
  let left = roundMoney(available, currency);
  const used = new Map<string, Decimal>();
  chosen.forEach((c, i) => {
    const inv = invoices.find((x) => x.invoiceId === c.invoiceId);
    if (!inv) {
      errors[`applyTo[${i}].invoiceId`] = ['No open invoice of this customer in the credit note\'s currency has this id.'];
      return;
    }
    const a = roundMoney(c.amount, currency);
    if (a.lte(0)) {
      errors[`applyTo[${i}].amount`] = ['amount must be greater than 0.'];
      return;
    }
    const after = (used.get(inv.invoiceId) ?? new Decimal(0)).plus(a);
    if (after.gt(roundMoney(inv.balance, currency))) {
      errors[`applyTo[${i}].amount`] = [`amount exceeds the balance of invoice ${inv.invoiceNumber} (${roundMoney(inv.balance, currency).toFixed()}).`];
      return;
    }
    if (a.gt(left)) {
      errors[`applyTo[${i}].amount`] = [`amount exceeds the credit still available (${left.toFixed()}).`];
      return;
    }
    used.set(inv.invoiceId, after);
    left = left.minus(a);
    out.push({ invoiceId: inv.invoiceId, invoiceNumber: inv.invoiceNumber, amount: a });
  });
  return { allocations: out, errors };
}

/**
 * The credit note of a whole-order cancellation (docs/returns.md "Cancellation"): what the order's
 * invoice can still absorb caps it. `credit` is the note's amount (0: no note), `uncredited` what
 * of the cancelled amount the invoice could not take because it was refunded or credited already
 * (a manual credit note, a return).
 */
export function capCredit(cancelled: Amount, creditable: Amount, currency: string): { credit: Decimal; uncredited: Decimal } {
  const want = Decimal.max(0, roundMoney(cancelled, currency));
  const credit = Decimal.min(want, Decimal.max(0, roundMoney(creditable, currency)));
  return { credit, uncredited: want.minus(credit) };
}
