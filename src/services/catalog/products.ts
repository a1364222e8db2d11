/**
 * Product use cases: list, search, read by sku, upsert, activate and deactivate. Every answer is
 * the caller's view (src/domain/products/view.ts: which tier and currency price it, which prices
 * and products it may see). Writes go through the one set-based upsert (./upsert.ts), which the
 * `products` import applier uses too.
 *
 * Reads: one SQL statement per read (the product with its prices and images aggregated; a list
 * page with its total), bound parameters, no entity hydration; the caller's price tiers come from
 * the process's NOTIFY-invalidated cache.
 */
import { raw } from '@mikro-orm/core';
import type { EntityManager, QBFilterQuery } from '@mikro-orm/postgresql';
import type { PriceRow } from '../../domain/products/prices.js';
import type { ProductInput } from '../../domain/products/schemas.js';
import { priceContext, productView, type PriceContext, type ProductFields, type ProductView } from '../../domain/products/view.js';
import { Product } from '../../entities/index.js';
import { UUID_RE } from '../../domain/schemas.js';
import { productSearchExpression } from '../../entities/Product.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { dataEnvelope, escapeLike, parseAfter, parseList, type ListQuery, type ListSpec } from '../../http/paging.js';
import type { Storage } from '../../adapters/storage.js';
import { batchPool } from '../../db/pools.js';
import { dollarParams, inTransaction, replicaRowsOf, rowsOf } from '../../db/sql.js';
import { imageView, type ImageFields } from '../media/images.js';
import { bestListPriceSql, bestListRulesSql, listsInForceSql } from '../pricing/resolve.js';
import { upsertProducts, type ProductColumns } from './upsert.js';
import { catalogAdmitsSql, catalogHeldCte, catalogsOfCustomerNumber, customerIdByNumberSql } from './catalog-visibility.js';

/** What product reads and writes need besides the EntityManager. */
export interface CatalogDeps extends CatalogReadDeps {
  config: { databaseUrl: string };
}

// ---------------------------------------------------------------------------------------------
// Reading: one statement per read, bound parameters, no entity hydration (docs/decisions.md "Read path")

/** The caller's price context; the organization's tiers come from the NOTIFY-invalidated read cache. */
async function callerContext(tiers: TierSource, orgId: string, auth: Principal): Promise<PriceContext> {
  return priceContext(await tiers.priceTiers(orgId), auth);
}

/** Where the organization's price tiers are read from (the process's ReadCache). */
export interface TierSource {
  priceTiers(orgId: string): Promise<readonly { name: string; currencyCode: string }[]>;
}

/** What product reads need: object storage for image URLs, the tier cache. */
export interface CatalogReadDeps {
  storage: Storage;
  readCache: TierSource;
}

/** A product row with its category name, prices and active images aggregated (aliases p and c). */
const PRODUCT_COLUMNS = `p.id, p.organization_id, p.sku, p.name, p.description, c.name as category_name, p.quantity_on_hand, p.minimum_order_quantity,
  p.maximum_order_quantity, p.quantity_increment, p.weight, p.weight_unit, p.dimensions, p.dimensions_unit, p.upc, p.active, p.product_attributes, p.external_id,
  p.created_at, p.updated_at, p.track_inventory, p.allow_backorder, p.lead_time_days,
  case when p.track_inventory then coalesce((select sum(l.on_hand - l.reserved) from stock_level l
                                              where l.organization_id = p.organization_id and l.product_id = p.id), 0)::int end as available,
  coalesce((select json_agg(json_build_object('tier', pp.tier, 'price', pp.price::text, 'atQuantity', pp.at_quantity) order by pp.tier, pp.at_quantity)
              from product_price pp where pp.organization_id = p.organization_id and pp.product_id = p.id), '[]') as prices,
  coalesce((select json_agg(json_build_object('id', i.id, 'name', i.name, 'height', i.height, 'width', i.width, 'contentSize', i.content_size,
                                              'source', i.source, 'format', i.format, 'active', i.active, 'sku', i.sku, 'categoryName', i.category_name,
                                              'createdAt', i.created_at, 'updatedAt', i.updated_at) order by i.created_at)
              from image i where i.organization_id = p.organization_id and i.sku = p.sku and i.active), '[]') as images`;

