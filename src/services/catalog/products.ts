/**
 * Product use cases: list, search, read by sku, upsert, activate and deactivate. Every answer is
 * the caller's view (src/domain/products/view.ts: which tier and currency price it, which prices
 * and products it may see). Writes go through the one set-based upsert (./upsert.ts), which the
 * `products` import applier uses too.
 *
 * Reads: `viewsOf` is the one place that loads what a view shows besides the product row (its
 * prices and its images); a product read is the caller's tiers, the product, and that.
 */
import { raw } from '@mikro-orm/core';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { PriceRow } from '../../domain/products/prices.js';
import type { ProductInput } from '../../domain/products/schemas.js';
import { priceContext, productView, type PriceContext, type ProductFields, type ProductView } from '../../domain/products/view.js';
import { Image, PriceTier, Product, ProductPrice } from '../../entities/index.js';
import { productSearchExpression } from '../../entities/Product.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { dataEnvelope, escapeLike, parseList, type ListQuery, type ListSpec } from '../../http/paging.js';
import type { Storage } from '../../adapters/storage.js';
import { apiPool, inTransaction } from '../imports/sql.js';
import { imageView } from '../media/images.js';
import { upsertProducts } from './upsert.js';

/** What product reads and writes need besides the EntityManager. */
export interface CatalogDeps {
  storage: Storage;
  config: { databaseUrl: string };
}

// ---------------------------------------------------------------------------------------------
// Reading

async function callerContext(em: EntityManager, orgId: string, auth: Principal): Promise<PriceContext> {
  const tiers = await em.find(PriceTier, { organization: orgId }, { orderBy: { name: 'asc' } });
  return priceContext(tiers, auth);
}

const fieldsOf = (p: Product): ProductFields => ({
  ...p,
  organizationId: typeof p.organization === 'string' ? p.organization : p.organization.id,
  description: p.description ?? null,
  categoryName: p.category ? (p.category.name ?? null) : null,
  weight: p.weight ?? null,
  weightUnit: p.weightUnit ?? null,
  dimensions: p.dimensions ?? null,
  dimensionsUnit: p.dimensionsUnit ?? null,
  upc: p.upc ?? null,
  productAttributes: p.productAttributes ?? null,
  externalId: p.externalId ?? null,
});

/** The views of `products` (category populated): their prices and active images, one statement each for the whole set. */
async function viewsOf(em: EntityManager, orgId: string, storage: Storage, v: PriceContext, products: Product[]): Promise<ProductView[]> {
  if (!products.length) return [];
  const prices = new Map<string, PriceRow[]>(products.map((p) => [p.id, []]));
  const priceRows = await em.find(ProductPrice, { product: { $in: [...prices.keys()] } }, { orderBy: { tier: 'asc', atQuantity: 'asc' } });
  for (const r of priceRows) prices.get(typeof r.product === 'string' ? r.product : r.product.id)?.push({ tier: r.tier, price: String(r.price), atQuantity: r.atQuantity });
  // Images are linked by SKU (an image keeps the SKU it was uploaded for).
  const images = new Map<string, unknown[]>();
  const imageRows = await em.find(Image, { organization: orgId, sku: { $in: products.map((p) => p.sku) }, active: true }, { orderBy: { createdAt: 'asc' } });
  for (const img of imageRows) images.set(img.sku!, [...(images.get(img.sku!) ?? []), imageView(storage, img)]);
  return products.map((p) => productView(fieldsOf(p), prices.get(p.id) ?? [], v, images.get(p.sku) ?? []));
}

/** One product's view: as the caller may see it, or (`afterWrite`, by id) as just written, whatever its active flag. */
async function viewOf(em: EntityManager, orgId: string, auth: Principal, storage: Storage, where: { sku: string } | { id: string }, afterWrite = false): Promise<ProductView> {
  const v = await callerContext(em, orgId, auth);
  const visible = !afterWrite && v.activeOnly ? { active: true } : {};
  const p = await em.findOne(Product, { ...where, organization: orgId, ...visible }, { populate: ['category'], refresh: afterWrite });
  if (!p) throw AppError.notFound('Product');
  return (await viewsOf(em, orgId, storage, v, [p]))[0];
}

/** GET /api/products/{sku}: 404 when the caller may not see it (inactive, for Customer and SalesRep tokens). */
export const readProduct = (em: EntityManager, orgId: string, auth: Principal, storage: Storage, sku: string) => viewOf(em, orgId, auth, storage, { sku });

