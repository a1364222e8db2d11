/**
 * Price lists (`/api/price-lists`, Admin writes, reps read; docs/pricing.md): the list, its entries
 * per SKU with quantity breaks, its assignments to customers and price tiers. Which list prices a
 * line is the resolver's (./resolve.ts), which reads validity at the instant it prices (exact at
 * the boundaries, no job). A change of status or validity bumps the list's `version`; creating a
 * list or changing its schedule announces what it causes (./schedule.ts) in the same transaction and
 * starts the timer of the new version when a boundary is ahead.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { entryErrors, validityErrors, type EntryInput, type PriceListStatus } from '../../domain/pricing/price-lists.js';
import { formatMoney, moneyNumber } from '../../domain/money.js';
import { UUID_RE } from '../../domain/schemas.js';
import { Customer, PriceList, PriceListAssignment, PriceListPrice, PriceTier } from '../../entities/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import { dataEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { boundRows } from '../../db/orm-sql.js';
import { dollarParams } from '../../db/sql.js';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { expireOnDelete, rescheduleTimer, standDownTimer, syncSchedule } from './schedule.js';

/** What a change of a list's schedule needs besides the database: the Temporal client that starts its timer. */
export interface ScheduleDeps {
  temporal: Client;
  config: Config;
}

export interface PriceListInput {
  name: string;
  currencyCode: string;
  validFrom?: string | null;
  validTo?: string | null;
  priority?: number | null;
  status?: PriceListStatus | null;
}

export interface PriceListView {
  priceListId: string;
  name: string;
  currencyCode: string;
  validFrom: string | null;
  validTo: string | null;
  priority: number;
  status: string;
  customerNumbers: string[];
  priceTiers: string[];
  entryCount: number;
  createdAt: string;
  updatedAt: string;
}

export const priceListListSpec: ListSpec = {
  filters: {
    name: { prop: 'name', type: 'string' },
    status: { prop: 'status', type: 'string' },
    currencyCode: { prop: 'currencyCode', type: 'string' },
  },
  sorts: { Name: 'name', Priority: 'priority', ValidFrom: 'validFrom', CreatedAt: 'createdAt' },
  defaultSort: 'Name',
};