/**
 * A customer token's price list price at quantity 1 and its quantity rule overrides (the one
 * resolver's rules, src/services/pricing/resolve.ts), as two more columns of the product's statement: `org`,
 * `customerNumber`, `tier`, `currency` and `at` are placeholders of that statement. Absent for
 * other callers (their statements do not carry it).
 */
const listsInForceOf = (org: string, customerNumber: string, tier: string, currency: string, at: string) =>
  listsInForceSql(org, `(select cu.id from customer cu where cu.organization_id = ${org} and cu.customer_number = ${customerNumber})`, tier, currency, at);
/** `lists`: the name of a CTE of the statement holding listsInForceOf (a list page computes them once, not per row); absent: inline. */
const listPriceColumn = (org: string, customerNumber: string, tier: string, currency: string, at: string, lists = listsInForceOf(org, customerNumber, tier, currency, at)) => {
  return `, (select json_build_object('priceListId', b.price_list_id, 'price', b.price::text) from ${bestListPriceSql(org, lists, 'p.sku', '1')} b) as list_price
  , (select json_build_object('minimumOrderQuantity', r.minimum_order_quantity, 'maximumOrderQuantity', r.maximum_order_quantity, 'quantityIncrement', r.quantity_increment)
       from ${bestListRulesSql(org, lists, 'p.sku')} r) as list_rules`;
};

/** Whether the caller's product answers are priced by the resolver's lists (a customer token with its customer, tier and currency). */
const listPriced = (v: PriceContext, auth: Principal): boolean => v.customer && !!auth.customerNumber && !!v.tier && !!v.currency;

interface ProductRow extends ProductColumns {
  organization_id: string;
  category_name: string | null;
  created_at: Date;
  updated_at: Date;
  available: number | null;
  prices: PriceRow[];
  /** Customer tokens: the price list price at quantity 1, when a list in force prices the product. */
  list_price?: { priceListId: string; price: string } | null;
  /** Customer tokens: the quantity rule overrides of the entry of the list in force for the SKU (null each: the product's). */
  list_rules?: { minimumOrderQuantity: number | null; maximumOrderQuantity: number | null; quantityIncrement: number | null } | null;
  images: (Omit<ImageFields, 'organization' | 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string })[];
}

