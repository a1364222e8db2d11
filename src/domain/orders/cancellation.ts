/**
 * Order cancellation rules (pure; docs/returns.md "Cancellation"): which units of which lines a
 * request cancels, and the amount. Shipped units are never cancelled (409 naming them); a line may
 * be named by sku. Without lines the request cancels every unit not shipped nor cancelled yet.
 * Amount: cancelled units x line price; when the request leaves no line with an open unit (the
 * whole order is now cancelled), the amount is the order total less what earlier cancellations
 * took, so tax, discount and shipping go back too.
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export interface CancellableLine {
  id: string;
  sku: string;
  productName: string | null;
  quantity: number;
  cancelledQuantity: number;
  shippedQuantity: number;
  price: Amount;
}

export interface CancelPlan {
  lines: { orderItemId: string; sku: string; productName: string | null; quantity: number; price: string; amount: string }[];
  merchandise: Decimal;
  amount: Decimal;
  wholeOrder: boolean;
}

export type CancelCheck = { ok: true; plan: CancelPlan } | { ok: false; status: 400 | 409; errors: Record<string, string[]>; detail: string };

export function planCancellation(
  lines: readonly CancellableLine[],
  requested: readonly { sku: string; quantity: number }[] | null,
  orderTotal: Amount,
  cancelledBefore: Amount,
  currency: string,
): CancelCheck {
  const open = (l: CancellableLine) => l.quantity - l.cancelledQuantity - l.shippedQuantity;
  const take = new Map<string, number>();
  const conflicts: Record<string, string[]> = {};
  const invalid: Record<string, string[]> = {};
  if (requested && requested.length) {
    requested.forEach((r, i) => {
      const line = lines.find((l) => l.sku.toLowerCase() === r.sku.toLowerCase());
      if (!line) {
        invalid[`lines[${i}].sku`] = [`The order has no line with sku ${r.sku}.`];
        return;
      }
      const want = (take.get(line.id) ?? 0) + r.quantity;
      if (want > open(line)) {
        const target = line.shippedQuantity > 0 && want <= line.quantity - line.cancelledQuantity ? conflicts : invalid;
        target[`lines[${i}].quantity`] = [
          `At most ${Math.max(0, open(line))} of ${line.sku} can be cancelled (ordered ${line.quantity}, shipped ${line.shippedQuantity}, cancelled ${line.cancelledQuantity}).`,
        ];
        return;
      }
      take.set(line.id, want);
    });
    if (Object.keys(invalid).length) return { ok: false, status: 400, errors: invalid, detail: 'See errors for the lines that cannot be cancelled.' };
    if (Object.keys(conflicts).length) return { ok: false, status: 409, errors: conflicts, detail: 'Shipped quantities cannot be cancelled.' };
  } else {
    for (const l of lines) if (open(l) > 0) take.set(l.id, open(l));
    if (!take.size) {
      const shipped = lines.filter((l) => l.shippedQuantity > 0);
      return shipped.length
        ? { ok: false, status: 409, errors: Object.fromEntries(shipped.map((l) => [`lines.${l.sku}`, [`${l.shippedQuantity} of ${l.sku} shipped: cannot be cancelled.`]])), detail: 'Shipped quantities cannot be cancelled.' }
        : { ok: false, status: 409, errors: {}, detail: 'Nothing is left to cancel on this order.' };
    }
  }
  const out: CancelPlan['lines'] = [];
  let merchandise = new Decimal(0);
  for (const l of lines) {
    const q = take.get(l.id);
    if (!q) continue;
    const amount = roundMoney(new Decimal(l.price).times(q), currency);
    merchandise = merchandise.plus(amount);
    out.push({ orderItemId: l.id, sku: l.sku, productName: l.productName, quantity: q, price: new Decimal(l.price).toFixed(), amount: amount.toFixed() });
  }
  const wholeOrder = lines.every((l) => l.shippedQuantity === 0 && l.quantity - l.cancelledQuantity - (take.get(l.id) ?? 0) === 0);
  const amount = wholeOrder ? Decimal.max(0, roundMoney(new Decimal(orderTotal).minus(cancelledBefore), currency)) : merchandise;
  return { ok: true, plan: { lines: out, merchandise, amount, wholeOrder } };
}
