/** PUT /api/products/prices: the `prices` import applier run in process, one transaction for the request (up to 1,000 entries). */
import { applyPrices } from '../imports/products.js';
import { batchPool } from '../../db/pools.js';
import { inTransaction } from '../../db/sql.js';

const skuOf = (entry: unknown): string | null =>
  entry && typeof entry === 'object' && typeof (entry as { sku?: unknown }).sku === 'string' ? (entry as { sku: string }).sku.trim() || null : null;

/** Good entries are applied, bad ones reported: `{ updated: [sku], errors: [{ sku, reason }] }` in input order. */
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
