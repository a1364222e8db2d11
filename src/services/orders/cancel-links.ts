/**
 * The cancellation's two links to shipments and reservations: the single call sites.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundRows, boundSql } from '../../db/orm-sql.js';
import { releaseOrderStock } from '../stock/ledger.js';

/** Units shipped per order line id (`order_item.shipped_quantity`, written with each shipment under the order's lock). */
export async function shippedQuantities(tx: EntityManager, orgId: string, orderId: string): Promise<Map<string, number>> {
  const rows = await boundRows<{ id: string; shipped: number }>(
    tx,
    'select id, shipped_quantity as shipped from order_item where organization_id = $1 and order_id = $2',
    [orgId, orderId],
  );
  return new Map(rows.map((r) => [r.id, Number(r.shipped)]));
}

/** Releases the stock reserved for the cancelled units (ledger release movements; releasing twice releases nothing more). */
export async function releaseCancelledStock(tx: EntityManager, orgId: string, orderId: string, lines: readonly { sku: string; quantity: number }[]): Promise<void> {
  await releaseOrderStock(boundSql(tx), orgId, orderId, lines);
}
