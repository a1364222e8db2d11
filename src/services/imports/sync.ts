/**
 * The synchronous bulk order and invoice endpoints run the same set-based import code in process:
 * one transaction for the whole request (up to 1,000 entries), no per-record round trip.
 * (PUT /api/products/prices does the same: src/services/catalog/prices.ts.)
 */
import { AppError, type FieldErrors } from '../../errors.js';
import { applyInvoices } from './invoices.js';
import { applyOrders } from './orders.js';
import { batchPool } from '../../db/pools.js';
import { inTransaction } from '../../db/sql.js';
import type { ChunkApplier, WriteScope } from './types.js';

/**
 * POST /api/orders/bulk and POST /api/invoices/bulk: the import applier in one transaction for the
 * whole request; any failed entry rolls everything back: 404 when a key names a record the caller
 * may not see, else 403 when the caller may not write an entry, else 409 for a key held by another
 * record, else 400; the errors name `<list>[i].<field>` of every failed entry. Answers
 * `{ id, number }` per entry in input order.
 */
async function bulkUpsert(databaseUrl: string, orgId: string, list: string, applier: ChunkApplier, entries: unknown[], caller?: WriteScope): Promise<{ id: string; number: string }[]> {
  const records = entries.map((data, i) => ({ n: i + 1, data, source: null }));
  const out = await inTransaction(batchPool(databaseUrl), async (sql) => {
    const o = await applier({ sql, orgId, write: true, caller }, records);
    if (o.failures.length) {
      const errors: FieldErrors = {};
      for (const f of o.failures) for (const [field, m] of Object.entries(f.errors)) errors[`${list}[${f.n - 1}]${field === '$' ? '' : `.${field}`}`] = m;
      if (o.failures.some((f) => f.kind === 'not_found')) throw new AppError('not_found', 'An entry names a record that does not exist or is not visible to you; nothing was changed.', errors);
      if (o.failures.some((f) => f.kind === 'forbidden')) throw new AppError('forbidden', 'You may not write an entry as given; nothing was changed.', errors);
      const conflict = o.failures.flatMap((f) => Object.values(f.errors).flat()).find((m) => /already (exists|used)|already has/.test(m));
      if (conflict) throw AppError.conflict(conflict);
      throw AppError.validation(errors);
    }
    return o;
  });
  const byN = new Map((out.refs ?? []).map((r) => [r.n, r]));
  return records.map((r) => {
    const ref = byN.get(r.n);
    if (!ref) throw new Error(`bulk ${list}: entry ${r.n} has no result`);
    return { id: ref.id, number: ref.number };
  });
}

export const upsertOrdersInBulk = (databaseUrl: string, orgId: string, entries: unknown[], caller?: WriteScope) => bulkUpsert(databaseUrl, orgId, 'orders', applyOrders, entries, caller);
export const upsertInvoicesInBulk = (databaseUrl: string, orgId: string, entries: unknown[], caller?: WriteScope) => bulkUpsert(databaseUrl, orgId, 'invoices', applyInvoices, entries, caller);
