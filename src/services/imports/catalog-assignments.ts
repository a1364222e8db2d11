/**
 * Set-based applier for `catalog-assignments` (docs/catalogs.md, docs/imports.md): each record
 * assigns a catalog (by name) to a customer or a price tier, or removes that assignment
 * (`assigned: false`). One read of the chunk's catalogs, customers, tiers and current
 * assignments, then at most two INSERT ... ON CONFLICT DO NOTHING and two DELETE statements.
 * A record that changes nothing counts unchanged; an added assignment created, a removed one updated.
 */
import type { FieldErrors } from '../../errors.js';
import { catalogAssignmentSchema, type CatalogAssignmentInput } from '../../domain/catalogs/schemas.js';
import type { ApplyContext, ChunkOutcome, ChunkRecord } from './types.js';
import { validateRecord } from './validate-record.js';

export async function applyCatalogAssignments(ctx: ApplyContext, records: ChunkRecord[]): Promise<ChunkOutcome> {
  const { sql, orgId } = ctx;
  const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
  const ok: { rec: ChunkRecord; value: CatalogAssignmentInput }[] = [];
  for (const rec of records) {
    const v = validateRecord<CatalogAssignmentInput>(catalogAssignmentSchema, rec);
    if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
    else ok.push({ rec, value: v.value });
  }
  if (ctx.caller) {
    // Import jobs are Admin only; no synchronous endpoint hands this kind a narrower caller.
    for (const { rec } of ok) out.failures.push({ n: rec.n, kind: 'forbidden', errors: { $: ['Only Admins assign catalogs.'] } });
    return out;
  }
  const lower = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x).map((x) => x.toLowerCase()))];
  const catalogs = new Map(
    (await sql<{ id: string; name: string }>('select id, name from catalog where organization_id = $1 and lower(name) = any($2::text[])', [orgId, lower(ok.map((x) => x.value.catalog))])).map((c) => [
      c.name.toLowerCase(),
      c.id,
    ]),
  );
  const customers = new Map(
    (
      await sql<{ id: string; customer_number: string }>('select id, customer_number from customer where organization_id = $1 and customer_number = any($2::text[])', [
        orgId,
        [...new Set(ok.map((x) => x.value.customerNumber).filter((x): x is string => !!x))],
      ])
    ).map((c) => [c.customer_number, c.id]),
  );
  const tiers = new Map(
    (await sql<{ id: string; name: string }>('select id, name from price_tier where organization_id = $1 and lower(name) = any($2::text[])', [orgId, lower(ok.map((x) => x.value.priceTier))])).map((t) => [
      t.name.toLowerCase(),
      t.id,
    ]),
  );
  const current = new Set(
    (
      await sql<{ catalog_id: string; customer_id: string | null; price_tier_id: string | null }>(
        'select catalog_id, customer_id, price_tier_id from catalog_assignment where organization_id = $1 and catalog_id = any($2::uuid[])',
        [orgId, [...catalogs.values()]],
      )
    ).map((a) => (a.customer_id ? `c:${a.catalog_id}:${a.customer_id}` : `t:${a.catalog_id}:${a.price_tier_id}`)),
  );
  const add = { c: new Map<string, [string, string]>(), t: new Map<string, [string, string]>() };
  const remove = { c: new Map<string, [string, string]>(), t: new Map<string, [string, string]>() };
  for (const { rec, value } of ok) {
    const errors: FieldErrors = {};
    const catalogId = catalogs.get(value.catalog.toLowerCase());
    if (!catalogId) errors.catalog = [`No catalog named "${value.catalog}".`];
    const target = value.customerNumber ? customers.get(value.customerNumber) : tiers.get(value.priceTier!.toLowerCase());
    if (!target) errors[value.customerNumber ? 'customerNumber' : 'priceTier'] = [value.customerNumber ? 'No customer with this number in the organization.' : `No price tier named "${value.priceTier}".`];
    if (Object.keys(errors).length) {
      out.failures.push({ n: rec.n, errors });
      continue;
    }
    const side = value.customerNumber ? 'c' : 't';
    const key = `${side}:${catalogId}:${target}`;
    const pair: [string, string] = [catalogId!, target!];
    if (value.assigned === false) {
      if (!current.has(key)) out.unchanged += 1;
      else {
        out.updated += 1;
        current.delete(key);
        add[side].delete(key);
        remove[side].set(key, pair);
      }
    } else if (current.has(key)) out.unchanged += 1;
    else {
      out.created += 1;
      current.add(key);
      remove[side].delete(key);
      add[side].set(key, pair);
    }
  }
  if (!ctx.write) return out;
  for (const [side, column, index] of [
    ['c', 'customer_id', '(organization_id, customer_id, catalog_id) where customer_id is not null'],
    ['t', 'price_tier_id', '(organization_id, price_tier_id, catalog_id) where price_tier_id is not null'],
  ] as const) {
    const adds = [...add[side].values()];
    if (adds.length)
      await sql(
        `insert into catalog_assignment (organization_id, id, catalog_id, ${column}, created_at)
         select $1, gen_random_uuid(), x.catalog_id, x.target, now() from unnest($2::uuid[], $3::uuid[]) x(catalog_id, target)
         on conflict ${index} do nothing`,
        [orgId, adds.map((p) => p[0]), adds.map((p) => p[1])],
      );
    const removes = [...remove[side].values()];
    if (removes.length)
      await sql(
        `delete from catalog_assignment a using unnest($2::uuid[], $3::uuid[]) x(catalog_id, target)
          where a.organization_id = $1 and a.catalog_id = x.catalog_id and a.${column} = x.target`,
        [orgId, removes.map((p) => p[0]), removes.map((p) => p[1])],
      );
  }
  return out;
}