/** The assignments and entry counts of lists, by list id (one statement). */
async function detailsOf(em: EntityManager, orgId: string, ids: string[]) {
  const rows = await boundRows<{ id: string; customerNumbers: string[]; priceTiers: string[]; entryCount: number }>(
    em,
    `select l.id,
            coalesce((select array_agg(c.customer_number order by c.customer_number) from price_list_assignment a
                        join customer c on c.organization_id = a.organization_id and c.id = a.customer_id
                       where a.organization_id = l.organization_id and a.price_list_id = l.id), '{}') as "customerNumbers",
            coalesce((select array_agg(t.name order by t.name) from price_list_assignment a
                        join price_tier t on t.organization_id = a.organization_id and t.id = a.price_tier_id
                       where a.organization_id = l.organization_id and a.price_list_id = l.id), '{}') as "priceTiers",
            (select count(distinct e.sku)::int from price_list_price e where e.organization_id = l.organization_id and e.price_list_id = l.id) as "entryCount"
       from price_list l where l.organization_id = $1 and l.id = any($2::uuid[])`,
    [orgId, ids],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

function view(l: PriceList, d: { customerNumbers: string[]; priceTiers: string[]; entryCount: number } | undefined): PriceListView {
  return {
    priceListId: l.id,
    name: l.name,
    currencyCode: l.currencyCode,
    validFrom: l.validFrom ? l.validFrom.toISOString() : null,
    validTo: l.validTo ? l.validTo.toISOString() : null,
    priority: l.priority,
    status: l.status,
    customerNumbers: d?.customerNumbers ?? [],
    priceTiers: d?.priceTiers ?? [],
    entryCount: d?.entryCount ?? 0,
    createdAt: l.createdAt.toISOString(),
    updatedAt: l.updatedAt.toISOString(),
  };
}

async function viewOf(em: EntityManager, l: PriceList): Promise<PriceListView> {
  return view(l, (await detailsOf(em, l.organizationId, [l.id])).get(l.id));
}

/** GET /api/price-lists: paged, sorted and filtered like other lists. */
export async function listPriceLists(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, priceListListSpec);
  const [rows, total] = await em.findAndCount(PriceList, { $and: [{ organizationId: orgId }, q.where] }, { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset });
  const details = await detailsOf(em, orgId, rows.map((r) => r.id));
  return dataEnvelope(rows.map((r) => view(r, details.get(r.id))), total, q);
}

/** The organization's list with this id; 404 otherwise (another organization's id included). */
export async function findPriceList(em: EntityManager, orgId: string, id: string): Promise<PriceList> {
  const l = UUID_RE.test(id) ? await em.findOne(PriceList, { organizationId: orgId, id }) : null;
  if (!l) throw AppError.notFound('Price list');
  return l;
}

export const readPriceList = async (em: EntityManager, orgId: string, id: string) => viewOf(em, await findPriceList(em, orgId, id));

const instant = (s: string | null | undefined): Date | null => (s ? new Date(s) : null);

function header(input: PriceListInput): Pick<PriceList, 'name' | 'currencyCode' | 'validFrom' | 'validTo' | 'priority' | 'status'> {
  const h = {
    name: input.name,
    currencyCode: input.currencyCode,
    validFrom: instant(input.validFrom),
    validTo: instant(input.validTo),
    priority: input.priority ?? 100,
    status: input.status ?? 'Draft',
  };
  const errors = validityErrors(h);
  if (Object.keys(errors).length) throw AppError.validation(errors, 'The price list is not valid.');
  return h;
}

/** POST /api/price-lists. */
export async function createPriceList(em: EntityManager, deps: ScheduleDeps, orgId: string, input: PriceListInput): Promise<PriceListView> {
  const now = new Date();
  const h = header(input);
  const { l, schedule } = await em.transactional(async (tx) => {
    const l = tx.create(PriceList, { organizationId: orgId, id: randomUUID(), ...h, version: 1, activeSince: h.status === 'Active' ? now : null, activatedAt: null, createdAt: now, updatedAt: now });
    await tx.flush();
    return { l, schedule: await syncSchedule(tx, orgId, l.id, { now }) };
  });
  await rescheduleTimer(deps, orgId, l.id, l.version, schedule?.next ?? null);
  return viewOf(em, l);
}

/** PUT /api/price-lists/{id}: every header field (absent optional ones take their defaults). */
export async function updatePriceList(em: EntityManager, deps: ScheduleDeps, orgId: string, id: string, input: PriceListInput): Promise<PriceListView> {
  const l = await findPriceList(em, orgId, id);
  const h = header(input);
  const scheduleChanged =
    h.status !== l.status || h.validFrom?.getTime() !== l.validFrom?.getTime() || h.validTo?.getTime() !== l.validTo?.getTime();
  const now = new Date();
  const schedule = await em.transactional(async (tx) => {
    if (h.status !== l.status) l.activeSince = h.status === 'Active' ? now : null;
    Object.assign(l, h, { updatedAt: now });
    if (scheduleChanged) l.version += 1;
    await tx.flush();
    return scheduleChanged ? syncSchedule(tx, orgId, l.id, { now }) : null;
  });
  if (schedule) await rescheduleTimer(deps, orgId, l.id, schedule.version, schedule.next);
  return viewOf(em, l);
}

/** DELETE /api/price-lists/{id}: the list, its entries and assignments (carts keep the prices they have); a list in force ends with `price_list.expired`. */
export async function deletePriceList(em: EntityManager, deps: ScheduleDeps, orgId: string, id: string): Promise<void> {
  const l = await findPriceList(em, orgId, id);
  await em.transactional(async (tem) => {
    await expireOnDelete(tem, orgId, l.id);
    await tem.nativeDelete(PriceListPrice, { organizationId: orgId, priceListId: l.id });
    await tem.nativeDelete(PriceListAssignment, { organizationId: orgId, priceListId: l.id });
    await tem.nativeDelete(PriceList, { organizationId: orgId, id: l.id });
  });
  await standDownTimer(deps, l.id, l.version);
}

// ---------------------------------------------------------------------------------------------
// Assignments

/** PUT /api/price-lists/{id}/assignments: the customers and price tiers the list applies to (replaced). 400 names each unknown one. */
export async function setAssignments(em: EntityManager, orgId: string, id: string, body: { customerNumbers?: string[]; priceTiers?: string[] }): Promise<PriceListView> {
  const l = await findPriceList(em, orgId, id);
  const numbers = body.customerNumbers ?? [];
  const tierNames = body.priceTiers ?? [];
  const customers = numbers.length ? await em.find(Customer, { organization: orgId, customerNumber: { $in: numbers } }, { fields: ['id', 'customerNumber'] }) : [];
  const tiers = tierNames.length ? await em.find(PriceTier, { organization: orgId }) : [];
  const errors: FieldErrors = {};
  const customerIds = new Set<string>();
  numbers.forEach((n, i) => {
    const c = customers.find((x) => x.customerNumber === n);
    if (!c) errors[`customerNumbers[${i}]`] = [`No customer with number "${n}" exists.`];
    else customerIds.add(c.id);
  });
  const tierIds = new Set<string>();
  tierNames.forEach((n, i) => {
    const t = tiers.find((x) => x.name.toLowerCase() === n.toLowerCase());
    if (!t) errors[`priceTiers[${i}]`] = [`"${n}" is not a price tier of the organization.`];
    else tierIds.add(t.id);
  });
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const now = new Date();
  await em.transactional(async (tem) => {
    await tem.nativeDelete(PriceListAssignment, { organizationId: orgId, priceListId: l.id });
    for (const customerId of customerIds) tem.create(PriceListAssignment, { organizationId: orgId, id: randomUUID(), priceListId: l.id, customerId, priceTierId: null, createdAt: now });
    for (const priceTierId of tierIds) tem.create(PriceListAssignment, { organizationId: orgId, id: randomUUID(), priceListId: l.id, customerId: null, priceTierId, createdAt: now });
    l.updatedAt = now;
    await tem.flush();
  });
  return viewOf(em, l);
}

// ---------------------------------------------------------------------------------------------
// Entries

export interface EntryView {
  sku: string;
  prices: { price: number; priceFormatted: string; atQuantity: number }[];
  minimumOrderQuantity: number | null;
  maximumOrderQuantity: number | null;
  quantityIncrement: number | null;
}

export const entryListSpec: ListSpec = {
  filters: { sku: { prop: 'sku', type: 'string' } },
  sorts: { Sku: 'sku' },
  defaultSort: 'Sku',
  defaultPageSize: 50,
};

/** GET /api/price-lists/{id}/entries: one row per SKU with its breaks, paged by SKU, filtered on sku. */
export async function listEntries(em: EntityManager, orgId: string, id: string, query: Record<string, unknown>) {
  const l = await findPriceList(em, orgId, id);
  const q = parseList(query, entryListSpec);
  const where = { $and: [{ organizationId: orgId, priceListId: l.id }, q.where] };
  const page = await em
    .createQueryBuilder(PriceListPrice, 'e')
    .select('e.sku')
    .distinct()
    .where(where)
    .orderBy([q.orderBy])
    .limit(q.pageSize)
    .offset(q.offset)
    .execute<{ sku: string }[]>();
  const all = em.createQueryBuilder(PriceListPrice, 'e').select('e.sku').distinct().where(where).toQuery();
  const [{ total }] = await boundRows<{ total: number }>(em, `select count(*)::int as total from (${dollarParams(all.sql)}) x`, all.params);
  const skus = page.map((r) => r.sku);
  const rows = skus.length ? await em.find(PriceListPrice, { organizationId: orgId, priceListId: l.id, sku: { $in: skus } }, { orderBy: { sku: 'asc', atQuantity: 'asc' } }) : [];
  const data: EntryView[] = skus.map((sku) => {
    const breaks = rows.filter((r) => r.sku === sku);
    return {
      sku,
      prices: breaks.map((r) => ({ price: moneyNumber(r.price, l.currencyCode), priceFormatted: formatMoney(r.price, l.currencyCode), atQuantity: r.atQuantity })),
      // The same on every break of the SKU (written together).
      minimumOrderQuantity: breaks[0]?.minimumOrderQuantity ?? null,
      maximumOrderQuantity: breaks[0]?.maximumOrderQuantity ?? null,
      quantityIncrement: breaks[0]?.quantityIncrement ?? null,
    };
  });
  if (q.orderBy.sku === 'desc') data.sort((a, b) => b.sku.localeCompare(a.sku));
  return dataEnvelope(data, total, q);
}

/** One row per quantity break, each carrying the entry's rule overrides (null: the product's). */
export function entryRows(entries: readonly EntryInput[]) {
  return entries.flatMap((e) =>
    e.prices.map((p) => ({
      sku: e.sku,
      at_quantity: p.atQuantity ?? 1,
      price: new Decimal(p.price).toFixed(),
      minimum_order_quantity: e.minimumOrderQuantity ?? null,
      maximum_order_quantity: e.maximumOrderQuantity ?? null,
      quantity_increment: e.quantityIncrement ?? null,
    })),
  );
}

/** $1 organization, $2 list id, $3 a JSON array of entryRows. */
export const INSERT_ENTRY_ROWS = `insert into price_list_price (organization_id, price_list_id, sku, at_quantity, price, minimum_order_quantity, maximum_order_quantity, quantity_increment)
  select $1, $2, r.sku, r.at_quantity, r.price, r.minimum_order_quantity, r.maximum_order_quantity, r.quantity_increment
    from jsonb_to_recordset($3::jsonb) as r(sku text, at_quantity int, price numeric, minimum_order_quantity int, maximum_order_quantity int, quantity_increment int)`;

/**
 * PUT /api/price-lists/{id}/entries: each given SKU's breaks are replaced (others stay); every SKU
 * must be a product of the catalog. Set-based: one statement checks the SKUs, one deletes, one inserts.
 */
export async function upsertEntries(em: EntityManager, orgId: string, id: string, entries: EntryInput[]): Promise<{ updated: number }> {
  const l = await findPriceList(em, orgId, id);
  const errors = entryErrors(entries);
  const skus = entries.map((e) => e.sku);
  const known = new Set(
    (await boundRows<{ sku: string }>(em, 'select p.sku from product p where p.organization_id = $1 and p.sku = any($2::text[])', [orgId, skus])).map((r) => r.sku),
  );
  entries.forEach((e, i) => {
    if (!known.has(e.sku)) (errors[`entries[${i}].sku`] ??= []).push(`No product with sku "${e.sku}" exists in the catalog.`);
  });
  if (Object.keys(errors).length) throw AppError.validation(errors, 'The price list entries are not valid.');
  const rows = entryRows(entries);
  await em.transactional(async (tem) => {
    await boundRows(tem, 'delete from price_list_price where organization_id = $1 and price_list_id = $2 and sku = any($3::text[])', [orgId, l.id, skus]);
    await boundRows(tem, INSERT_ENTRY_ROWS, [orgId, l.id, JSON.stringify(rows)]);
    await boundRows(tem, 'update price_list set updated_at = $3 where organization_id = $1 and id = $2', [orgId, l.id, new Date()]);
  });
  return { updated: entries.length };
}

/** DELETE /api/price-lists/{id}/entries/{sku}: 404 when the list has no entry for the SKU. */
export async function deleteEntry(em: EntityManager, orgId: string, id: string, sku: string): Promise<void> {
  const l = await findPriceList(em, orgId, id);
  const n = await em.nativeDelete(PriceListPrice, { organizationId: orgId, priceListId: l.id, sku });
  if (!n) throw AppError.notFound('Price list entry');
}
