/**
 * Product endpoints: list, search, read, upsert by sku, bulk price replacement, activate and
 * deactivate. Prices are resolved for the caller from the token's PriceTier and CurrencyCode.
 *
 * Price visibility (DESIGN "Decisions" leaves the Admin case open; this is the choice):
 * - Customer tokens see only active products, `prices` only of their own tier, and `price` /
 *   `currencyCode` for their tier at quantity 1 (currency from the CurrencyCode claim, else the
 *   tier's configured currency).
 * - Admin and SalesRep tokens see every tier's `prices`. `price` / `currencyCode` use the token's
 *   PriceTier claim when present, else the organization's first price tier by name; both are null
 *   when the organization has no tiers (or the product no price in that tier). SalesRep tokens,
 *   like Customers, see only active products; Admin sees inactive ones too.
 * Every `prices` entry is formatted in its tier's configured currency.
 */
import { raw } from '@mikro-orm/core';
import type { Storage } from '../integrations/storage.js';
import { imageView } from '../services/media/images.js';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import * as yup from 'yup';
import { formatMoney, moneyNumber, resolveUnitPrice } from '../domain/pricing/index.js';
import { Category, Image, PriceTier, Product, ProductPrice } from '../entities/index.js';
import { productSearchExpression } from '../entities/Product.js';
import { AppError, isUniqueViolation, type FieldErrors } from '../errors.js';
import type { Principal } from '../http/auth.js';
import { dataEnvelope, parseList, type ListQuery, type ListSpec, escapeLike } from '../http/paging.js';
import { created, defineRoute, ok, type Reply } from '../http/route.js';
import { ensureCategory } from './categories.js';
import { checkPrices } from '../domain/products/prices.js';
import { replacePricesInBulk } from '../services/imports/sync.js';
import { productInput } from '../domain/products/schemas.js';


// ---------------------------------------------------------------------------------------------
// Caller view: which tier, which currency, which prices

interface View {
  customer: boolean;
  tier: string | null;
  currency: string | null;
  tierCurrency: Map<string, string>;
  activeOnly: boolean;
  storage: Storage;
}

async function callerView(em: EntityManager, orgId: string, auth: Principal, storage: Storage): Promise<View> {
  const tiers = await em.find(PriceTier, { organization: orgId }, { orderBy: { name: 'asc' } });
  const tierCurrency = new Map(tiers.map((t) => [t.name.toLowerCase(), t.currencyCode]));
  const customer = auth.role === 'Customer' && !auth.isSuper;
  let tier = auth.priceTier;
  if (!tier && !customer) tier = tiers[0]?.name ?? null;
  // Use the configured spelling of the tier when it exists.
  const configured = tier ? tiers.find((t) => t.name.toLowerCase() === tier!.toLowerCase()) : undefined;
  if (configured) tier = configured.name;
  const currency = auth.currencyCode ?? (tier ? tierCurrency.get(tier.toLowerCase()) ?? null : null);
  return { customer, tier, currency, tierCurrency, activeOnly: customer || (auth.role === 'SalesRep' && !auth.isSuper), storage };
}

type PriceRow = { tier: string; price: string; atQuantity: number };

