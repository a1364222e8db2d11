/**
 * Product endpoints: list, search, read, upsert by sku, bulk price replacement, activate and
 * deactivate. The use cases are in src/services/catalog; who sees which prices is
 * src/domain/products/view.ts.
 */
import * as yup from 'yup';
import { productInput } from '../domain/products/schemas.js';
import { created, defineRoute, ok } from '../http/route.js';
import { replacePricesInBulk } from '../services/catalog/prices.js';
import { listProducts, readProduct, searchProducts, setProductActive, upsertProduct } from '../services/catalog/products.js';

const readRoles = ['Admin', 'Customer', 'SalesRep'] as const;

export const productRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/products',
    summary: 'List products (paged; sortOn Sku, Name or Price; filters on sku, name, description, upc, category, externalId, weightUnit, active, quantityOnHand)',
    tag: 'Products',
    auth: readRoles,
    responses: { 200: '{ data, totalRecords, currentPage, totalPages }', 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated' },
    async handler({ em, orgId, auth, query, deps }) {
      return ok(await listProducts(em, orgId, auth, deps.storage, query));
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
      return ok(await searchProducts(em, orgId, auth, deps.storage, query));
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
      return ok(await readProduct(em, orgId, auth, deps.storage, params.sku));
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
      const res = await upsertProduct(em, deps, orgId, auth, body);
      return res.created ? created(res.product) : ok(res.product);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/products/:sku/activate',
    summary: 'Activate a product (visible to customers again); answers the product',
    tag: 'Products',
    auth: ['Admin'],
    responses: { 200: 'The product', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such product' },
    handler: async ({ em, orgId, auth, params, deps }) => ok(await setProductActive(em, orgId, auth, deps.storage, params.sku, true)),
  }),

  defineRoute({
    method: 'post',
    path: '/api/products/:sku/deactivate',
    summary: 'Deactivate a product (hidden from customers); answers the product',
    tag: 'Products',
    auth: ['Admin'],
    responses: { 200: 'The product', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such product' },
    handler: async ({ em, orgId, auth, params, deps }) => ok(await setProductActive(em, orgId, auth, deps.storage, params.sku, false)),
  }),
];
