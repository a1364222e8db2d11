/**
 * Which location serves an order line (docs/fulfillment.md "Reservations"): the organization's
 * active locations in priority order (lower number first, then the default, then code), each
 * giving what it has available (on hand - reserved) until the line is covered. What no location
 * can give is backordered when the product allows it; otherwise the line is short and the whole
 * order is refused (409) naming each short line and what is available. Pure: no I/O.
 */

/** A tracked product's level at one location, as the reservation read it under lock. */
export interface LevelFact {
  productId: string;
  sku: string;
  allowBackorder: boolean;
  leadTimeDays: number | null;
  /** null: the product has no level anywhere yet (nothing available). */
  locationId: string | null;
  onHand: number;
  reserved: number;
  priority: number;
  isDefault: boolean;
  code: string;
}

export interface OrderLine {
  sku: string;
  quantity: number;
}

export interface LineAllocation {
  /** Index of the line in the order. */
  index: number;
  sku: string;
  productId: string;
  takes: { locationId: string; quantity: number }[];
  backordered: number;
  leadTimeDays: number | null;
}

export interface Shortage {
  index: number;
  sku: string;
  requested: number;
  available: number;
}

export const byServingOrder = (a: LevelFact, b: LevelFact): number =>
  a.priority - b.priority || Number(b.isDefault) - Number(a.isDefault) || a.code.localeCompare(b.code);

/**
 * Allocates the tracked lines of an order (lines whose SKU has no fact are untracked and skipped).
 * Lines of the same SKU draw on the same levels one after the other.
 */
export function allocateLines(lines: readonly OrderLine[], facts: readonly LevelFact[]): { allocations: LineAllocation[]; shortages: Shortage[] } {
  const bySku = new Map<string, LevelFact[]>();
  for (const f of facts) bySku.set(f.sku, [...(bySku.get(f.sku) ?? []), f]);
  const left = new Map<string, number>();
  const key = (f: LevelFact) => `${f.productId}/${f.locationId}`;
  for (const f of facts) if (f.locationId) left.set(key(f), Math.max(0, f.onHand - f.reserved));
  const allocations: LineAllocation[] = [];
  const shortages: Shortage[] = [];
  lines.forEach((line, index) => {
    const levels = bySku.get(line.sku);
    if (!levels?.length) return;
    const head = levels[0];
    const served = levels.filter((f) => f.locationId).sort(byServingOrder);
    const available = served.reduce((n, f) => n + (left.get(key(f)) ?? 0), 0);
    let need = line.quantity;
    const takes: LineAllocation['takes'] = [];
    if (available < need && !head.allowBackorder) {
      shortages.push({ index, sku: line.sku, requested: line.quantity, available });
      return;
    }
    for (const f of served) {
      if (need <= 0) break;
      const has = left.get(key(f)) ?? 0;
      const q = Math.min(has, need);
      if (q <= 0) continue;
      takes.push({ locationId: f.locationId!, quantity: q });
      left.set(key(f), has - q);
      need -= q;
    }
    allocations.push({ index, sku: line.sku, productId: head.productId, takes, backordered: need, leadTimeDays: head.leadTimeDays });
  });
  return { allocations, shortages };
}

/** The 409's field errors: `items[i]` per short line, saying what was asked and what is available. */
export function shortageErrors(shortages: readonly Shortage[]): Record<string, string[]> {
  return Object.fromEntries(
    shortages.map((s) => [`items[${s.index}]`, [`${s.sku}: ${s.requested} requested, ${s.available} available (the product does not allow backorders).`]]),
  );
}

/** What a reservation, release or shipment movement does to a level. */
export type MovementKind = 'receipt' | 'adjustment' | 'reservation' | 'release' | 'shipment';

/**
 * The ledger identity a level must satisfy (docs/fulfillment.md "Stock"): on hand = receipts +
 * adjustments - shipments; reserved = reservations - releases - reservations consumed by shipments.
 */
export function levelFromMovements(moves: readonly { kind: MovementKind; quantity: number; reservedQuantity: number }[]): { onHand: number; reserved: number } {
  let onHand = 0;
  let reserved = 0;
  for (const m of moves) {
    if (m.kind === 'receipt' || m.kind === 'adjustment') onHand += m.quantity;
    else if (m.kind === 'shipment') {
      onHand -= m.quantity;
      reserved -= m.reservedQuantity;
    } else if (m.kind === 'reservation') reserved += m.quantity;
    else reserved -= m.quantity;
  }
  return { onHand, reserved };
}
