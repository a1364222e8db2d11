/**
 * Order status rules (pure). Pending -> Processing -> Shipped -> Complete, and
 * Pending/Processing -> Cancelled. Staying in the same status is allowed (no-op).
 * PendingApproval: an order posted by a buyer above their spending limits (docs/security.md
 * "Admission of orders"); only its approval moves it (approve -> Pending, reject or expiry ->
 * Cancelled), never an update, and it is neither fulfilled nor invoiced while it waits.
 */
export const ORDER_STATUSES = ['Pending', 'Processing', 'Shipped', 'Complete', 'Cancelled', 'PendingApproval'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const NEXT: Record<OrderStatus, readonly OrderStatus[]> = {
  Pending: ['Processing', 'Cancelled'],
  Processing: ['Shipped', 'Cancelled'],
  Shipped: ['Complete'],
  Complete: [],
  Cancelled: [],
  PendingApproval: [],
};

/** The canonical status for a case-insensitive name, or null when unknown. */
export function parseOrderStatus(value: string): OrderStatus | null {
  return ORDER_STATUSES.find((s) => s.toLowerCase() === value.trim().toLowerCase()) ?? null;
}

/** Why the move `from` -> `to` is not allowed, or null when it is. */
export function checkStatusTransition(from: string, to: string): string | null {
  const f = parseOrderStatus(from);
  const t = parseOrderStatus(to);
  if (!t) return `orderStatus must be one of: ${ORDER_STATUSES.join(', ')}.`;
  if (f === 'PendingApproval' && t !== f) return 'The order is waiting for approval; only its approval request releases (approve) or cancels (reject) it.';
  if (t === 'PendingApproval' && f !== t) return 'Only the admission of a buyer\'s order puts it in PendingApproval.';
  if (!f) return null; // imported legacy status: any known status may follow
  if (f === t) return null;
  if (!NEXT[f].includes(t)) return `An order cannot move from ${f} to ${t}.`;
  return null;
}
