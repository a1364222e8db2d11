/**
 * Product endpoints: list, search, read, upsert by sku, bulk price replacement, activate and
 * deactivate. The use cases are in src/services/catalog (bulk price replacement: the `prices` import
 * applier run in process, src/services/imports/sync.ts); who sees which prices is
 * src/domain/products/view.ts.
 */
import * as yup from 'yup';
import { priceUpdateEntry, productInput } from '../domain/products/schemas.js';
import { created, defineRoute, json, ok } from '../http/route.js';
import { replacePricesInBulk } from '../services/imports/sync.js';
import { listProducts, productListSpec, readProduct, searchProducts, setProductActive, upsertProduct } from '../services/catalog/products.js';
import { arr, obj, str, strN } from '../domain/contract.js';
import { product, productPage } from '../domain/resources.js';

const readRoles = ['Admin', 'Customer', 'SalesRep'] as const;

const PRODUCT_EXAMPLE = {
  productId: '3f0a4c1e-9b1d-4c55-8a9e-0b6f0f2d1a11',
  organizationId: '9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
  sku: 'HAM-1',
  name: 'Claw hammer',
  description: '16 oz, fibreglass handle',
  category: 'Tools',
  price: 12.5,
  priceFormatted: '$12.50',
  currencyCode: 'USD',
  prices: [
    { tier: 'Retail', price: 12.5, priceFormatted: '$12.50', atQuantity: 1 },
    { tier: 'Retail', price: 11, priceFormatted: '$11.00', atQuantity: 10 },
  ],
  quantityOnHand: 140,
  minimumOrderQuantity: 1,
  quantityIncrement: 1,
  weight: 0.6,
  weightUnit: 'kg',
  dimensions: null,
  dimensionsUnit: null,
  upc: '012345678905',
  active: true,
  images: [],
  productAttributes: { color: 'red' },
  externalId: null,
  createdAt: '2026-01-10T09:30:00.000Z',
  updatedAt: '2026-01-12T14:05:00.000Z',
};
const PRODUCT_PAGE_EXAMPLE = { data: [PRODUCT_EXAMPLE], totalRecords: 1, currentPage: 1, totalPages: 1 };

export const productRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/products',
    operationId: 'listProducts',
    summary:
      'List products (paged by pageNumber, or by keyset with after=<last sku of the previous page> for deep pages (sortOn Sku only; currentPage then echoes pageNumber); sortOn Sku, Name or Price; filters on sku, name, description, upc, category, externalId, weightUnit, active, quantityOnHand)',
    tag: 'Products',
    auth: readRoles,
    paged: productListSpec(25),
    queryParams: { after: { description: 'Keyset paging: the last sku of the previous page (sortOn Sku only); faster than pageNumber for deep pages', schema: { type: 'string', maxLength: 100 } } },
    responses: { 200: json(productPage, 'A page of products', { example: PRODUCT_PAGE_EXAMPLE }), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query, deps }) {
      return ok(await listProducts(em, orgId, auth, deps, query));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/products/search',
    operationId: 'searchProducts',
    summary: 'Search products by sku, name, description and UPC (searchTerm required; pageSize default 50)',
    tag: 'Products',
    auth: readRoles,
    paged: productListSpec(50),
    queryParams: { searchTerm: { description: 'Text searched in sku, name, description and UPC (case-insensitive)', schema: { type: 'string', minLength: 1, maxLength: 200 }, required: true } },
    responses: { 200: json(productPage, 'A page of matching products'), 400: 'searchTerm missing, or bad paging', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query, deps }) {
      return ok(await searchProducts(em, orgId, auth, deps, query));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/products/prices',
    operationId: 'replaceProductPrices',
    summary: "Replace the prices of several products; good entries are applied, bad ones reported",
    tag: 'Products',
    auth: ['Admin'],
    body: yup.object({ productUpdates: yup.array(yup.mixed().required().meta({ documentAs: priceUpdateEntry })).min(1).max(1000).required() }),
    responses: {
      200: json(obj({ updated: arr(str()), errors: arr(obj({ sku: strN(), reason: str() })) }), 'SKUs updated and the entries refused, with the reason'),
      400: 'productUpdates missing or not an array',
      401: 'Unauthenticated',
      403: 'Not Admin',
    },
    async handler({ orgId, body, deps }) {
      return ok(await replacePricesInBulk(deps.config.databaseUrl, orgId, body.productUpdates as unknown[]));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/products/:sku',
    operationId: 'getProduct',
    summary: 'Read a product by sku',
    tag: 'Products',
    auth: readRoles,
    responses: { 200: json(product, 'The product', { example: PRODUCT_EXAMPLE }), 401: 'Unauthenticated', 404: 'No such product (or inactive, for Customer tokens)' },
    async handler({ em, orgId, auth, params, deps }) {
      return ok(await readProduct(em, orgId, auth, deps, params.sku));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/products',
    operationId: 'upsertProduct',
    summary: 'Create or update a product by sku (externalId also matches); prices, when given, are fully replaced',
    tag: 'Products',
    auth: ['Admin'],
    body: productInput,
    requestExample: { sku: 'HAM-1', name: 'Claw hammer', category: 'Tools', minimumOrderQuantity: 1, prices: [{ tier: 'Retail', price: 12.5 }, { tier: 'Retail', price: 11, atQuantity: 10 }] },
    responses: { 200: json(product, 'The updated product'), 201: json(product, 'The created product'), 400: 'Invalid fields, unknown price tier, duplicate price break', 401: 'Unauthenticated', 403: 'Not Admin', 409: 'sku or externalId taken by another product' },
    async handler({ em, orgId, auth, body, deps }) {
      const res = await upsertProduct(em, deps, orgId, auth, body);
      return res.created ? created(res.product, `/api/products/${encodeURIComponent(res.product.sku)}`) : ok(res.product);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/products/:sku/activate',
    operationId: 'activateProduct',
    summary: 'Activate a product (visible to customers again); answers the product',
    tag: 'Products',
    auth: ['Admin'],
    responses: { 200: json(product, 'The product'), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such product' },
    handler: async ({ em, orgId, auth, params, deps }) => ok(await setProductActive(em, orgId, auth, deps, params.sku, true)),
  }),

  defineRoute({
    method: 'post',
    path: '/api/products/:sku/deactivate',
    operationId: 'deactivateProduct',
    summary: 'Deactivate a product (hidden from customers); answers the product',
    tag: 'Products',
    auth: ['Admin'],
    responses: { 200: json(product, 'The product'), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such product' },
    handler: async ({ em, orgId, auth, params, deps }) => ok(await setProductActive(em, orgId, auth, deps, params.sku, false)),
  }),
];