function viewOfRow(storage: Storage, v: PriceContext, r: ProductRow): ProductView {
  const fields: ProductFields = {
    id: r.id,
    organizationId: r.organization_id,
    sku: r.sku,
    name: r.name,
    description: r.description,
    categoryName: r.category_name,
    quantityOnHand: r.quantity_on_hand,
    minimumOrderQuantity: r.minimum_order_quantity,
    maximumOrderQuantity: r.maximum_order_quantity,
    quantityIncrement: r.quantity_increment,
    weight: r.weight,
    weightUnit: r.weight_unit,
    dimensions: r.dimensions,
    dimensionsUnit: r.dimensions_unit,
    upc: r.upc,
    active: r.active,
    productAttributes: r.product_attributes,
    externalId: r.external_id,
    trackInventory: r.track_inventory,
    allowBackorder: r.allow_backorder,
    leadTimeDays: r.lead_time_days,
    available: r.available,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  const images = r.images.map((i) =>
    imageView(storage, { ...i, organization: r.organization_id, createdAt: new Date(i.createdAt), updatedAt: new Date(i.updatedAt) }),
  );
  return productView(fields, r.prices, v, images, r.list_price ?? null, r.list_rules ?? null);
}

// $4: the customer number of a Customer token (its catalogs apply), else null; $5..$8 the list price's (listPriceColumn).
const BY_SKU = (listPrice: string) => `select ${PRODUCT_COLUMNS}${listPrice} from product p left join category c on c.organization_id = p.organization_id and c.id = p.category_id
  where p.organization_id = $1 and p.sku = $2 and (p.active or not $3::boolean)
    and ($4::text is null or ${catalogAdmitsSql('p', customerIdByNumberSql('p.organization_id', '$4::text'))})`;
const BY_ID = (listPrice: string) =>
  `select ${PRODUCT_COLUMNS}${listPrice} from product p left join category c on c.organization_id = p.organization_id and c.id = p.category_id where p.organization_id = $1 and p.id = $2`;
const BY_SKU_TIER = BY_SKU('');
const BY_SKU_LISTS = BY_SKU(listPriceColumn('$1', '$5', '$6', '$7', '$8::timestamptz'));
const BY_ID_TIER = BY_ID('');
const BY_ID_LISTS = BY_ID(listPriceColumn('$1', '$3', '$4', '$5', '$6::timestamptz'));

/** One product's view: as the caller may see it, or (`afterWrite`, by id) as just written, whatever its active flag. One statement. */
async function viewOf(
  em: EntityManager,
  orgId: string,
  auth: Principal,
  deps: CatalogReadDeps,
  where: { sku: string } | { id: string },
  afterWrite = false,
): Promise<ProductView> {
  const v = await callerContext(deps.readCache, orgId, auth);
  const lists = listPriced(v, auth) ? [auth.customerNumber, v.tier, v.currency, new Date()] : null;
  const rows =
    'sku' in where
      ? await rowsOf<ProductRow>(em, lists ? BY_SKU_LISTS : BY_SKU_TIER, [orgId, where.sku, !afterWrite && v.activeOnly, afterWrite ? null : catalogCustomer(v, auth), ...(lists ?? [])])
      : await rowsOf<ProductRow>(em, lists ? BY_ID_LISTS : BY_ID_TIER, [orgId, where.id, ...(lists ?? [])]);
  if (!rows[0]) throw AppError.notFound('Product');
  return viewOfRow(deps.storage, v, rows[0]);
}

/** The customer number whose catalogs limit what the caller sees: a Customer token's (reps and admins see everything). */
const catalogCustomer = (v: PriceContext, auth: Principal): string | null => (v.customer ? auth.customerNumber : null);

/** The catalogs limiting a Customer token's lists (null: none, the whole catalog as before). One small statement. */
async function catalogsOfCaller(em: EntityManager, orgId: string, v: PriceContext, auth: Principal): Promise<string[] | null> {
  const customerNumber = catalogCustomer(v, auth);
  if (!customerNumber) return null;
  const ids = await catalogsOfCustomerNumber(em, orgId, customerNumber);
  return ids.length ? ids : null;
}

/** GET /api/products/{sku}: 404 when the caller may not see it (inactive, for Customer and SalesRep tokens). One statement. */
export const readProduct = (em: EntityManager, orgId: string, auth: Principal, deps: CatalogReadDeps, sku: string) => viewOf(em, orgId, auth, deps, { sku });

// ---------------------------------------------------------------------------------------------
// Listing and search

export const productListSpec = (defaultPageSize: number): ListSpec => ({
  filters: {
    sku: { prop: 'sku', type: 'string' },
    name: { prop: 'name', type: 'string' },
    description: { prop: 'description', type: 'string' },
    upc: { prop: 'upc', type: 'string' },
    category: { prop: 'category.name', type: 'string' },
    externalId: { prop: 'externalId', type: 'string' },
    weightUnit: { prop: 'weightUnit', type: 'string' },
    active: { prop: 'active', type: 'boolean' },
    quantityOnHand: { prop: 'quantityOnHand', type: 'number' },
  },
  sorts: { Sku: 'sku', Name: 'name', Price: '__price' },
  defaultSort: 'Sku',
  defaultPageSize,
});

/** The `after` keyset parameter: the sku of the last product of the previous page. */
const afterOf = (query: Record<string, unknown>, q: ListQuery) =>
  parseAfter(query, q, { prop: 'sku', what: 'a sku', by: 'sku', sortHint: 'sortOn=Sku (the default)' });

/**
 * One statement for a page: the page's ids chosen by the list's where/order (MikroORM's
 * QueryBuilder, run with bound parameters), each product with its prices and images, and the
 * total: from `row_count` (maintained by triggers) when nothing but visibility filters the list,
 * else a count over the tenant's matching rows.
 */
async function pageOf(
  em: EntityManager,
  orgId: string,
  auth: Principal,
  deps: CatalogReadDeps,
  q: ListQuery,
  after: { value: string; desc: boolean } | null,
  extra: QBFilterQuery<Product>[] = [],
  scope: { catalogs: string[] } | null = null,
) {
  const v = await callerContext(deps.readCache, orgId, auth);
  const catalogs = scope?.catalogs ?? (await catalogsOfCaller(em, orgId, v, auth));
  const and: QBFilterQuery<Product>[] = [{ organization: orgId }, ...extra];
  if (v.activeOnly) and.push({ active: true });
  const filtered = extra.length > 0 || !!q.where.$and;
  if (q.where.$and) and.push(...(q.where.$and as QBFilterQuery<Product>[]));
  let orderBy: Record<string, unknown>[] = [q.orderBy, { sku: 'asc' }];
  if ('__price' in q.orderBy) {
    const dir = String(q.orderBy.__price);
    const priceSql = raw(
      (a: string) => `(select pp.price from product_price pp where pp.product_id = ${a}.id and pp.tier = ? and pp.at_quantity = 1)`,
      [v.tier ?? ''],
    );
    orderBy = [{ [priceSql]: `${dir} nulls last` }, { sku: 'asc' }];
  }
  const pageWhere: QBFilterQuery<Product>[] = after === null ? and : [...and, { sku: after.desc ? { $lt: after.value } : { $gt: after.value } }];
  // Under catalogs: only their members (catalog_member, kept by triggers; src/services/catalog/catalog-visibility.ts), through the `catalog_held` CTE.
  const held = <T extends { andWhere(cond: string): T }>(qb: T): T => (catalogs ? qb.andWhere('p.id in (select h.id from catalog_held h)') : qb);
  // One catalog, no filter, in sku order: the page is a range of the membership's (organization_id, catalog_id, sku) index.
  const skuOrder = Object.keys(q.orderBy).length === 1 && 'sku' in q.orderBy;
  const memberPage = !!catalogs && catalogs.length === 1 && !filtered && skuOrder;
  let page: { sql: string; params: readonly unknown[] };
  if (memberPage) {
    const desc = String(q.orderBy.sku).toLowerCase() === 'desc';
    const keyset = after === null ? '' : ` and m.sku ${after.desc ? '<' : '>'} ?`;
    page = {
      sql: `select m.product_id as id from catalog_member m where m.organization_id = ? and m.catalog_id = ?${keyset} order by m.sku ${desc ? 'desc' : 'asc'} limit ? offset ?`,
      params: [orgId, catalogs[0], ...(after === null ? [] : [after.value]), q.pageSize, after === null ? q.offset : 0],
    };
  } else {
    page = held(em.createQueryBuilder(Product, 'p').select('p.id').where({ $and: pageWhere }))
      .orderBy(after === null ? orderBy : [q.orderBy])
      .limit(q.pageSize)
      .offset(after === null ? q.offset : 0)
      .toQuery();
  }
  const params: unknown[] = [...page.params];
  let totalSql: string;
  if (filtered) {
    const all = held(em.createQueryBuilder(Product, 'p').select('p.id').where({ $and: and })).toQuery();
    totalSql = `(select count(*) from (${dollarParams(all.sql, params.length + 1)}) x)`;
    params.push(...all.params);
  } else if (catalogs?.length === 1) {
    params.push(orgId, catalogs[0]);
    totalSql = `coalesce((select held from catalog_member_count where organization_id = $${params.length - 1}::uuid and catalog_id = $${params.length}::uuid), 0)`;
  } else if (catalogs) {
    totalSql = '(select count(distinct id) from catalog_held)';
  } else {
    params.push(orgId, v.activeOnly);
    totalSql = `coalesce((select case when $${params.length}::boolean then active else total end from row_count where organization_id = $${params.length - 1} and kind = 'product'), 0)`;
  }
  // The page's rows are fetched by (organization_id, id), the primary key: by id alone PostgreSQL
  // would walk the key's index through every tenant's rows.
  params.push(orgId);
  const org = `$${params.length}::uuid`;
  let ctes = '';
  if (catalogs) {
    params.push(catalogs);
    ctes = `${catalogHeldCte(org, `$${params.length}::uuid[]`)},`;
  }
  let listPrice = '';
  if (listPriced(v, auth)) {
    params.push(auth.customerNumber, v.tier, v.currency, new Date());
    const n = params.length;
    // The lists in force for the customer, once per statement (a materialized CTE), then each page row's best entry.
    ctes += ` lists_in_force as materialized ${listsInForceOf(org, `$${n - 3}::text`, `$${n - 2}::text`, `$${n - 1}::text`, `$${n}::timestamptz`)},`;
    listPrice = listPriceColumn(org, `$${n - 3}::text`, `$${n - 2}::text`, `$${n - 1}::text`, `$${n}::timestamptz`, 'lists_in_force');
  }
  const sql = `with ${ctes} ids as (select coalesce(array_agg(s.id), '{}'::uuid[]) as a from (${dollarParams(page.sql)}) s)
    select ${totalSql}::int as total, v.* from ids left join lateral (
      select ${PRODUCT_COLUMNS}${listPrice}, o.n from unnest(ids.a) with ordinality o(id, n) join product p on p.organization_id = ${org} and p.id = o.id
        left join category c on c.organization_id = p.organization_id and c.id = p.category_id
    ) v on true order by v.n`;
  // Filtered lists vary in text with their filters: bound but not prepared, so each text is not kept per connection.
  const rows = await replicaRowsOf<ProductRow & { total: number; n: number | null }>(em, sql, params, !filtered && !scope);
  const total = rows[0]?.total ?? 0;
  const data = rows.filter((r) => r.n !== null).map((r) => viewOfRow(deps.storage, v, r));
  return dataEnvelope(data, total, q);
}

/** GET /api/products: paged (pageNumber, or `after` = the last sku seen), sorted and filtered per `productListSpec`. */
export function listProducts(em: EntityManager, orgId: string, auth: Principal, deps: CatalogReadDeps, query: Record<string, unknown>) {
  const q = parseList(query, productListSpec(25));
  return pageOf(em, orgId, auth, deps, q, afterOf(query, q));
}

/** GET /api/catalogs/{catalogId}/products: the active products the catalog holds, paged, sorted and filtered like GET /api/products. */
export async function listCatalogProducts(em: EntityManager, orgId: string, auth: Principal, deps: CatalogReadDeps, catalogId: string, query: Record<string, unknown>) {
  const q = parseList(query, productListSpec(25));
  const [found] = UUID_RE.test(catalogId) ? await rowsOf<{ id: string }>(em, 'select id from catalog where organization_id = $1 and id = $2', [orgId, catalogId]) : [];
  if (!found) throw AppError.notFound('Catalog');
  return pageOf(em, orgId, auth, deps, q, afterOf(query, q), [], { catalogs: [catalogId] });
}

/** GET /api/products/search: searchTerm (required, case-insensitive key) over sku, name, description and UPC; one 400 names every bad parameter. */
export function searchProducts(em: EntityManager, orgId: string, auth: Principal, deps: CatalogReadDeps, query: Record<string, unknown>) {
  const key = Object.keys(query).find((k) => k.toLowerCase() === 'searchterm');
  const term = key && typeof query[key] === 'string' ? query[key].trim() : '';
  const errors: FieldErrors = {};
  if (!term) errors.searchTerm = ['searchTerm is required.'];
  else if (term.length > 200) errors.searchTerm = ['searchTerm must be at most 200 characters.'];
  let q: ListQuery | null = null;
  try {
    q = parseList(query, productListSpec(50));
  } catch (e) {
    if (!(e instanceof AppError) || !e.errors) throw e;
    Object.assign(errors, e.errors);
  }
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const cond = { [raw((a: string) => productSearchExpression(a))]: { $ilike: `%${escapeLike(term)}%` } };
  return pageOf(em, orgId, auth, deps, q!, afterOf(query, q!), [cond]);
}

// ---------------------------------------------------------------------------------------------
// Writing

const SKU_UNIQUE = 'product_org_sku_unique';
const EXTERNAL_ID_UNIQUE = 'product_org_external_id_unique';
const CONFLICT = /^Another product already has/;

/** One product through the shared upsert, in its own transaction; a concurrent create of the same sku is retried once (it then updates). */
async function upsertOne(databaseUrl: string, orgId: string, body: ProductInput): Promise<{ id: string; created: boolean }> {
  const run = () => inTransaction(batchPool(databaseUrl), (sql) => upsertProducts({ sql, orgId, write: true }, [body], { touch: true }));
  const race = (e: unknown) => isUniqueViolation(e, SKU_UNIQUE) || isUniqueViolation(e, EXTERNAL_ID_UNIQUE);
  const [r] = await run().catch((e) => {
    if (!race(e)) throw e;
    return run().catch((e2) => {
      if (isUniqueViolation(e2, EXTERNAL_ID_UNIQUE)) throw AppError.conflict('Another product already has this externalId.');
      if (isUniqueViolation(e2, SKU_UNIQUE)) throw AppError.conflict('Another product already has this sku.');
      throw e2;
    });
  });
  if ('outcome' in r) return { id: r.id, created: r.outcome === 'created' };
  // Field errors first (400); a key held by another product alone is a conflict (409).
  const invalid = Object.entries(r.errors).filter(([, m]) => !m.every((x) => CONFLICT.test(x)));
  if (invalid.length) throw AppError.validation(Object.fromEntries(invalid));
  throw AppError.conflict(Object.values(r.errors)[0][0]);
}

/** PUT /api/products: create or update by sku (externalId also matches); prices, when given, are fully replaced. */
export async function upsertProduct(
  em: EntityManager,
  deps: CatalogDeps,
  orgId: string,
  auth: Principal,
  body: ProductInput,
): Promise<{ product: ProductView; created: boolean }> {
  const { id, created } = await upsertOne(deps.config.databaseUrl, orgId, body);
  return { product: await viewOf(em, orgId, auth, deps, { id }, true), created };
}

/** POST /api/products/{sku}/activate and /deactivate: answers the product. */
export async function setProductActive(
  em: EntityManager,
  orgId: string,
  auth: Principal,
  deps: CatalogReadDeps,
  sku: string,
  active: boolean,
): Promise<ProductView> {
  const p = await em.findOne(Product, { organization: orgId, sku }, { fields: ['id'] });
  if (!p) throw AppError.notFound('Product');
  // Written by organization and id (the product table has no index on id alone), and only when it changes.
  await em.nativeUpdate(Product, { organization: orgId, id: p.id, active: !active }, { active, updatedAt: new Date() });
  return viewOf(em, orgId, auth, deps, { id: p.id }, true);
}
