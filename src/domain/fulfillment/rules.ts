/**
 * Fulfillment rules (pure; docs/fulfillment.md): what a shipment may carry, what the order's status
 * becomes after it, and which status writes a process-managed order refuses.
 */
import type { FieldErrors } from '../../errors.js';

export interface OrderLineState {
  sku: string;
  quantity: number;
  shippedQuantity: number;
}

export interface RequestedLine {
  sku: string;
  quantity: number;
}

/** Statuses an order may ship from. */
export const SHIPPABLE_STATUSES = ['Pending', 'Processing'] as const;

/**
 * The lines' shipped quantities after a shipment of `requested` (same order as `order`; a SKU on
 * several lines fills them in order), or the field errors naming each bad line (`lines[i].sku`
 * unknown or repeated, `lines[i].quantity` above what remains to ship).
 */
export function planShipment(order: readonly OrderLineState[], requested: readonly RequestedLine[]): { ok: true; shipped: number[] } | { ok: false; errors: FieldErrors } {
  const remaining = new Map<string, number>();
  for (const l of order) remaining.set(l.sku, (remaining.get(l.sku) ?? 0) + l.quantity - l.shippedQuantity);
  const shipped = order.map((l) => l.shippedQuantity);
  const errors: FieldErrors = {};
  const seen = new Set<string>();
  requested.forEach((r, i) => {
    const left = remaining.get(r.sku);
    if (left === undefined) errors[`lines[${i}].sku`] = [`${r.sku} is not a line of the order.`];
    else if (seen.has(r.sku)) errors[`lines[${i}].sku`] = [`${r.sku} appears more than once.`];
    else if (r.quantity > left) errors[`lines[${i}].quantity`] = [`At most ${left} of ${r.sku} remain to ship.`];
    else {
      let q = r.quantity;
      order.forEach((l, j) => {
        if (l.sku !== r.sku || q === 0) return;
        const take = Math.min(q, l.quantity - shipped[j]);
        shipped[j] += take;
        q -= take;
      });
    }
    seen.add(r.sku);
  });
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, shipped };
}

/** Whether every line is shipped in full. */
export function fullyShipped(order: readonly OrderLineState[]): boolean {
  return order.every((l) => l.shippedQuantity >= l.quantity);
}

/** The order's status once its shipments carry `order` (Processing while some units remain, Shipped once all left). */
export function statusAfterShipment(order: readonly OrderLineState[]): 'Processing' | 'Shipped' {
  return fullyShipped(order) ? 'Shipped' : 'Processing';
}

/** Why an order in `status` cannot ship, or null when it can. */
export function cannotShip(status: string): string | null {
  if ((SHIPPABLE_STATUSES as readonly string[]).includes(status)) return null;
  if (status === 'Shipped' || status === 'Complete') return `Every line of the order is shipped already (the order is ${status}).`;
  return `An order in ${status} cannot ship.`;
}

/** The moves the fulfillment process makes, named in the refusal of a direct write. */
export const PROCESS_TRANSITIONS = [
  'Pending -> Processing (first shipment)',
  'Processing -> Shipped (every line shipped: POST /api/orders/{orderId}/shipments)',
  'Shipped -> Complete (POST /api/orders/{orderId}/shipments/{shipmentId}/delivered for the last shipment, or the auto-complete timer)',
] as const;

/**
 * A direct orderStatus write on an order whose status follows its fulfillment: the same status
 * is a no-op (null); anything else is refused, naming the transitions the process makes.
 */
export function managedStatusWrite(from: string, to: string): string | null {
  if (from.toLowerCase() === to.trim().toLowerCase()) return null;
  return `The order's status follows its shipments; a direct move from ${from} to ${to.trim()} is not allowed. Allowed transitions: ${PROCESS_TRANSITIONS.join('; ')}.`;
}

/** Whether the order completes now: Shipped and every shipment's delivery confirmed, or the auto-complete timer fired. */
export function completesNow(status: string, deliveries: readonly { delivered: boolean }[], timerFired: boolean): boolean {
  if (status !== 'Shipped') return false;
  return timerFired || (deliveries.length > 0 && deliveries.every((d) => d.delivered));
}
