/**
 * Return (RMA) rules (pure; docs/returns.md "Returns"): which units of which order lines a return
 * request takes back, its amount, the return window, and how a received return pays back.
 *
 * - A line is named by sku; its quantity is at most the units shipped less the units of earlier
 *   returns still counting (not Rejected nor Expired): more is 400 naming `lines[i].quantity`
 *   (409 when the line was returned already and nothing is left). A sku not on the order is 400
 *   naming `lines[i].sku`; a line named twice adds up.
 * - Amount: returned units × line price, rounded to the currency (tax and shipping stay with the
 *   order; staff credit them with an amount-only credit note).
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export interface ReturnableLine {
  id: string;
  sku: string;
  productName: string | null;
  shippedQuantity: number;
  /** Units of this line in earlier returns that still count. */
  returnedQuantity: number;
  price: Amount;
}

export interface ReturnPlanLine {
  orderItemId: string;
  sku: string;
  productName: string | null;
  quantity: number;
  price: string;
  amount: string;
  reason: string;
}

export type ReturnCheck = { ok: true; lines: ReturnPlanLine[]; amount: Decimal } | { ok: false; status: 400 | 409; errors: Record<string, string[]>; detail: string };

/** Statuses whose units no longer count as returned (the goods stay with the customer). */
export const VOID_RETURN_STATUSES = ['Rejected', 'Expired'] as const;

export function planReturn(lines: readonly ReturnableLine[], requested: readonly { sku: string; quantity: number; reason: string }[], currency: string): ReturnCheck {
  const taken = new Map<string, number>();
  const invalid: Record<string, string[]> = {};
  const conflicts: Record<string, string[]> = {};
  const reasons = new Map<string, string>();
  requested.forEach((r, i) => {
    const line = lines.find((l) => l.sku.toLowerCase() === r.sku.toLowerCase());
    if (!line) {
      invalid[`lines[${i}].sku`] = [`The order has no line with sku ${r.sku}.`];
      return;
    }
    const left = line.shippedQuantity - line.returnedQuantity;
    const want = (taken.get(line.id) ?? 0) + r.quantity;
    if (want > left) {
      const msg = `At most ${Math.max(0, left)} of ${line.sku} can be returned (shipped ${line.shippedQuantity}, returned already ${line.returnedQuantity}).`;
      (left <= 0 && line.shippedQuantity > 0 ? conflicts : invalid)[`lines[${i}].quantity`] = [msg];
      return;
    }
    taken.set(line.id, want);
    if (!reasons.has(line.id)) reasons.set(line.id, r.reason);
  });
  if (Object.keys(invalid).length) return { ok: false, status: 400, errors: { ...invalid, ...conflicts }, detail: 'See errors for the lines that cannot be returned.' };
  if (Object.keys(conflicts).length) return { ok: false, status: 409, errors: conflicts, detail: 'Everything shipped of these lines is returned already.' };
  const out: ReturnPlanLine[] = [];
  let amount = new Decimal(0);
  for (const l of lines) {
    const q = taken.get(l.id);
    if (!q) continue;
    const a = roundMoney(new Decimal(l.price).times(q), currency);
    amount = amount.plus(a);
    out.push({ orderItemId: l.id, sku: l.sku, productName: l.productName, quantity: q, price: new Decimal(l.price).toFixed(), amount: a.toFixed(), reason: reasons.get(l.id)! });
  }
  return { ok: true, lines: out, amount };
}

/** Whether `now` is within `windowDays` days after `shippedAt` (the end of the window included). */
export function withinReturnWindow(shippedAt: Date, windowDays: number, now: Date): boolean {
  return now.getTime() <= shippedAt.getTime() + windowDays * 86_400_000;
}

/**
 * How a received return pays back: staff's choice when given, else the organization's policy;
 * `card` needs a card charge on the order (an on-account order is always credited).
 */
export function refundMethodOf(policy: 'card' | 'credit', override: 'card' | 'credit' | null | undefined, hasCharge: boolean): 'card' | 'credit' {
  const want = override ?? policy;
  return want === 'card' && hasCharge ? 'card' : 'credit';
}
