/**
 * The one product upsert and price replacement, set-based: used by PUT /api/products (one
 * record), PUT /api/products/prices, and the `products` / `prices` import appliers (a chunk).
 * One call = one read of the stored rows, the merge and compare in memory (omitted fields keep
 * their values, given prices replace the product's prices), then at most one multi-row INSERT,
 * one UPDATE ... FROM jsonb_to_recordset ... WHERE row IS DISTINCT FROM, one DELETE and one
 * INSERT of prices. A record equal to what is stored counts unchanged and writes nothing (unless
 * `touch`: the single-record endpoint moves updatedAt on every write, as it always has).
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { FieldErrors } from '../../errors.js';
import { checkPrices, type PriceRow } from '../../domain/products/prices.js';
import type { PriceUpdateInput, ProductInput } from '../../domain/products/schemas.js';
import type { Sql } from '../../db/sql.js';
import { stableJson } from '../../domain/json.js';
import { quantityRuleErrors } from '../../domain/pricing/quantity-rules.js';
import { adjustToTargets } from '../stock/inventory.js';

export interface CatalogWrite {
  sql: Sql;
  orgId: string;
  /** false: check only (import validate mode): nothing is written. */
  write: boolean;
}

export type Outcome = 'created' | 'updated' | 'unchanged';
/** Per input, in input order: what happened to it (and the product's id), or why it was refused. */
export type UpsertResult = { outcome: Outcome; id: string } | { errors: FieldErrors };

/** A product's own columns as PostgreSQL returns them (read by products.ts, written here). */
export interface ProductColumns {
  id: string;
  sku: string;
  name: string;
  description: string | null;
  quantity_on_hand: number;
  minimum_order_quantity: number;
  maximum_order_quantity: number | null;
  quantity_increment: number;
  weight: string | null;
  weight_unit: string | null;
  dimensions: string | null;
  dimensions_unit: string | null;
  upc: string | null;
  active: boolean;
  product_attributes: Record<string, unknown> | null;
  external_id: string | null;
  track_inventory: boolean;
  allow_backorder: boolean;
  lead_time_days: number | null;
}

interface ProductRow extends ProductColumns {
  category_id: string | null;
}

const COLUMNS: { name: keyof ProductRow; type: string }[] = [
  { name: 'id', type: 'uuid' },
  { name: 'sku', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'description', type: 'text' },
  { name: 'category_id', type: 'uuid' },
  { name: 'quantity_on_hand', type: 'int' },
  { name: 'minimum_order_quantity', type: 'int' },
  { name: 'quantity_increment', type: 'int' },
  { name: 'maximum_order_quantity', type: 'int' },
  { name: 'weight', type: 'numeric' },
  { name: 'weight_unit', type: 'text' },
  { name: 'dimensions', type: 'text' },
  { name: 'dimensions_unit', type: 'text' },
  { name: 'upc', type: 'text' },
  { name: 'active', type: 'boolean' },
  { name: 'product_attributes', type: 'jsonb' },
  { name: 'external_id', type: 'text' },
  { name: 'track_inventory', type: 'boolean' },
  { name: 'allow_backorder', type: 'boolean' },
  { name: 'lead_time_days', type: 'int' },
];
const recordset = `jsonb_to_recordset($2::jsonb) as r(${COLUMNS.map((c) => `${c.name} ${c.type}`).join(', ')})`;
const DATA_COLS = COLUMNS.filter((c) => c.name !== 'id').map((c) => c.name);

const dec4 = (v: string | number | null | undefined) => (v === null || v === undefined ? null : new Decimal(v).toFixed(4));
const samePrices = (a: PriceRow[], b: PriceRow[]) => {
  const norm = (xs: PriceRow[]) =>
    xs
      .map((x) => `${x.tier}@${x.atQuantity}=${dec4(x.price)}`)
      .sort()
      .join('|');
  return norm(a) === norm(b);
};
const sameRow = (a: ProductRow, b: ProductRow) =>
  DATA_COLS.every((c) => (c === 'product_attributes' ? stableJson(a[c]) === stableJson(b[c]) : c === 'weight' ? dec4(a.weight) === dec4(b.weight) : a[c] === b[c]));

