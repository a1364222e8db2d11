/**
 * Catalog endpoints (docs/catalogs.md): customer catalogs, their selections and the products they
 * hold. Admins write; sales reps read. The use cases are in src/services/catalog/catalogs.ts; what
 * a catalog does to a customer's reads and orders is src/services/catalog/catalog-visibility.ts.
 */
import * as yup from 'yup';
import { created, defineRoute, empty, json, noContent, ok } from '../http/route.js';
import * as out from '../domain/contract.js';
import { dataPage, productPage } from '../domain/resources.js';
import { catalogListSpec, deleteCatalog, listCatalogs, listSelections, readCatalog, saveCatalog, selectionListSpec } from '../services/catalog/catalogs.js';
import { listCatalogProducts, productListSpec } from '../services/catalog/products.js';

const CATALOG = out.component(
  'Catalog',
  out.obj({
    catalogId: out.uuid(),
    organizationId: out.uuid(),
    name: out.str(),
    description: out.strN(),
    selectionCount: out.doc(out.int(), 'How many selection rules (SKUs and categories, Include and Exclude) the catalog has; list them with GET .../selections'),
    customerNumbers: out.doc(out.arr(out.str()), 'Customers the catalog is assigned to (a sales rep sees only its own customers)'),
    priceTiers: out.doc(out.arr(out.str()), 'Price tiers the catalog is assigned to (their customers without a catalog of their own)'),
    createdAt: out.dateTime(),
    updatedAt: out.dateTime(),
  }),
);
const SELECTION = out.component(
  'CatalogSelection',
  out.obj({
    selectionId: out.uuid(),
    mode: out.oneOf(['Include', 'Exclude'] as const),
    sku: out.doc(out.strN(), 'The SKU the rule names (null for a category rule)'),
    category: out.doc(out.strN(), 'The category the rule names, with its subcategories (null for a SKU rule)'),
    createdAt: out.dateTime(),
  }),
);

const selectionInput = yup
  .object({
    sku: yup.string().trim().max(100).nullable(),
    category: yup.string().trim().max(255).nullable(),
    mode: yup.string().oneOf(['Include', 'Exclude'] as const).nullable(),
  })
  .meta({ description: 'Exactly one of sku or category (a category includes its subcategories); mode Include (default) or Exclude. An exclusion wins within a catalog.' });

const catalogFields = {
  description: yup.string().max(2000).nullable(),
  selections: yup.array(selectionInput.required()).max(5000).nullable().meta({ description: "Replaces the catalog's selection when given (up to 5,000 rules; a category rule covers its whole subtree)" }),
  customerNumbers: yup.array(yup.string().trim().min(1).max(50).required()).max(1000).nullable().meta({ description: "Replaces the catalog's customer assignments when given (bulk: the catalog-assignments import)" }),
  priceTiers: yup.array(yup.string().trim().min(1).max(255).required()).max(100).nullable().meta({ description: "Replaces the catalog's price tier assignments when given" }),
};
const createInput = yup.object({ name: yup.string().trim().min(1).max(255).required(), ...catalogFields });
const updateInput = yup.object({ name: yup.string().trim().min(1).max(255), ...catalogFields });

const EXAMPLE = {
  name: 'Contract: Acme Hospitals',
  description: 'Everything but power tools',
  selections: [{ category: 'Tools' }, { category: 'Power tools', mode: 'Exclude' }, { sku: 'GLOVE-L' }],
  customerNumbers: ['C-1001'],
  priceTiers: [],
};

const readRoles = ['Admin', 'SalesRep'] as const;
const CATALOG_NOTE = 'A catalog limits what its customers see and buy (docs/catalogs.md): customers assigned directly use their own catalogs, others their price tier\'s; none: the whole catalog.';

