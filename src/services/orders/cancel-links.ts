/**
 * The cancellation's two links to work built on other branches (shipments and reservations): the
 * single call sites, so the merge wires them here and nowhere else.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Units shipped per order line id (fulfillment's `shippedQuantity`). */
// wired at the merge with the stock/fulfillment branch
export async function shippedQuantities(_tx: EntityManager, _orgId: string, _orderId: string): Promise<Map<string, number>> {
  return new Map();
}

/** Releases the stock reserved for the cancelled units (stock's `releaseOrderStock(tx, orgId, orderId, lines)`). */
// wired at the merge with the stock/fulfillment branch
export async function releaseCancelledStock(_tx: EntityManager, _orgId: string, _orderId: string, _lines: readonly { sku: string; quantity: number }[]): Promise<void> {}