interface State {
  orgId: string;
  bySku: Map<string, ProductRow>;
  byExternalId: Map<string, ProductRow>;
  prices: Map<string, PriceRow[]>;
  tiers: { name: string }[];
  categories: Map<string, string>;
  /** lower(name) -> placeholder id and the name as first written. */
  newCategories: Map<string, { id: string; name: string }>;
  created: Set<string>;
  changed: Set<string>;
  pricesChanged: Set<string>;
  /** Unchanged products whose updatedAt still moves (touch). */
  touched: Set<string>;
  /** Tracked products: the sum of their levels as read. */
  levelSums: Map<string, number>;
  /** Tracked products whose quantityOnHand is to become `target`: an adjustment at the default location. */
  onHandTargets: Map<string, { sku: string; target: number; levels: number }>;
}

async function loadState(ctx: CatalogWrite, skus: string[], externalIds: string[], categoryNames: string[]): Promise<State> {
  const { sql, orgId } = ctx;
  const rows = await sql<ProductRow & { stock_on_hand: number }>(
    `select id, sku, name, description, category_id, quantity_on_hand, minimum_order_quantity, maximum_order_quantity, quantity_increment, weight::text as weight,
            weight_unit, dimensions, dimensions_unit, upc, active, product_attributes, external_id,
            track_inventory, allow_backorder, lead_time_days,
            (select coalesce(sum(l.on_hand), 0)::int from stock_level l where l.organization_id = product.organization_id and l.product_id = product.id) as stock_on_hand
       from product where organization_id = $1 and (sku = any($2::text[]) or external_id = any($3::text[]))`,
    [orgId, skus, externalIds],
  );
  const priceRows = rows.length
    ? await sql<{ product_id: string; tier: string; price: string; at_quantity: number }>(
        'select product_id, tier, price::text as price, at_quantity from product_price where organization_id = $1 and product_id = any($2::uuid[])',
        [orgId, rows.map((r) => r.id)],
      )
    : [];
  const tiers = await sql<{ name: string }>('select name from price_tier where organization_id = $1', [orgId]);
  const cats = categoryNames.length
    ? await sql<{ id: string; name: string }>('select id, name from category where organization_id = $1 and lower(name) = any($2::text[])', [orgId, categoryNames.map((n) => n.toLowerCase())])
    : [];
  const prices = new Map<string, PriceRow[]>(rows.map((r) => [r.id, []]));
  for (const p of priceRows) prices.get(p.product_id)?.push({ tier: p.tier, price: p.price, atQuantity: p.at_quantity });
  return {
    orgId,
    bySku: new Map(rows.map(({ stock_on_hand: _levels, ...r }) => [r.sku, r])),
    byExternalId: new Map(rows.filter((r) => r.external_id).map(({ stock_on_hand: _levels, ...r }) => [r.external_id!, r])),
    prices,
    tiers,
    categories: new Map(cats.map((c) => [c.name.toLowerCase(), c.id])),
    newCategories: new Map(),
    created: new Set(),
    changed: new Set(),
    pricesChanged: new Set(),
    touched: new Set(),
    levelSums: new Map(rows.map((r) => [r.id, r.stock_on_hand])),
    onHandTargets: new Map(),
  };
}

function categoryId(st: State, name: string): string {
  const key = name.toLowerCase();
  const known = st.categories.get(key) ?? st.newCategories.get(key)?.id;
  if (known) return known;
  const id = randomUUID();
  st.newCategories.set(key, { id, name: name.trim() });
  return id;
}

