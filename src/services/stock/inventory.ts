/**
 * Stock use cases (docs/fulfillment.md "Stock"): levels set, received or adjusted by SKU and
 * location in bulk (PUT /api/inventory and the `inventory` import), a product's levels
 * (GET /api/products/{sku}/inventory), and the adjustment a `quantityOnHand` write of a tracked
 * product becomes at the organization's default location (the product upsert). Every change goes
 * through the ledger (./ledger.ts) in one transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Sql } from '../../db/sql.js';
import { inTransaction, rowsOf } from '../../db/sql.js';
import { batchPool } from '../../db/pools.js';
import { applyMovements, type Movement } from './ledger.js';

/** One entry of PUT /api/inventory: exactly one of quantityOnHand (a count), receive, adjust. */
export interface InventoryEntry {
  sku: string;
  /** The location's code (or its id). */
  location: string;
  quantityOnHand?: number | null;
  receive?: number | null;
  adjust?: number | null;
  reason?: string | null;
  reference?: string | null;
}

export interface LevelView {
  sku: string;
  locationId: string;
  location: string;
  onHand: number;
  reserved: number;
  available: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Why one entry cannot be applied (field -> messages, by the entry's own field names), given the products and locations read. */
function entryErrors(e: InventoryEntry, products: Map<string, { id: string; tracked: boolean }>, locations: Map<string, string>): FieldErrors {
  const errors: FieldErrors = {};
  const given = [e.quantityOnHand, e.receive, e.adjust].filter((x) => x !== undefined && x !== null).length;
  if (given !== 1) errors.$ = ['Give exactly one of quantityOnHand (a count), receive or adjust.'];
  if (e.adjust !== undefined && e.adjust !== null && !e.reason) errors.reason = ['An adjustment needs a reason.'];
  const p = products.get(e.sku);
  if (!p) errors.sku = ['No product with this sku.'];
  else if (!p.tracked) errors.sku = ['The product does not track inventory; set trackInventory: true on it first (PUT /api/products).'];
  if (!locations.has(e.location.toLowerCase())) errors.location = ['No stock location with this code or id.'];
  return errors;
}

/** Per entry, in input order: its field errors (empty when it can be applied). `write: false` checks only. */
export interface InventoryOutcome {
  errors: FieldErrors[];
  levels: LevelView[];
}

/**
 * Applies the entries that can be applied, in the caller's transaction: each becomes a receipt, an
 * adjustment with its reason, or (quantityOnHand, a count) an adjustment by the difference to the
 * level's on hand, read under lock (reason "count" unless given). Answers each entry's errors
 * and the levels written (one statement for all of them: ./ledger.ts applyMovements).
 */
export async function applyInventoryEntries(sql: Sql, orgId: string, entries: readonly InventoryEntry[], by: string | null, write = true): Promise<InventoryOutcome> {
  if (!entries.length) return { errors: [], levels: [] };
  const skus = [...new Set(entries.map((e) => e.sku))];
  const refs = [...new Set(entries.map((e) => e.location.toLowerCase()))];
  const products = new Map(
    (await sql<{ id: string; sku: string; track_inventory: boolean }>('select id, sku, track_inventory from product where organization_id = $1 and sku = any($2::text[])', [orgId, skus])).map(
      (r) => [r.sku, { id: r.id, tracked: r.track_inventory }],
    ),
  );
  const locRows = await sql<{ id: string; code: string }>(
    'select id, code from stock_location where organization_id = $1 and (lower(code) = any($2::text[]) or id = any($3::uuid[]))',
    [orgId, refs, refs.filter((r) => UUID.test(r))],
  );
  const locations = new Map<string, string>();
  for (const l of locRows) {
    locations.set(l.code.toLowerCase(), l.id);
    locations.set(l.id.toLowerCase(), l.id);
  }
  const codeOf = new Map(locRows.map((l) => [l.id, l.code]));
  const errors = entries.map((e) => entryErrors(e, products, locations));
  const good = entries.filter((_, i) => !Object.keys(errors[i]).length);
  if (!write || !good.length) return { errors, levels: [] };
  const counted = good.filter((e) => e.quantityOnHand !== undefined && e.quantityOnHand !== null);
  const current = new Map<string, number>();
  if (counted.length) {
    const pids = counted.map((e) => products.get(e.sku)!.id);
    const lids = counted.map((e) => locations.get(e.location.toLowerCase())!);
    for (const r of await sql<{ product_id: string; location_id: string; on_hand: number }>(
      `select s.product_id, s.location_id, s.on_hand from stock_level s join unnest($2::uuid[], $3::uuid[]) k(p, l) on s.product_id = k.p and s.location_id = k.l
        where s.organization_id = $1 order by s.product_id, s.location_id for update of s`,
      [orgId, pids, lids],
    ))
      current.set(`${r.product_id}/${r.location_id}`, r.on_hand);
  }
  const moves: Movement[] = good.map((e) => {
    const productId = products.get(e.sku)!.id;
    const locationId = locations.get(e.location.toLowerCase())!;
    const base = { productId, locationId, reference: e.reference ?? null, createdBy: by };
    if (e.receive !== undefined && e.receive !== null) return { ...base, kind: 'receipt', quantity: e.receive, reason: e.reason ?? null };
    if (e.adjust !== undefined && e.adjust !== null) return { ...base, kind: 'adjustment', quantity: e.adjust, reason: e.reason! };
    const k = `${productId}/${locationId}`;
    const delta = e.quantityOnHand! - (current.get(k) ?? 0);
    current.set(k, e.quantityOnHand!);
    return { ...base, kind: 'adjustment', quantity: delta, reason: e.reason ?? 'count' };
  });
  const levels = await applyMovements(sql, orgId, moves);
  const skuOf = new Map([...products].map(([sku, p]) => [p.id, sku]));
  return {
    errors,
    levels: levels
      .map((l) => ({ sku: skuOf.get(l.product_id)!, locationId: l.location_id, location: codeOf.get(l.location_id)!, onHand: l.on_hand, reserved: l.reserved, available: l.on_hand - l.reserved }))
      .sort((a, b) => a.sku.localeCompare(b.sku) || a.location.localeCompare(b.location)),
  };
}

/** The entries' errors as `items[i].<field>` (`items[i]` for the entry itself); nothing is written when any entry is bad. */
async function applyAllOrNothing(sql: Sql, orgId: string, entries: readonly InventoryEntry[], by: string | null): Promise<LevelView[]> {
  const checked = await applyInventoryEntries(sql, orgId, entries, by, false);
  const errors: FieldErrors = {};
  checked.errors.forEach((e, i) => {
    for (const [f, m] of Object.entries(e)) errors[f === '$' ? `items[${i}]` : `items[${i}].${f}`] = m;
  });
  if (Object.keys(errors).length) throw AppError.validation(errors, 'Some inventory entries cannot be applied; nothing was changed.');
  return (await applyInventoryEntries(sql, orgId, entries, by)).levels;
}

/** PUT /api/inventory: the entries in one transaction (all or nothing). */
export async function putInventory(databaseUrl: string, orgId: string, entries: readonly InventoryEntry[], by: string | null): Promise<{ items: LevelView[] }> {
  return { items: await inTransaction(batchPool(databaseUrl), (sql) => applyAllOrNothing(sql, orgId, entries, by)) };
}

/**
 * A tracked product's `quantityOnHand` written through the product upsert: the difference to the
 * sum of its levels is an adjustment at the organization's default location (400 naming
 * quantityOnHand when the organization has none), in the upsert's transaction.
 */
export async function adjustToTargets(sql: Sql, orgId: string, targets: readonly { productId: string; sku: string; target: number; levels: number }[]): Promise<void> {
  const [def] = await sql<{ id: string }>('select id from stock_location where organization_id = $1 and is_default', [orgId]);
  if (!def)
    throw AppError.field(
      'quantityOnHand',
      'The organization has no default stock location: create one (POST /api/stock-locations) before setting the quantityOnHand of a product that tracks inventory.',
    );
  await applyMovements(
    sql,
    orgId,
    targets.map((t) => ({ productId: t.productId, locationId: def.id, kind: 'adjustment' as const, quantity: t.target - t.levels, reason: 'quantityOnHand written on the product' })),
  );
}

export interface ProductInventory {
  sku: string;
  productId: string;
  trackInventory: boolean;
  allowBackorder: boolean;
  leadTimeDays: number | null;
  quantityOnHand: number;
  reserved: number;
  available: number;
  locations: { locationId: string; code: string; name: string; priority: number; isDefault: boolean; active: boolean; onHand: number; reserved: number; available: number }[];
}

const PRODUCT_INVENTORY = `select p.id, p.sku, p.track_inventory, p.allow_backorder, p.lead_time_days, p.quantity_on_hand,
    coalesce((select json_agg(json_build_object('locationId', loc.id, 'code', loc.code, 'name', loc.name, 'priority', loc.priority, 'isDefault', loc.is_default,
                                                'active', loc.active, 'onHand', s.on_hand, 'reserved', s.reserved, 'available', s.on_hand - s.reserved)
                              order by loc.priority, loc.code)
                from stock_level s join stock_location loc on loc.organization_id = s.organization_id and loc.id = s.location_id
               where s.organization_id = p.organization_id and s.product_id = p.id), '[]') as locations
  from product p where p.organization_id = $1 and p.sku = $2`;

/** GET /api/products/{sku}/inventory: the product's levels per location and their totals (one statement). */
export async function productInventory(em: EntityManager, orgId: string, sku: string): Promise<ProductInventory> {
  const [r] = await rowsOf<{
    id: string;
    sku: string;
    track_inventory: boolean;
    allow_backorder: boolean;
    lead_time_days: number | null;
    quantity_on_hand: number;
    locations: ProductInventory['locations'];
  }>(em, PRODUCT_INVENTORY, [orgId, sku]);
  if (!r) throw AppError.notFound('Product');
  const onHand = r.locations.reduce((n, l) => n + l.onHand, 0);
  const reserved = r.locations.reduce((n, l) => n + l.reserved, 0);
  return {
    sku: r.sku,
    productId: r.id,
    trackInventory: r.track_inventory,
    allowBackorder: r.allow_backorder,
    leadTimeDays: r.lead_time_days,
    quantityOnHand: r.track_inventory ? onHand : r.quantity_on_hand,
    reserved,
    available: r.track_inventory ? onHand - reserved : r.quantity_on_hand,
    locations: r.locations,
  };
}