export const catalogRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/catalogs',
    operationId: 'listCatalogs',
    summary: 'List catalogs (paged; sortOn Name, CreatedAt or UpdatedAt; filters on name, description)',
    description: CATALOG_NOTE,
    tag: 'Catalogs',
    auth: readRoles,
    paged: catalogListSpec,
    responses: { 200: json(dataPage('CatalogPage', CATALOG), 'A page of catalogs'), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep' },
    async handler({ em, orgId, auth, query }) {
      return ok(await listCatalogs(em, orgId, auth, query));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/api/catalogs',
    operationId: 'createCatalog',
    summary: 'Create a catalog with its selection and assignments',
    description: CATALOG_NOTE,
    tag: 'Catalogs',
    auth: ['Admin'],
    body: createInput,
    requestExample: EXAMPLE,
    responses: {
      201: json(CATALOG, 'The created catalog'),
      400: 'Invalid fields: unknown category, customer or price tier, a selection naming both or neither of sku and category, a SKU or category given twice',
      401: 'Unauthenticated',
      403: 'Not Admin',
      409: 'Another catalog has this name',
    },
    async handler({ em, orgId, auth, body }) {
      const c = await saveCatalog(em, orgId, auth, body);
      return created(c, `/api/catalogs/${c.catalogId}`);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/catalogs/:catalogId',
    operationId: 'getCatalog',
    summary: 'Read a catalog',
    tag: 'Catalogs',
    auth: readRoles,
    responses: { 200: json(CATALOG, 'The catalog'), 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such catalog' },
    async handler({ em, orgId, auth, params }) {
      return ok(await readCatalog(em, orgId, auth, params.catalogId));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/catalogs/:catalogId',
    operationId: 'updateCatalog',
    summary: 'Change a catalog: name and description when given; selections, customerNumbers and priceTiers each replaced when given',
    tag: 'Catalogs',
    auth: ['Admin'],
    body: updateInput,
    requestExample: { selections: EXAMPLE.selections, priceTiers: ['Contract'] },
    responses: {
      200: json(CATALOG, 'The catalog'),
      400: 'Invalid fields (as for create)',
      401: 'Unauthenticated',
      403: 'Not Admin',
      404: 'No such catalog',
      409: 'Another catalog has this name',
    },
    async handler({ em, orgId, auth, params, body }) {
      return ok(await saveCatalog(em, orgId, auth, body, params.catalogId));
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/api/catalogs/:catalogId',
    operationId: 'deleteCatalog',
    summary: 'Delete a catalog with its selection and assignments',
    tag: 'Catalogs',
    auth: ['Admin'],
    responses: { 204: empty('Deleted'), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such catalog' },
    async handler({ em, orgId, params }) {
      await deleteCatalog(em, orgId, params.catalogId);
      return noContent();
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/catalogs/:catalogId/selections',
    operationId: 'listCatalogSelections',
    summary: "The catalog's selection rules (paged; sortOn CreatedAt, Sku, Category or Mode; filters on sku, category, mode)",
    tag: 'Catalogs',
    auth: readRoles,
    paged: selectionListSpec,
    responses: { 200: json(dataPage('CatalogSelectionPage', SELECTION), 'A page of selection rules'), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such catalog' },
    async handler({ em, orgId, params, query }) {
      return ok(await listSelections(em, orgId, params.catalogId, query));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/catalogs/:catalogId/products',
    operationId: 'listCatalogProducts',
    summary: 'The active products the catalog holds, paged, sorted and filtered like GET /api/products (after= keyset paging too)',
    tag: 'Catalogs',
    auth: readRoles,
    paged: productListSpec(25),
    queryParams: { after: { description: 'Keyset paging: the last sku of the previous page (sortOn Sku only)', schema: { type: 'string', maxLength: 100 } } },
    responses: { 200: json(productPage, 'A page of products'), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such catalog' },
    async handler({ em, orgId, auth, params, query, deps }) {
      return ok(await listCatalogProducts(em, orgId, auth, deps, params.catalogId, query));
    },
  }),
];
