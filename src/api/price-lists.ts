/**
 * Price list routes (docs/pricing.md): contract price lists with validity and priority, their
 * entries per SKU with quantity breaks, their assignments to customers and price tiers. Admin
 * writes, reps read. Which list prices a line: src/services/pricing/resolve.ts.
 */
import * as yup from 'yup';
import { PRICE_LIST_STATUSES } from '../domain/pricing/price-lists.js';
import { priceList, priceListEntryPage, priceListPage } from '../domain/resources.js';
import { obj, int } from '../domain/contract.js';
import { created, defineRoute, empty, json, LOCATION, noContent, ok } from '../http/route.js';
import {
  createPriceList,
  deleteEntry,
  deletePriceList,
  entryListSpec,
  listEntries,
  listPriceLists,
  priceListListSpec,
  readPriceList,
  setAssignments,
  updatePriceList,
  upsertEntries,
} from '../services/pricing/price-lists.js';
import { currencyCode } from './schemas.js';

const instantInput = () =>
  yup
    .string()
    .nullable()
    .test('instant', '${path} must be an ISO 8601 date-time with an offset (2027-01-01T00:00:00Z).', (v) => v === undefined || v === null || (/T.*(Z|[+-]\d\d:\d\d)$/.test(v) && !Number.isNaN(Date.parse(v))));

const listBody = yup.object({
  name: yup.string().trim().min(1).max(200).required(),
  currencyCode: currencyCode().required(),
  validFrom: instantInput(),
  validTo: instantInput(),
  priority: yup.number().integer().min(0).max(1_000_000).nullable(),
  status: yup.string().oneOf(PRICE_LIST_STATUSES).nullable(),
});
const entriesBody = yup.object({
  entries: yup
    .array(
      yup.object({
        sku: yup.string().trim().min(1).max(100).required(),
        prices: yup.array(yup.object({ price: yup.number().min(0).required(), atQuantity: yup.number().integer().min(1) })).required(),
        minimumOrderQuantity: yup.number().integer().min(1).nullable(),
        maximumOrderQuantity: yup.number().integer().min(1).nullable(),
        quantityIncrement: yup.number().integer().min(1).nullable(),
      }),
    )
    .min(1)
    .max(5000)
    .required(),
});
const assignmentsBody = yup.object({
  customerNumbers: yup.array(yup.string().trim().min(1).max(100).required()).max(10_000),
  priceTiers: yup.array(yup.string().trim().min(1).max(255).required()).max(1000),
});

const LIST = json(priceList, 'The price list');
const TAG = 'Price lists';

export const priceListRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/price-lists',
    operationId: 'listPriceLists',
    summary: 'List the price lists (pageNumber, pageSize, sortOn Name|Priority|ValidFrom|CreatedAt, filters on name, status, currencyCode)',
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    paged: priceListListSpec,
    responses: { 200: json(priceListPage, 'A page of price lists'), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep' },
    async handler({ em, orgId, query }) {
      return ok(await listPriceLists(em, orgId, query));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/price-lists',
    operationId: 'createPriceList',
    summary: 'Create a price list: name, currency, validity (validFrom inclusive, validTo exclusive, either open), priority (lowest wins), status Draft|Active|Archived',
    tag: TAG,
    auth: ['Admin'],
    body: listBody,
    requestExample: { name: 'Acme 2027 H1 contract', currencyCode: 'USD', validFrom: '2027-01-01T00:00:00Z', validTo: '2027-07-01T00:00:00Z', priority: 10, status: 'Active' },
    responses: { 201: json(priceList, 'The created price list', { headers: LOCATION }), 400: 'A missing or invalid field (validTo not after validFrom)', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, deps, orgId, body }) {
      const l = await createPriceList(em, deps, orgId, body);
      return created(l, `/api/price-lists/${l.priceListId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/price-lists/:priceListId',
    operationId: 'getPriceList',
    summary: 'One price list with its assignments and how many SKUs it prices',
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    responses: { 200: LIST, 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such price list' },
    async handler({ em, orgId, params }) {
      return ok(await readPriceList(em, orgId, params.priceListId));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/price-lists/:priceListId',
    operationId: 'updatePriceList',
    summary: 'Replace the header of a price list (name, currency, validity, priority, status)',
    tag: TAG,
    auth: ['Admin'],
    body: listBody,
    responses: { 200: LIST, 400: 'A missing or invalid field', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such price list' },
    async handler({ em, deps, orgId, params, body }) {
      return ok(await updatePriceList(em, deps, orgId, params.priceListId, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/price-lists/:priceListId',
    operationId: 'deletePriceList',
    summary: 'Delete a price list with its entries and assignments (lines already priced keep their prices)',
    tag: TAG,
    auth: ['Admin'],
    responses: { 204: empty('Deleted'), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such price list' },
    async handler({ em, deps, orgId, params }) {
      await deletePriceList(em, deps, orgId, params.priceListId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/price-lists/:priceListId/assignments',
    operationId: 'setPriceListAssignments',
    summary: 'Assign the price list to customers (by customerNumber) and price tiers (by name); replaces the assignments',
    tag: TAG,
    auth: ['Admin'],
    body: assignmentsBody,
    responses: { 200: LIST, 400: 'An unknown customer number or tier (named)', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such price list' },
    async handler({ em, orgId, params, body }) {
      return ok(await setAssignments(em, orgId, params.priceListId, body));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/price-lists/:priceListId/entries',
    operationId: 'listPriceListEntries',
    summary: "The list's entries, one per SKU with its quantity breaks (pageNumber, pageSize, sortOn Sku, filter on sku)",
    tag: TAG,
    auth: ['Admin', 'SalesRep'],
    paged: entryListSpec,
    responses: { 200: json(priceListEntryPage, 'A page of entries'), 400: 'Bad paging, sorting or filters', 401: 'Unauthenticated', 403: 'Not Admin or SalesRep', 404: 'No such price list' },
    async handler({ em, orgId, params, query }) {
      return ok(await listEntries(em, orgId, params.priceListId, query));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/price-lists/:priceListId/entries',
    operationId: 'upsertPriceListEntries',
    summary: "Set entries: each given SKU's breaks and rules are replaced, others stay",
    description:
      "Up to 5,000 SKUs per call. Each entry's `minimumOrderQuantity`, `maximumOrderQuantity` and `quantityIncrement` override the product's rules for the customers this list prices the SKU for (absent or null: the product's rule; docs/pricing.md \"Quantity rules\").",
    tag: TAG,
    auth: ['Admin'],
    body: entriesBody,
    bodyLimits: { json: '5mb' },
    requestExample: { entries: [{ sku: 'WIDGET-1', prices: [{ price: 9.5, atQuantity: 1 }, { price: 8.75, atQuantity: 100 }], quantityIncrement: 6, maximumOrderQuantity: 600 }] },
    responses: { 200: json(obj({ updated: int() }), 'How many SKUs were set'), 400: 'An invalid entry or a SKU not in the catalog (named)', 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such price list' },
    async handler({ em, orgId, params, body }) {
      return ok(await upsertEntries(em, orgId, params.priceListId, body.entries));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/price-lists/:priceListId/entries/:sku',
    operationId: 'deletePriceListEntry',
    summary: "Remove a SKU's entry from the price list",
    tag: TAG,
    auth: ['Admin'],
    responses: { 204: empty('Removed'), 401: 'Unauthenticated', 403: 'Not Admin', 404: 'No such price list, or no entry for the SKU' },
    async handler({ em, orgId, params }) {
      await deleteEntry(em, orgId, params.priceListId, params.sku);
      return noContent();
    },
  }),
];