/** Merges one validated product upsert into the in-memory state; field errors or the outcome. */
function mergeProduct(st: State, body: ProductInput, touch: boolean): FieldErrors | Outcome {
  const errors: FieldErrors = {};
  const checked = body.prices ? checkPrices(body.prices, st.tiers, 'prices') : null;
  if (checked) Object.assign(errors, checked.errors);
  let existing = st.bySku.get(body.sku) ?? null;
  if (!existing && body.externalId) existing = st.byExternalId.get(body.externalId) ?? null;
  if (!existing && !body.name) errors.name = ['name is required when creating a product.'];
  if (body.externalId) {
    const other = st.byExternalId.get(body.externalId);
    if (other && existing && other.id !== existing.id) errors.externalId = ['Another product already has this externalId.'];
  }
  if (existing && existing.sku !== body.sku && st.bySku.get(body.sku)) errors.sku = ['Another product already has this sku.'];
  if (Object.keys(errors).length) return errors;

  const base: ProductRow = existing ?? {
    id: randomUUID(),
    sku: body.sku,
    name: body.name!,
    description: null,
    category_id: null,
    quantity_on_hand: 0,
    minimum_order_quantity: 1,
    maximum_order_quantity: null,
    quantity_increment: 1,
    weight: null,
    weight_unit: null,
    dimensions: null,
    dimensions_unit: null,
    upc: null,
    active: true,
    product_attributes: null,
    external_id: null,
    track_inventory: false,
    allow_backorder: false,
    lead_time_days: null,
  };
  const next: ProductRow = { ...base, sku: body.sku };
  const set = <K extends keyof ProductRow>(k: K, v: ProductRow[K] | undefined) => {
    if (v !== undefined) next[k] = v;
  };
  set('name', body.name);
  set('description', body.description);
  if (body.category !== undefined) next.category_id = body.category ? categoryId(st, body.category) : null;
  set('quantity_on_hand', body.quantityOnHand);
  set('minimum_order_quantity', body.minimumOrderQuantity);
  set('quantity_increment', body.quantityIncrement);
  if (body.maximumOrderQuantity !== undefined) next.maximum_order_quantity = body.maximumOrderQuantity ?? null;
  const ruleErrors = quantityRuleErrors({ minimumOrderQuantity: next.minimum_order_quantity, maximumOrderQuantity: next.maximum_order_quantity });
  if (Object.keys(ruleErrors).length) return ruleErrors;
  if (body.weight !== undefined) next.weight = body.weight === null ? null : dec4(body.weight);
  set('weight_unit', body.weightUnit);
  set('dimensions', body.dimensions);
  set('dimensions_unit', body.dimensionsUnit);
  set('upc', body.upc);
  set('active', body.active);
  if (body.productAttributes !== undefined) next.product_attributes = body.productAttributes ?? null;
  set('external_id', body.externalId);
  set('track_inventory', body.trackInventory);
  set('allow_backorder', body.allowBackorder);
  if (body.leadTimeDays !== undefined) next.lead_time_days = body.leadTimeDays ?? null;
  // A tracked product's quantityOnHand is the sum of its levels: a write (or the value it had when tracking starts) becomes an
  // adjustment at the default location after the rows are written (docs/fulfillment.md "Stock"); the column keeps the levels' sum.
  if (next.track_inventory) {
    const levels = existing ? (st.levelSums.get(existing.id) ?? 0) : 0;
    const target = body.quantityOnHand ?? (existing?.track_inventory ? null : base.quantity_on_hand);
    next.quantity_on_hand = levels;
    if (target !== null && target !== levels) st.onHandTargets.set(next.id, { sku: next.sku, target, levels });
    else st.onHandTargets.delete(next.id);
  }

  const rowChanged = !existing || !sameRow(existing, next);
  const pricesChanged = !!checked && !samePrices(st.prices.get(next.id) ?? [], checked.rows);
  if (existing && !rowChanged && !pricesChanged) {
    if (!touch) return 'unchanged';
    st.touched.add(existing.id);
    return 'updated';
  }
  if (existing) {
    if (existing.sku !== next.sku) st.bySku.delete(existing.sku);
    if (existing.external_id && existing.external_id !== next.external_id) st.byExternalId.delete(existing.external_id);
  }
  st.bySku.set(next.sku, next);
  if (next.external_id) st.byExternalId.set(next.external_id, next);
  if (!existing) st.created.add(next.id);
  else if (rowChanged) st.changed.add(next.id);
  if (checked && (pricesChanged || !existing)) {
    st.prices.set(next.id, checked.rows);
    st.pricesChanged.add(next.id);
  }
  return existing ? 'updated' : 'created';
}

function mergePrices(st: State, body: PriceUpdateInput): FieldErrors | Outcome {
  const checked = checkPrices(body.prices, st.tiers, 'prices');
  if (Object.keys(checked.errors).length) return checked.errors;
  const existing = st.bySku.get(body.sku);
  if (!existing) return { sku: ['Product not found.'] };
  if (samePrices(st.prices.get(existing.id) ?? [], checked.rows)) return 'unchanged';
  st.prices.set(existing.id, checked.rows);
  st.pricesChanged.add(existing.id);
  return 'updated';
}

