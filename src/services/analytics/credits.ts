/**
 * Sales credits for analytics (docs/analytics.md "Credits"): a partial cancellation, a return and a
 * credit note record what they take back from the order's figures, in the month of the credit. A
 * credited line carries its sku, quantity and merchandise amount; a credit not tied to lines (sku
 * null) lowers the totals only. The triggers on analytics_credit roll them up in the same
 * transaction; they count while their order counts (a later whole cancellation takes the order and
 * its credits out together).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundRows } from '../../db/orm-sql.js';

export type CreditSource = 'cancellation' | 'return' | 'credit_note';

export interface SalesCredit {
  /** null: a credit not tied to lines (totals only). */
  sku: string | null;
  quantity: number;
  /** Merchandise amount taken back, a decimal string >= 0. */
  amount: string;
}

/** Records the credits of one source on the order, in the caller's transaction (one statement). */
export async function recordSalesCredits(tx: EntityManager, orgId: string, orderId: string, kind: CreditSource, sourceId: string, credits: readonly SalesCredit[], at = new Date()): Promise<void> {
  if (!credits.length) return;
  await boundRows(
    tx,
    `insert into analytics_credit (organization_id, id, order_id, occurred_at, sku, quantity, amount, source_kind, source_id)
     select $1, gen_random_uuid(), $2, $3, x.sku, x.quantity, x.amount, $4, $5
       from unnest($6::varchar[], $7::int[], $8::numeric[]) as x(sku, quantity, amount)
      where exists (select 1 from sales_order o where o.organization_id = $1 and o.id = $2)`,
    [orgId, orderId, at, kind, sourceId, credits.map((c) => c.sku), credits.map((c) => c.quantity), credits.map((c) => c.amount)],
  );
}
