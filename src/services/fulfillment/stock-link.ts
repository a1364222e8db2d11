/**
 * The one place shipment creation reaches stock (issue 41 item 4): called by createShipment in the
 * transaction that writes the shipment, so on hand and the reservation move with it or not at all.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from '../../db/orm-sql.js';
import { shipStock } from '../stock/ledger.js';

export interface ShippedStockLine {
  sku: string;
  quantity: number;
  locationId?: string | null;
}

/**
 * Records the stock a shipment takes: a shipment movement per tracked line (on hand down, the
 * order's reservation at that location consumed; src/services/stock/ledger.ts `shipStock`).
 * Untracked SKUs write nothing; a tracked line the stock cannot serve is a 409 and nothing is shipped.
 */
export async function recordShipmentStock(tx: EntityManager, orgId: string, orderId: string, lines: readonly ShippedStockLine[]): Promise<void> {
  await shipStock(
    boundSql(tx),
    orgId,
    orderId,
    lines.map((l) => ({ sku: l.sku, quantity: l.quantity, ...(l.locationId ? { locationId: l.locationId } : {}) })),
  );
}
