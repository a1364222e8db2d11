/**
 * The synchronous bulk endpoints run the same set-based import code in process: one transaction
 * for the whole request (up to 1,000 entries), no per-record round trip. POST /api/orders/bulk,
 * POST /api/invoices/bulk (limited to the caller's scope) and PUT /api/products/prices.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { batchPool } from '../../db/pools.js';
import { inTransaction } from '../../db/sql.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { invoiceLinks } from '../invoices/invoices.js';
import { repPriced } from '../invoices/rep-rules.js';
import { applyInvoices } from './invoices.js';
import { applyOrders } from './orders.js';
import { applyPrices } from './products.js';
import { writeScopeOf } from './scope.js';
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

/**
 * POST /api/invoices/bulk for a caller: the import applier in one transaction, limited to what the
 * caller may see (a SalesRep: its assigned customers' invoices; a key naming another invoice is
 * a 404 for its row, nothing changes) and, for a rep, by the rep rules of ../invoices/rep-rules.ts.
 */
export async function upsertInvoicesFor(em: EntityManager, databaseUrl: string, orgId: string, auth: Principal, entries: unknown[]) {
  const scope = await writeScopeOf(em, orgId, auth);
  if (scope) scope.priceInvoice = (value, stored) => repPriced(em, orgId, auth, value, stored);
  const out = await upsertInvoicesInBulk(databaseUrl, orgId, entries, scope);
  return out.map((r) => ({ data: { id: r.id, invoiceNumber: r.number }, links: invoiceLinks(r.id) }));
}

const skuOf = (entry: unknown): string | null =>
  entry && typeof entry === 'object' && typeof (entry as { sku?: unknown }).sku === 'string' ? (entry as { sku: string }).sku.trim() || null : null;

/**
 * PUT /api/products/prices: the `prices` import applier run in process, one transaction for the
 * request (up to 1,000 entries). Good entries are applied, bad ones reported:
 * `{ updated: [sku], errors: [{ sku, reason }] }` in input order.
 */
export async function replacePricesInBulk(databaseUrl: string, orgId: string, entries: unknown[]): Promise<{ updated: string[]; errors: { sku: string | null; reason: string }[] }> {
  const records = entries.map((data, i) => ({ n: i + 1, data, source: null }));
  const out = await inTransaction(batchPool(databaseUrl), (sql) => applyPrices({ sql, orgId, write: true }, records));
  const failed = new Map(out.failures.map((f) => [f.n, f.errors]));
  const updated: string[] = [];
  const errors: { sku: string | null; reason: string }[] = [];
  records.forEach((r) => {
    const fe = failed.get(r.n);
    const sku = skuOf(r.data);
    if (!fe) {
      if (sku && !updated.includes(sku)) updated.push(sku);
      return;
    }
    const notFound = Object.keys(fe).length === 1 && fe.sku?.[0] === 'Product not found.';
    errors.push({ sku, reason: notFound ? 'Product not found.' : Object.entries(fe).map(([f, m]) => `${f}: ${m.join(' ')}`).join('; ') });
  });
  return { updated, errors };
}
