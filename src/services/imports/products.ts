/**
 * The `products` (a PUT /api/products body) and `prices` (a PUT /api/products/prices
 * `productUpdates` entry) appliers: each record validated with the endpoint's schema, then the
 * catalog's one set-based upsert (src/services/catalog/upsert.ts) for the whole chunk.
 */
import { priceUpdateEntry, productInput, type PriceUpdateInput, type ProductInput } from '../../domain/products/schemas.js';
import { replaceProductPrices, upsertProducts, type UpsertResult } from '../catalog/upsert.js';
import type { ApplyContext, ChunkApplier, ChunkOutcome } from './types.js';
import { validateRecord } from './validate-record.js';

/** An applier that validates each record with `schema`, then hands the valid ones to `upsert` together. */
function applier<T>(schema: Parameters<typeof validateRecord>[0], upsert: (ctx: ApplyContext, values: T[]) => Promise<UpsertResult[]>): ChunkApplier {
  return async (ctx, records) => {
    const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
    const valid: { n: number; value: T }[] = [];
    for (const rec of records) {
      const v = validateRecord<T>(schema, rec);
      if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
      else valid.push({ n: rec.n, value: v.value });
    }
    const results = await upsert(
      ctx,
      valid.map((x) => x.value),
    );
    valid.forEach(({ n }, i) => {
      const r = results[i];
      if ('errors' in r) out.failures.push({ n, errors: r.errors });
      else out[r.outcome] += 1;
    });
    return out;
  };
}

/** `products`: upsert by sku (externalId also matches); prices, when given, replace the product's. */
export const applyProducts = applier<ProductInput>(productInput, (ctx, values) => upsertProducts(ctx, values));

/** `prices`: replaces the prices of existing products by sku. */
export const applyPrices = applier<PriceUpdateInput>(priceUpdateEntry, replaceProductPrices);
