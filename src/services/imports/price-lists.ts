/**
 * Set-based applier for `price-lists` (docs/pricing.md, docs/imports.md): each record sets one
 * quantity break (`atQuantity`, default 1) of a SKU on a price list named by id or name, and, when
 * it gives them, the entry's quantity rule overrides (every break of the SKU on that list carries
 * them). One read of the chunk's lists, products and current breaks, then one INSERT ... ON
 * CONFLICT DO UPDATE for the breaks and one UPDATE for the overrides, whatever the chunk's size.
 * A new break counts created, a changed price or override updated, a record that changes nothing
 * unchanged (so a retry or a re-import is idempotent).
 */
import { Decimal } from 'decimal.js';
import type { FieldErrors } from '../../errors.js';
import { priceListBreakSchema, type PriceListBreakInput } from '../../domain/pricing/price-lists.js';
import { quantityRuleErrors } from '../../domain/pricing/quantity-rules.js';
import { validatePriceEntries } from '../../domain/pricing/price-breaks.js';
import { UUID_RE } from '../../domain/schemas.js';
import type { ApplyContext, ChunkOutcome, ChunkRecord } from './types.js';
import { validateRecord } from './validate-record.js';

type Rules = { minimumOrderQuantity: number | null; maximumOrderQuantity: number | null; quantityIncrement: number | null };
const RULES = ['minimumOrderQuantity', 'maximumOrderQuantity', 'quantityIncrement'] as const;