export function productView(p: Product, prices: PriceRow[], v: View, images: unknown[] = []) {
  const currencyFor = (tier: string) => (v.customer && v.currency ? v.currency : v.tierCurrency.get(tier.toLowerCase()) ?? v.currency ?? 'USD');
  const unit = v.tier ? resolveUnitPrice(prices, v.tier, 1) : null;
  const cur = v.currency ?? (v.tier ? currencyFor(v.tier) : null);
  const visible = (v.customer ? prices.filter((e) => v.tier && e.tier.toLowerCase() === v.tier.toLowerCase()) : prices)
    .slice()
    .sort((a, b) => a.tier.localeCompare(b.tier) || a.atQuantity - b.atQuantity);
  return {
    productId: p.id,
    organizationId: typeof p.organization === 'string' ? p.organization : p.organization.id,
    sku: p.sku,
    name: p.name,
    description: p.description ?? null,
    category: p.category ? (p.category.name ?? null) : null,
    price: unit && cur ? moneyNumber(unit, cur) : null,
    priceFormatted: unit && cur ? formatMoney(unit, cur) : null,
    currencyCode: cur,
    prices: visible.map((e) => ({ tier: e.tier, price: moneyNumber(e.price, currencyFor(e.tier)), priceFormatted: formatMoney(e.price, currencyFor(e.tier)), atQuantity: e.atQuantity })),
    quantityOnHand: p.quantityOnHand,
    minimumOrderQuantity: p.minimumOrderQuantity,
    quantityIncrement: p.quantityIncrement,
    weight: p.weight === null || p.weight === undefined ? null : Number(p.weight),
    weightUnit: p.weightUnit ?? null,
    dimensions: p.dimensions ?? null,
    dimensionsUnit: p.dimensionsUnit ?? null,
    upc: p.upc ?? null,
    active: p.active,
    images,
    productAttributes: p.productAttributes ?? {},
    externalId: p.externalId ?? null,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

async function pricesOf(em: EntityManager, productIds: string[]): Promise<Map<string, PriceRow[]>> {
  const out = new Map<string, PriceRow[]>(productIds.map((id) => [id, []]));
  if (!productIds.length) return out;
  const rows = await em.find(ProductPrice, { product: { $in: productIds } }, { orderBy: { tier: 'asc', atQuantity: 'asc' } });
  for (const r of rows) {
    const id = typeof r.product === 'string' ? r.product : r.product.id;
    out.get(id)?.push({ tier: r.tier, price: String(r.price), atQuantity: r.atQuantity });
  }
  return out;
}

/** Active images linked to the products by SKU (images keep the SKU they were uploaded for). */
async function imagesBySku(em: EntityManager, products: Product[], v: View): Promise<Map<string, unknown[]>> {
  const out = new Map<string, unknown[]>();
  if (!products.length) return out;
  const orgId = typeof products[0].organization === 'string' ? products[0].organization : products[0].organization.id;
  const rows = await em.find(Image, { organization: orgId, sku: { $in: products.map((p) => p.sku) }, active: true }, { orderBy: { createdAt: 'asc' } });
  for (const img of rows) out.set(img.sku!, [...(out.get(img.sku!) ?? []), imageView(v.storage, img)]);
  return out;
}

async function viewsOf(em: EntityManager, products: Product[], v: View) {
  const prices = await pricesOf(
    em,
    products.map((p) => p.id),
  );
  const images = await imagesBySku(em, products, v);
  return products.map((p) => productView(p, prices.get(p.id) ?? [], v, images.get(p.sku) ?? []));
}

async function findProduct(em: EntityManager, orgId: string, sku: string, v?: View): Promise<Product> {
  const p = await em.findOne(Product, { organization: orgId, sku, ...(v?.activeOnly ? { active: true } : {}) }, { populate: ['category'] });
  if (!p) throw AppError.notFound('Product');
  return p;
}

// ---------------------------------------------------------------------------------------------
// Listing

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

async function listProducts(em: EntityManager, orgId: string, v: View, q: ListQuery, extra: FilterQuery<Product>[] = []) {
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
  const [rows, total] = await em.findAndCount(Product, { $and: and }, {
    populate: ['category'],
    orderBy,
    limit: q.pageSize,
    offset: q.offset,
  });
  return dataEnvelope(await viewsOf(em, rows, v), total, q);
}

// ---------------------------------------------------------------------------------------------
// Upsert

type ProductInput = yup.InferType<typeof productInput>;

async function replacePrices(tx: EntityManager, orgId: string, product: Product, rows: PriceRow[]): Promise<void> {
  await tx.nativeDelete(ProductPrice, { product: product.id });
  for (const r of rows) tx.create(ProductPrice, { organization: orgId, product, tier: r.tier, price: r.price, atQuantity: r.atQuantity });
}

async function upsertProduct(em: EntityManager, orgId: string, body: ProductInput): Promise<{ product: Product; created: boolean }> {
  const tiers = await em.find(PriceTier, { organization: orgId });
  const errors: FieldErrors = {};
  const checked = body.prices ? checkPrices(body.prices, tiers, 'prices') : null;
  if (checked) Object.assign(errors, checked.errors);
  let product = await em.findOne(Product, { organization: orgId, sku: body.sku });
  if (!product && body.externalId) product = await em.findOne(Product, { organization: orgId, externalId: body.externalId });
  const creating = !product;
  if (creating && !body.name) errors.name = ['name is required when creating a product.'];
  if (Object.keys(errors).length) throw AppError.validation(errors);
  const categoryId = body.category === undefined ? undefined : body.category ? await ensureCategory(em, orgId, body.category) : null;

  await em.transactional(async (tx) => {
    const p = product ? tx.merge(product) : tx.create(Product, { organization: orgId, sku: body.sku, name: body.name! });
    product = p;
    p.sku = body.sku;
    if (body.name !== undefined) p.name = body.name;
    if (body.description !== undefined) p.description = body.description;
    // Category's self-referencing `parent` is typed `any` (see Category.ts), which breaks getReference's inference.
    if (categoryId !== undefined) p.category = categoryId === null ? null : (tx.getReference(Category, categoryId as never) as never);
    if (body.quantityOnHand !== undefined) p.quantityOnHand = body.quantityOnHand;
    if (body.minimumOrderQuantity !== undefined) p.minimumOrderQuantity = body.minimumOrderQuantity;
    if (body.quantityIncrement !== undefined) p.quantityIncrement = body.quantityIncrement;
    if (body.weight !== undefined) p.weight = body.weight === null ? null : String(body.weight);
    if (body.weightUnit !== undefined) p.weightUnit = body.weightUnit;
    if (body.dimensions !== undefined) p.dimensions = body.dimensions;
    if (body.dimensionsUnit !== undefined) p.dimensionsUnit = body.dimensionsUnit;
    if (body.upc !== undefined) p.upc = body.upc;
    if (body.active !== undefined) p.active = body.active;
    if (body.productAttributes !== undefined) p.productAttributes = body.productAttributes ?? null;
    if (body.externalId !== undefined) p.externalId = body.externalId;
    p.updatedAt = new Date();
    await tx.flush();
    if (checked) {
      await replacePrices(tx, orgId, p, checked.rows);
      await tx.flush();
    }
  });
  return { product: product!, created: creating };
}

const readRoles = ['Admin', 'Customer', 'SalesRep'] as const;

async function setActive(em: EntityManager, orgId: string, auth: Principal, storage: Storage, sku: string, active: boolean): Promise<Reply> {
  const p = await findProduct(em, orgId, sku);
  p.active = active;
  await em.flush();
  const v = await callerView(em, orgId, auth, storage);
  return ok((await viewsOf(em, [p], v))[0]);
}



export const productRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/products',
    summary: 'List products (paged; sortOn Sku, Name or Price; filters on sku, name, description, upc, category, externalId, weightUnit, active, quantityOnHand)',
    tag: 'Products',
    auth: readRoles,
    responses: { 200: '{ data, totalRecords, currentPage, totalPages }', 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query, deps }) {
      const q = parseList(query, listSpec(25));
      const v = await callerView(em, orgId, auth, deps.storage);
      return ok(await listProducts(em, orgId, v, q));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/products/search',
    summary: 'Search products by sku, name, description and UPC (searchTerm required; pageSize default 50)',
    tag: 'Products',
    auth: readRoles,
    responses: { 200: '{ data, totalRecords, currentPage, totalPages }', 400: 'searchTerm missing, or bad paging', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query, deps }) {
      const raw0 = query;
      const key = Object.keys(raw0).find((k) => k.toLowerCase() === 'searchterm');
      const term = key && typeof raw0[key] === 'string' ? raw0[key].trim() : '';
      const errors: FieldErrors = {};
      if (!term) errors.searchTerm = ['searchTerm is required.'];
      else if (term.length > 200) errors.searchTerm = ['searchTerm must be at most 200 characters.'];
      let q: ListQuery | null = null;
      try {
        q = parseList(raw0, listSpec(50));
      } catch (e) {
        if (!(e instanceof AppError) || !e.errors) throw e;
        Object.assign(errors, e.errors);
      }
      if (Object.keys(errors).length) throw AppError.validation(errors);
      const v = await callerView(em, orgId, auth, deps.storage);
      const cond = { [raw((a: string) => productSearchExpression(a))]: { $ilike: `%${escapeLike(term)}%` } };
      return ok(await listProducts(em, orgId, v, q!, [cond]));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/products/prices',
    summary: "Replace the prices of several products; good entries are applied, bad ones reported",
    tag: 'Products',
    auth: ['Admin'],
    body: yup.object({ productUpdates: yup.array(yup.mixed().required()).min(1).max(1000).required() }),
    responses: { 200: '{ updated: [sku], errors: [{ sku, reason }] }', 400: 'productUpdates missing or not an array', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ orgId, body, deps }) {
      return ok(await replacePricesInBulk(deps.config.databaseUrl, orgId, body.productUpdates as unknown[]));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/products/:sku',
    summary: 'Read a product by sku',
    tag: 'Products',
    auth: readRoles,
    responses: { 200: 'Product', 401: 'Unauthenticated', 404: 'No such product (or inactive, for Customer tokens)' },
    async handler({ em, orgId, auth, params, deps }) {
      const v = await callerView(em, orgId, auth, deps.storage);
      const p = await findProduct(em, orgId, params.sku, v);
      return ok((await viewsOf(em, [p], v))[0]);
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/products',
    summary: 'Create or update a product by sku (externalId also matches); prices, when given, are fully replaced',
    tag: 'Products',
    auth: ['Admin'],
    body: productInput,
    responses: { 200: 'Updated product', 201: 'Created product', 400: 'Invalid fields, unknown price tier, duplicate price break', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'sku or externalId taken by another product' },
    async handler({ em, orgId, auth, body, deps }) {
      let res: { product: Product; created: boolean };
      try {
        res = await upsertProduct(em, orgId, body);
      } catch (e) {
        // A concurrent create of the same sku: retry once, which now updates.
        if (!isUniqueViolation(e, 'product_org_sku_unique') && !isUniqueViolation(e, 'product_org_external_id_unique')) throw e;
        const fresh = em.fork();
        try {
          res = await upsertProduct(fresh, orgId, body);
        } catch (e2) {
          if (isUniqueViolation(e2, 'product_org_external_id_unique')) throw AppError.conflict('Another product already has this externalId.');
          if (isUniqueViolation(e2, 'product_org_sku_unique')) throw AppError.conflict('Another product already has this sku.');
          throw e2;
        }
        em = fresh;
      }
      const v = await callerView(em, orgId, auth, deps.storage);
      const p = await em.findOneOrFail(Product, { id: res.product.id }, { populate: ['category'], refresh: true });
      const view = (await viewsOf(em, [p], v))[0];
      return res.created ? created(view) : ok(view);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/products/:sku/activate',
    summary: 'Activate a product (visible to customers again); answers the product',
    tag: 'Products',
    auth: ['Admin'],
    responses: { 200: 'The product', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such product' },
    handler: ({ em, orgId, auth, params, deps }) => setActive(em, orgId, auth, deps.storage, params.sku, true),
  }),

  defineRoute({
    method: 'post',
    path: '/api/products/:sku/deactivate',
    summary: 'Deactivate a product (hidden from customers); answers the product',
    tag: 'Products',
    auth: ['Admin'],
    responses: { 200: 'The product', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such product' },
    handler: ({ em, orgId, auth, params, deps }) => setActive(em, orgId, auth, deps.storage, params.sku, false),
  }),
];
