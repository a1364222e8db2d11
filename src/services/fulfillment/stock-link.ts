/**
 * The one place shipment creation reaches stock (issue 41 item 4): called by createShipment in the
 * transaction that writes the shipment, so on hand and the reservation move with it or not at all.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface ShippedStockLine {
  sku: string;
  quantity: number;
  locationId?: string | null;
}

/** Records the stock a shipment takes (decrements on hand, consumes the reservation; untracked SKUs are ignored). */
export async function recordShipmentStock(tx: EntityManager, orgId: string, orderId: string, lines: readonly ShippedStockLine[]): Promise<void> {
  // wired to stock/ledger.shipStock at the merge with the stock branch
  void tx;
  void orgId;
  void orderId;
  void lines;
}