// ---------------------------------------------------------------------------------------------
// Listing and search

const listSpec = (defaultPageSize: number): ListSpec => ({
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

async function pageOf(em: EntityManager, orgId: string, auth: Principal, storage: Storage, q: ListQuery, extra: FilterQuery<Product>[] = []) {
  const v = await callerContext(em, orgId, auth);
  const and: FilterQuery<Product>[] = [{ organization: orgId }, ...extra];
  if (v.activeOnly) and.push({ active: true });
  if (q.where.$and) and.push(...(q.where.$and as FilterQuery<Product>[]));
  let orderBy: Record<string, unknown>[] = [q.orderBy, { sku: 'asc' }];
  if ('__price' in q.orderBy) {
    const dir = String(q.orderBy.__price);
    const priceSql = raw(
      (a: string) => `(select pp.price from product_price pp where pp.product_id = ${a}.id and pp.tier = ? and pp.at_quantity = 1)`,
      [v.tier ?? ''],
    );
    orderBy = [{ [priceSql]: `${dir} nulls last` }, { sku: 'asc' }];
  }
  const [rows, total] = await em.findAndCount(Product, { $and: and }, { populate: ['category'], orderBy, limit: q.pageSize, offset: q.offset });
  return dataEnvelope(await viewsOf(em, orgId, storage, v, rows), total, q);
}

/** GET /api/products: paged, sorted and filtered per `listSpec`. */
export function listProducts(em: EntityManager, orgId: string, auth: Principal, storage: Storage, query: Record<string, unknown>) {
  return pageOf(em, orgId, auth, storage, parseList(query, listSpec(25)));
}

/** GET /api/products/search: searchTerm (required, case-insensitive key) over sku, name, description and UPC; one 400 names every bad parameter. */
export function searchProducts(em: EntityManager, orgId: string, auth: Principal, storage: Storage, query: Record<string, unknown>) {
  const key = Object.keys(query).find((k) => k.toLowerCase() === 'searchterm');
  const term = key && typeof query[key] === 'string' ? query[key].trim() : '';
  const errors: FieldErrors = {};
  if (!term) errors.searchTerm = ['searchTerm is required.'];
  else if (term.length > 200) errors.searchTerm = ['searchTerm must be at most 200 characters.'];
  let q: ListQuery | null = null;
  try {
    q = parseList(query, listSpec(50));
  } catch (e) {
    if (!(e instanceof AppError) || !e.errors) throw e;
    Object.assign(errors, e.errors);
  }
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const cond = { [raw((a: string) => productSearchExpression(a))]: { $ilike: `%${escapeLike(term)}%` } };
  return pageOf(em, orgId, auth, storage, q!, [cond]);
}

// ---------------------------------------------------------------------------------------------
// Writing

const SKU_UNIQUE = 'product_org_sku_unique';
const EXTERNAL_ID_UNIQUE = 'product_org_external_id_unique';
const CONFLICT = /^Another product already has/;

/** One product through the shared upsert, in its own transaction; a concurrent create of the same sku is retried once (it then updates). */
async function upsertOne(databaseUrl: string, orgId: string, body: ProductInput): Promise<{ id: string; created: boolean }> {
  const run = () => inTransaction(apiPool(databaseUrl), (sql) => upsertProducts({ sql, orgId, write: true }, [body], { touch: true }));
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
export async function upsertProduct(em: EntityManager, deps: CatalogDeps, orgId: string, auth: Principal, body: ProductInput): Promise<{ product: ProductView; created: boolean }> {
  const { id, created } = await upsertOne(deps.config.databaseUrl, orgId, body);
  return { product: await viewOf(em, orgId, auth, deps.storage, { id }, true), created };
}

/** POST /api/products/{sku}/activate and /deactivate: answers the product. */
export async function setProductActive(em: EntityManager, orgId: string, auth: Principal, storage: Storage, sku: string, active: boolean): Promise<ProductView> {
  const p = await em.findOne(Product, { organization: orgId, sku }, { populate: ['category'] });
  if (!p) throw AppError.notFound('Product');
  p.active = active;
  await em.flush();
  return (await viewsOf(em, orgId, storage, await callerContext(em, orgId, auth), [p]))[0];
}