async function write(ctx: CatalogWrite, st: State): Promise<void> {
  const { sql, orgId } = ctx;
  if (st.newCategories.size) {
    const names = [...st.newCategories.values()].map((c) => c.name);
    await sql(
      `insert into category (id, organization_id, name, parent_id, active, image_url, created_at, updated_at)
       select gen_random_uuid(), $1, n, null, true, null, now(), now() from unnest($2::text[]) n
       on conflict (organization_id, lower(name)) do nothing`,
      [orgId, names],
    );
    // Category ids chosen in memory are placeholders; map them to the stored ids.
    const stored = await sql<{ id: string; name: string }>('select id, name from category where organization_id = $1 and lower(name) = any($2::text[])', [
      orgId,
      [...st.newCategories.keys()],
    ]);
    const idOf = new Map(stored.map((c) => [c.name.toLowerCase(), c.id]));
    const remap = new Map([...st.newCategories].map(([key, c]) => [c.id, idOf.get(key)!]));
    for (const row of st.bySku.values()) if (row.category_id && remap.has(row.category_id)) row.category_id = remap.get(row.category_id)!;
  }
  const rows = [...st.bySku.values()];
  const creates = rows.filter((r) => st.created.has(r.id));
  const updates = rows.filter((r) => st.changed.has(r.id));
  const cols = COLUMNS.map((c) => c.name).join(', ');
  if (creates.length)
    await sql(
      `insert into product (${cols}, organization_id, created_at, updated_at)
       select ${COLUMNS.map((c) => `r.${c.name}`).join(', ')}, $1, now(), now() from ${recordset}`,
      [orgId, JSON.stringify(creates)],
    );
  if (updates.length)
    await sql(
      `update product p set ${DATA_COLS.map((c) => (c === 'quantity_on_hand' ? `${c} = case when p.track_inventory and r.track_inventory then p.${c} else r.${c} end` : `${c} = r.${c}`)).join(', ')}, updated_at = now()
         from ${recordset}
        where p.organization_id = $1 and p.id = r.id
          and (${DATA_COLS.map((c) => `p.${c}`).join(', ')}) is distinct from (${DATA_COLS.map((c) => `r.${c}`).join(', ')})`,
      [orgId, JSON.stringify(updates)],
    );
  const touched = new Set(st.touched);
  if (st.pricesChanged.size) {
    const ids = [...st.pricesChanged];
    const existingIds = ids.filter((id) => !st.created.has(id));
    if (existingIds.length) await sql('delete from product_price where organization_id = $1 and product_id = any($2::uuid[])', [orgId, existingIds]);
    for (const id of existingIds) if (!st.changed.has(id)) touched.add(id);
    const priceRows = ids.flatMap((id) => (st.prices.get(id) ?? []).map((p) => ({ product_id: id, tier: p.tier, price: p.price, at_quantity: p.atQuantity })));
    if (priceRows.length)
      await sql(
        `insert into product_price (id, organization_id, product_id, tier, price, at_quantity)
         select gen_random_uuid(), $1, r.product_id, r.tier, r.price, r.at_quantity
           from jsonb_to_recordset($2::jsonb) as r(product_id uuid, tier text, price numeric, at_quantity int)`,
        [orgId, JSON.stringify(priceRows)],
      );
  }
  if (touched.size) await sql('update product set updated_at = now() where organization_id = $1 and id = any($2::uuid[])', [orgId, [...touched]]);
  if (st.onHandTargets.size) await adjustToTargets(sql, orgId, [...st.onHandTargets].map(([productId, t]) => ({ productId, ...t })));
}

/** Upserts validated products by sku (externalId also matches); prices, when given, replace the product's. */
export async function upsertProducts(ctx: CatalogWrite, inputs: readonly ProductInput[], opts: { touch?: boolean } = {}): Promise<UpsertResult[]> {
  const ext = inputs.map((x) => x.externalId).filter((x): x is string => !!x);
  const cats = [...new Set(inputs.map((x) => x.category).filter((x): x is string => !!x))];
  const st = await loadState(
    ctx,
    inputs.map((x) => x.sku),
    ext,
    cats,
  );
  const results = inputs.map((body) => resultOf(st, mergeProduct(st, body, !!opts.touch), body.sku));
  if (ctx.write) await write(ctx, st);
  return results;
}

/** Replaces the prices of existing products by sku (validated entries). */
export async function replaceProductPrices(ctx: CatalogWrite, inputs: readonly PriceUpdateInput[]): Promise<UpsertResult[]> {
  const st = await loadState(
    ctx,
    inputs.map((x) => x.sku),
    [],
    [],
  );
  const results = inputs.map((body) => resultOf(st, mergePrices(st, body), body.sku));
  if (ctx.write) await write(ctx, st);
  return results;
}

function resultOf(st: State, r: FieldErrors | Outcome, sku: string): UpsertResult {
  return typeof r === 'string' ? { outcome: r, id: st.bySku.get(sku)!.id } : { errors: r };
}
