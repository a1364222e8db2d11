/**
 * Stock endpoints (docs/fulfillment.md "Stock"): stock locations (Admin), levels by SKU and
 * location in bulk (PUT /api/inventory) and a product's levels (GET /api/products/{sku}/inventory).
 * The use cases are in src/services/stock.
 */
import * as yup from 'yup';
import { created, defineRoute, json, noContent, ok } from '../http/route.js';
import * as out from '../domain/contract.js';
import { dataPage } from '../domain/resources.js';
import { createLocation, deleteLocation, listLocations, locationListSpec, readLocation, updateLocation } from '../services/stock/locations.js';
import { productInventory, putInventory } from '../services/stock/inventory.js';
import { inventoryEntry } from '../domain/stock/schemas.js';

const TAG = 'Stock';
const ADMIN = ['Admin'] as const;

const LOCATION = out.component(
  'StockLocation',
  out.obj({
    locationId: out.uuid(),
    organizationId: out.uuid(),
    name: out.str(),
    code: out.doc(out.str(), 'Unique per organization; PUT /api/inventory names locations by it'),
    priority: out.doc(out.int(), 'Lower serves first (docs/fulfillment.md "Reservations")'),
    isDefault: out.doc(out.bool(), "The organization's one default location: a tracked product's quantityOnHand write is an adjustment here"),
    active: out.doc(out.bool(), 'An inactive location serves no new reservation'),
    address: out.objN({}).meta({ additionalProperties: true }),
    createdAt: out.dateTime(),
    updatedAt: out.dateTime(),
  }),
);

const LEVEL = out.component(
  'StockLevel',
  out.obj({ sku: out.str(), locationId: out.uuid(), location: out.doc(out.str(), 'The location code'), onHand: out.int(), reserved: out.int(), available: out.doc(out.int(), 'onHand - reserved') }),
);

const PRODUCT_INVENTORY = out.component(
  'ProductInventory',
  out.obj({
    sku: out.str(),
    productId: out.uuid(),
    trackInventory: out.bool(),
    allowBackorder: out.bool(),
    leadTimeDays: out.intN(),
    quantityOnHand: out.doc(out.int(), 'Tracked: the sum over locations'),
    reserved: out.int(),
    available: out.int(),
    locations: out.arr(
      out.obj({ locationId: out.uuid(), code: out.str(), name: out.str(), priority: out.int(), isDefault: out.bool(), active: out.bool(), onHand: out.int(), reserved: out.int(), available: out.int() }),
    ),
  }),
);

const address = yup.object().nullable().meta({ openapi: { type: 'object', description: 'Free address fields (a JSON object)' } });
const locationFields = {
  name: yup.string().trim().min(1).max(200),
  code: yup.string().trim().min(1).max(50).matches(/^[A-Za-z0-9._-]+$/, '${path} may hold letters, digits, dot, dash and underscore only.'),
  priority: yup.number().integer('${path} must be a whole number.').min(0).max(1_000_000),
  isDefault: yup.boolean(),
  active: yup.boolean(),
  address,
};
const locationCreate = yup.object({ ...locationFields, name: locationFields.name.required(), code: locationFields.code.required() });
const locationUpdate = yup.object(locationFields);

const inventoryBody = yup.object({ items: yup.array(inventoryEntry.required()).min(1).max(5000).required() });

const common = { 401: 'Unauthenticated', 403: 'Not Admin' };

export const stockRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/stock-locations',
    operationId: 'listStockLocations',
    summary: 'Stock locations of the organization, by priority (filters on code, name, active, isDefault)',
    tag: TAG,
    auth: ADMIN,
    paged: locationListSpec,
    responses: { 200: json(dataPage('StockLocationPage', LOCATION), 'A page of locations'), 400: 'Bad paging, sorting or filters', ...common },
    async handler({ em, orgId, query }) {
      return ok(await listLocations(em, orgId, query));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/stock-locations',
    operationId: 'createStockLocation',
    summary: "Create a stock location (the organization's first is its default; isDefault: true moves the default here)",
    tag: TAG,
    auth: ADMIN,
    body: locationCreate,
    requestExample: { name: 'Main warehouse', code: 'MAIN', priority: 10 },
    responses: { 201: json(LOCATION, 'The location'), 400: 'Bad fields', 409: 'The code is taken', ...common },
    async handler({ em, orgId, body }) {
      const l = await createLocation(em, orgId, body);
      return created(l, `/api/stock-locations/${l.locationId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/stock-locations/:locationId',
    operationId: 'getStockLocation',
    summary: 'One stock location',
    tag: TAG,
    auth: ADMIN,
    pathParams: { locationId: { description: 'Stock location id', schema: { type: 'string', format: 'uuid' } } },
    responses: { 200: json(LOCATION, 'The location'), 404: 'No such location', ...common },
    async handler({ em, orgId, params }) {
      return ok(await readLocation(em, orgId, params.locationId));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/stock-locations/:locationId',
    operationId: 'updateStockLocation',
    summary: 'Change a stock location (the fields given); isDefault: true makes it the default',
    tag: TAG,
    auth: ADMIN,
    pathParams: { locationId: { description: 'Stock location id', schema: { type: 'string', format: 'uuid' } } },
    body: locationUpdate,
    responses: { 200: json(LOCATION, 'The location'), 400: 'Bad fields (the default cannot lose isDefault or be deactivated)', 404: 'No such location', 409: 'The code is taken', ...common },
    async handler({ em, orgId, params, body }) {
      return ok(await updateLocation(em, orgId, params.locationId, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/stock-locations/:locationId',
    operationId: 'deleteStockLocation',
    summary: 'Delete a stock location that never held stock and is not the default',
    tag: TAG,
    auth: ADMIN,
    pathParams: { locationId: { description: 'Stock location id', schema: { type: 'string', format: 'uuid' } } },
    responses: { 204: 'Deleted', 404: 'No such location', 409: 'The default, or a location with stock history (deactivate it)', ...common },
    async handler({ em, orgId, params }) {
      await deleteLocation(em, orgId, params.locationId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/inventory',
    operationId: 'putInventory',
    summary: 'Set (a count), receive or adjust stock by SKU and location, in bulk and in one transaction; every change is a movement in the ledger',
    tag: TAG,
    auth: ADMIN,
    body: inventoryBody,
    bodyLimits: { json: '5mb' },
    requestExample: { items: [{ sku: 'HAM-1', location: 'MAIN', receive: 40, reference: 'PO-1001' }, { sku: 'HAM-1', location: 'EAST', quantityOnHand: 12, reason: 'cycle count' }] },
    responses: {
      200: json(out.obj({ items: out.arr(LEVEL) }), 'The levels written'),
      400: 'Bad entries (items[i].<field>): unknown sku or location, an untracked product, not exactly one of quantityOnHand/receive/adjust; nothing was changed',
      409: 'On hand would fall below 0 or below what is reserved; nothing was changed',
      ...common,
    },
    async handler({ orgId, auth, body, deps }) {
      return ok(await putInventory(deps.config.databaseUrl, orgId, body.items, auth.userId));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/products/:sku/inventory',
    operationId: 'getProductInventory',
    summary: "A product's stock per location: on hand, reserved, available, and the totals",
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    responses: { 200: json(PRODUCT_INVENTORY, 'The levels'), 404: 'No such product', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep' },
    async handler({ em, orgId, params }) {
      return ok(await productInventory(em, orgId, params.sku));
    },
  }),
];
