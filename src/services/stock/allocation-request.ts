/** The allocation request a receipt writes (docs/fulfillment.md "Backorders"; the rest in ./backorders.ts), apart so the ledger loads no Temporal client. */
import type { Sql } from '../../db/sql.js';

/**
 * In a receipt's transaction, after its levels were written: asks for an allocation of each of
 * `productIds` that has waiting lines (one statement). A request already waiting gets a new
 * version, so an allocation running now (which read the older one) leaves it for one more run.
 */
export async function requestAllocation(sql: Sql, orgId: string, productIds: readonly string[]): Promise<void> {
  if (!productIds.length) return;
  await sql(
    `insert into backorder_allocation_request as r (organization_id, product_id, sku)
     select p.organization_id, p.id, p.sku from product p
      where p.organization_id = $1 and p.id = any($2::uuid[]) and p.track_inventory
        and exists (select 1 from order_item i where i.organization_id = p.organization_id and i.sku = p.sku and i.backordered_quantity > 0)
      order by p.id
     on conflict (organization_id, product_id) do update set version = r.version + 1, requested_at = now(), next_attempt_at = now(), attempts = 0`,
    [orgId, [...new Set(productIds)]],
  );
}
