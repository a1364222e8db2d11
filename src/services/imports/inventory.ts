/**
 * The `inventory` applier (docs/imports.md, docs/fulfillment.md "Stock"): each record is a
 * PUT /api/inventory entry (sku, location, one of quantityOnHand / receive / adjust, reason,
 * reference), validated with the endpoint's schema; the valid ones of a chunk are written by the
 * stock ledger in the chunk's transaction (one statement for the chunk's movements and levels). A
 * record naming an unknown or untracked SKU or an unknown location fails alone; a chunk whose
 * movements would take a level below 0 or below what it has reserved fails as a whole (409).
 */
import { inventoryEntry, type InventoryEntryInput } from '../../domain/stock/schemas.js';
import { applyInventoryEntries } from '../stock/inventory.js';
import type { ChunkApplier, ChunkOutcome } from './types.js';
import { validateRecord } from './validate-record.js';

export const applyInventory: ChunkApplier = async (ctx, records) => {
  const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
  const valid: { n: number; value: InventoryEntryInput }[] = [];
  for (const rec of records) {
    const v = validateRecord<InventoryEntryInput>(inventoryEntry, rec);
    if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
    else valid.push({ n: rec.n, value: v.value });
  }
  const checked = await applyInventoryEntries(
    ctx.sql,
    ctx.orgId,
    valid.map((x) => x.value),
    null,
    ctx.write,
  );
  valid.forEach(({ n }, i) => {
    const errors = checked.errors[i];
    if (Object.keys(errors).length) out.failures.push({ n, errors });
    else out.updated += 1;
  });
  return out;
};
