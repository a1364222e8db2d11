/**
 * Order numbers: per organization, gap-free and duplicate-free under concurrency. The
 * counter row is bumped with one atomic upsert (row lock held until the surrounding
 * transaction ends), so two transactions never get the same value, and a rolled-back
 * transaction gives its value back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export const formatOrderNumber = (n: number | bigint | string) => `SO-${String(n).padStart(6, '0')}`;

export async function nextOrderNumber(em: EntityManager, organizationId: string): Promise<string> {
  const rows = (await em
    .getConnection()
    .execute<{ last_value: string }[]>(
      'insert into order_number_counter (organization_id, last_value) values (?, 1) on conflict (organization_id) do update set last_value = order_number_counter.last_value + 1 returning last_value',
      [organizationId],
      'all',
      em.getTransactionContext(),
    ));
  return formatOrderNumber(rows[0].last_value);
}