export async function applyPriceListBreaks(ctx: ApplyContext, records: ChunkRecord[]): Promise<ChunkOutcome> {
  const { sql, orgId } = ctx;
  const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
  const ok: { rec: ChunkRecord; value: PriceListBreakInput }[] = [];
  for (const rec of records) {
    const v = validateRecord<PriceListBreakInput>(priceListBreakSchema, rec);
    if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
    else ok.push({ rec, value: v.value });
  }
  if (ctx.caller) {
    for (const { rec } of ok) out.failures.push({ n: rec.n, kind: 'forbidden', errors: { $: ['Only Admins write price lists.'] } });
    return out;
  }
  const refs = [...new Set(ok.map((x) => x.value.priceList))];
  const lists = await sql<{ id: string; name: string }>(
    'select id, name from price_list where organization_id = $1 and (id = any($2::uuid[]) or lower(name) = any($3::text[]))',
    [orgId, refs.filter((r) => UUID_RE.test(r)), refs.map((r) => r.toLowerCase())],
  );
  const byId = new Map(lists.map((l) => [l.id, l.id]));
  const byName = new Map<string, string[]>();
  for (const l of lists) byName.set(l.name.toLowerCase(), [...(byName.get(l.name.toLowerCase()) ?? []), l.id]);
  const skus = new Set(
    (await sql<{ sku: string }>('select sku from product where organization_id = $1 and sku = any($2::text[])', [orgId, [...new Set(ok.map((x) => x.value.sku))]])).map((r) => r.sku),
  );
  // The current breaks of the chunk's (list, sku) entries.
  const current = await sql<{ price_list_id: string; sku: string; at_quantity: number; price: string } & { min: number | null; max: number | null; inc: number | null }>(
    `select e.price_list_id, e.sku, e.at_quantity, e.price::text as price, e.minimum_order_quantity as min, e.maximum_order_quantity as max, e.quantity_increment as inc
       from price_list_price e where e.organization_id = $1 and e.price_list_id = any($2::uuid[]) and e.sku = any($3::text[])`,
    [orgId, lists.map((l) => l.id), [...skus]],
  );
  const entryKey = (listId: string, sku: string) => `${listId}\u0000${sku}`;
  const breaks = new Map(current.map((c) => [`${entryKey(c.price_list_id, c.sku)}\u0000${c.at_quantity}`, new Decimal(c.price)]));
  const rules = new Map<string, Rules>(current.map((c) => [entryKey(c.price_list_id, c.sku), { minimumOrderQuantity: c.min, maximumOrderQuantity: c.max, quantityIncrement: c.inc }]));
  const upserts = new Map<string, { price_list_id: string; sku: string; at_quantity: number; price: string }>();
  const ruleWrites = new Map<string, { price_list_id: string; sku: string } & Rules>();

  for (const { rec, value } of ok) {
    const errors: FieldErrors = {};
    const matches = UUID_RE.test(value.priceList) && byId.has(value.priceList) ? [value.priceList] : (byName.get(value.priceList.toLowerCase()) ?? []);
    if (!matches.length) errors.priceList = [`No price list with id or name "${value.priceList}".`];
    else if (matches.length > 1) errors.priceList = [`Several price lists are named "${value.priceList}"; give the list's id.`];
    if (!skus.has(value.sku)) errors.sku = [`No product with sku "${value.sku}" exists in the catalog.`];
    // The amount checks of any price (at least 0, at most 4 decimal places), reported on `price`.
    for (const [k, messages] of Object.entries(validatePriceEntries([{ tier: value.sku, price: String(value.price), atQuantity: value.atQuantity }], 'x')))
      errors[k.replace(/^x\[0\]\./, '')] = messages;
    const given = RULES.filter((k) => value[k] !== undefined);
    const key = matches.length === 1 ? entryKey(matches[0], value.sku) : '';
    const before = rules.get(key) ?? { minimumOrderQuantity: null, maximumOrderQuantity: null, quantityIncrement: null };
    const after: Rules = { ...before };
    for (const k of given) after[k] = value[k] ?? null;
    Object.assign(errors, quantityRuleErrors(after, { nullable: true }));
    if (Object.keys(errors).length) {
      out.failures.push({ n: rec.n, errors });
      continue;
    }
    const listId = matches[0];
    const breakKey = `${key}\u0000${value.atQuantity}`;
    const price = new Decimal(value.price);
    const old = breaks.get(breakKey);
    const rulesChanged = RULES.some((k) => after[k] !== before[k]);
    if (old && old.eq(price) && !rulesChanged) {
      out.unchanged += 1;
      continue;
    }
    if (old) out.updated += 1;
    else out.created += 1;
    breaks.set(breakKey, price);
    rules.set(key, after);
    if (!old || !old.eq(price)) upserts.set(breakKey, { price_list_id: listId, sku: value.sku, at_quantity: value.atQuantity, price: price.toFixed() });
    // The entry's overrides as they now stand go on every break of the SKU (new ones included).
    ruleWrites.set(key, { price_list_id: listId, sku: value.sku, ...after });
  }
  if (!ctx.write) return out;
  if (upserts.size)
    await sql(
      `insert into price_list_price (organization_id, price_list_id, sku, at_quantity, price)
       select $1, r.price_list_id, r.sku, r.at_quantity, r.price from jsonb_to_recordset($2::jsonb) as r(price_list_id uuid, sku text, at_quantity int, price numeric)
       on conflict (organization_id, price_list_id, sku, at_quantity) do update set price = excluded.price`,
      [orgId, JSON.stringify([...upserts.values()])],
    );
  if (ruleWrites.size)
    await sql(
      `update price_list_price e set minimum_order_quantity = r."minimumOrderQuantity", maximum_order_quantity = r."maximumOrderQuantity", quantity_increment = r."quantityIncrement"
         from jsonb_to_recordset($2::jsonb) as r(price_list_id uuid, sku text, "minimumOrderQuantity" int, "maximumOrderQuantity" int, "quantityIncrement" int)
        where e.organization_id = $1 and e.price_list_id = r.price_list_id and e.sku = r.sku`,
      [orgId, JSON.stringify([...ruleWrites.values()])],
    );
  if (upserts.size || ruleWrites.size)
    await sql('update price_list set updated_at = now() where organization_id = $1 and id = any($2::uuid[])', [orgId, [...new Set([...ruleWrites.values()].map((r) => r.price_list_id))]]);
  return out;
}
