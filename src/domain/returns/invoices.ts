/**
 * Which invoices a return credits (pure; docs/returns.md "Returns", "Which invoice a return
 * credits"). An order invoiced per shipment has one invoice per shipment; the returned units are
 * credited on the invoices that carried them:
 *
 * - the order's invoices are taken latest first (the units of the latest shipment are the ones
 *   most likely coming back, and an earlier invoice is the one most likely paid and closed);
 * - an invoice takes of each returned sku at most what it invoiced of it less what earlier credit
 *   notes credited of it on that invoice (a unit is never credited twice), and in money at most what
 *   it can still be credited (total - refunded - earlier credit notes), whole units at the line's
 *   price;
 * - what one invoice cannot take goes to the next older one; what no invoice can take is
 *   `unplaced` (the caller refuses the receipt, naming it).
 *
 * An order invoiced once has one invoice: the same rule credits it (or answers what it cannot take).
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export interface CreditableInvoice {
  invoiceId: string;
  invoiceNumber: string;
  invoiceDate: Date | string;
  /** The invoice's lines (sku, quantity, price). */
  lines: readonly { sku: string; quantity: number; price: Amount }[];
  /** Units earlier credit notes credited on this invoice, per line. */
  credited: readonly { sku: string; quantity: number }[];
  /** total - refunded - earlier credit notes (never below 0). */
  creditable: Amount;
}

export interface InvoiceCredit {
  invoiceId: string;
  invoiceNumber: string;
  lines: { sku: string; quantity: number }[];
}

const key = (sku: string) => sku.toLowerCase();

/** Latest first: invoice date, then number, descending. */
export function latestFirst<T extends Pick<CreditableInvoice, 'invoiceDate' | 'invoiceNumber'>>(invoices: readonly T[]): T[] {
  const t = (d: Date | string) => new Date(d).getTime();
  return [...invoices].sort((a, b) => t(b.invoiceDate) - t(a.invoiceDate) || b.invoiceNumber.localeCompare(a.invoiceNumber));
}

/** Spreads the returned units over the invoices that carried them (latest first, within what each can still be credited). */
export function creditsForReturn(
  returned: readonly { sku: string; quantity: number }[],
  invoices: readonly CreditableInvoice[],
  currency: string,
): { credits: InvoiceCredit[]; unplaced: { sku: string; quantity: number }[] } {
  const left = new Map<string, { sku: string; quantity: number }>();
  for (const r of returned) {
    const k = key(r.sku);
    const prev = left.get(k);
    left.set(k, { sku: prev?.sku ?? r.sku, quantity: (prev?.quantity ?? 0) + r.quantity });
  }
  const credits: InvoiceCredit[] = [];
  for (const inv of latestFirst(invoices)) {
    let money = Decimal.max(0, roundMoney(inv.creditable, currency));
    const lines: { sku: string; quantity: number }[] = [];
    for (const want of left.values()) {
      if (want.quantity <= 0) continue;
      const own = inv.lines.filter((l) => key(l.sku) === key(want.sku));
      if (!own.length) continue;
      const invoiced = own.reduce((s, l) => s + l.quantity, 0);
      const creditedBefore = inv.credited.filter((l) => key(l.sku) === key(want.sku)).reduce((s, l) => s + l.quantity, 0);
      const price = new Decimal(own[0].price);
      let n = Math.min(want.quantity, Math.max(0, invoiced - creditedBefore));
      if (price.gt(0)) n = Math.min(n, money.div(price).floor().toNumber());
      if (n <= 0) continue;
      money = money.minus(roundMoney(price.times(n), currency));
      want.quantity -= n;
      lines.push({ sku: own[0].sku, quantity: n });
    }
    if (lines.length) credits.push({ invoiceId: inv.invoiceId, invoiceNumber: inv.invoiceNumber, lines });
  }
  return { credits, unplaced: [...left.values()].filter((l) => l.quantity > 0) };
}
