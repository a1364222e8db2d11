/**
 * OpenAPI 3.1 document generated from the RouteDefs: request schemas from the routes' yup
 * schemas, response schemas from their `responses` (yup schemas built with
 * src/domain/contract.ts), paging parameters from the ListSpec the service parses with, shared
 * `components/schemas` from schemas marked `component('Name', …)`. Nothing here is written by
 * hand per operation: a route that is registered is documented (test/openapi.test.ts checks
 * that each has an operationId, a success schema and problem responses).
 */
import type { AnySchema, SchemaDescription } from 'yup';
import { UUID_RE } from '../domain/ids.js';
import type { ListSpec } from './paging.js';
import { MAX_PAGE_SIZE } from './paging.js';
import { honoursIdempotencyKey, type ResponseDoc, type RouteDef } from './route.js';
import { resourceReadOf } from './versions.js';

type Json = Record<string, unknown>;
type Desc = SchemaDescription & {
  fields?: Record<string, Desc>;
  innerType?: Desc;
  oneOf?: unknown[];
  tests?: { name?: string; params?: Json }[];
  meta?: { component?: string; openapi?: Json; additionalProperties?: unknown; description?: string; example?: unknown; documentAs?: AnySchema };
  optional?: boolean;
  nullable?: boolean;
};

/** Where a schema is used: request schemas stay as lenient as the yup validation; response objects are closed. */
type Mode = 'request' | 'response';

export interface BuildContext {
  components: Record<string, Json>;
}

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

/** The problem+json body of every error (src/errors.ts toProblem). */
const PROBLEM_SCHEMA: Json = {
  type: 'object',
  description: 'RFC 9457 problem details; `errors` names each failing field (validation errors).',
  properties: {
    type: { type: 'string', description: 'URI of the error kind' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'field path -> messages' },
    traceId: { type: 'string', description: 'Same as the X-Trace-Id header (the OpenTelemetry trace id, 32 hex); quote it when reporting a problem' },
  },
  required: ['type', 'title', 'status', 'traceId'],
  additionalProperties: false,
  example: { type: 'https://httpstatuses.io/400', title: 'One or more validation errors occurred.', status: 400, detail: 'See errors for the fields that failed.', errors: { sku: ['sku is a required field'] }, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' },
};

/** Path parameters shared by many routes; a route overrides or adds with `pathParams`. */
export const PATH_PARAMETERS: Record<string, { description: string; schema: Json }> = {
  customerNumber: { description: "The customer's number (unique per organization)", schema: { type: 'string', maxLength: 50 } },
  customerNumberOrCartId: {
    description: 'POST: the customer number the new cart is for. GET: the cart id (shoppingCartId). One template, because OpenAPI treats `/api/carts/{customerNumber}` and `/api/carts/{cartId}` as the same path.',
    schema: { type: 'string', maxLength: 50 },
  },
  shoppingCartId: { description: 'The cart id', schema: { type: 'string', format: 'uuid' } },
  sku: { description: 'Product SKU', schema: { type: 'string', maxLength: 100 } },
  priceListId: { description: 'Price list id', schema: { type: 'string', format: 'uuid' } },
  category: { description: 'Category name', schema: { type: 'string', maxLength: 100 } },
  orderId: { description: 'Order id', schema: { type: 'string', format: 'uuid' } },
  invoiceId: { description: 'Invoice id', schema: { type: 'string', format: 'uuid' } },
  paymentId: { description: 'Invoice payment id', schema: { type: 'string', format: 'uuid' } },
  commissionPlanId: { description: 'Commission plan id', schema: { type: 'string', format: 'uuid' } },
  statementId: { description: 'Commission statement id', schema: { type: 'string', format: 'uuid' } },
  webhookId: { description: 'Webhook subscription id', schema: { type: 'string', format: 'uuid' } },
  deliveryId: { description: 'Webhook delivery id', schema: { type: 'string', format: 'uuid' } },
  folderId: { description: 'Document folder id', schema: { type: 'string', format: 'uuid' } },
  documentId: { description: 'Company document id', schema: { type: 'string', format: 'uuid' } },
  integrationId: { description: 'Integration id', schema: { type: 'string', format: 'uuid' } },
  importJobId: { description: 'Import job id', schema: { type: 'string', format: 'uuid' } },
  jobId: { description: 'Image ingestion job id', schema: { type: 'string', format: 'uuid' } },
  id: { description: 'Image id', schema: { type: 'string', format: 'uuid' } },
  paymentTermId: { description: 'Payment term id', schema: { type: 'string', format: 'uuid' } },
  quoteId: { description: 'Quote id', schema: { type: 'string', format: 'uuid' } },
  creditNoteId: { description: 'Credit note id', schema: { type: 'string', format: 'uuid' } },
  returnId: { description: 'Return (RMA) id', schema: { type: 'string', format: 'uuid' } },
  catalogId: { description: 'Catalog id', schema: { type: 'string', format: 'uuid' } },
  approvalId: { description: 'Purchase approval id', schema: { type: 'string', format: 'uuid' } },
  shipmentId: { description: 'Shipment id (a shipment of the order in the path; docs/fulfillment.md)', schema: { type: 'string', format: 'uuid' } },
  userId: { description: 'User id (a buyer of the customer)', schema: { type: 'string', format: 'uuid' } },
  organizationId: { description: "Organization id (the token's own unless the caller is Super)", schema: { type: 'string', format: 'uuid' } },
};

/** Tags in reading order, with their descriptions (a tag a route uses but this list lacks still appears, undescribed; the test fails). */
export const TAGS: { name: string; description: string }[] = [
  { name: 'Authentication', description: 'Log in with client credentials, an e-mail and password, or exchange an API key; set and reset passwords. Tokens are HS256 JWTs sent as `Authorization: Bearer` or `x-api-key`.' },
  { name: 'Organizations', description: 'Sign-up of an organization, its admins, price tiers, return origins and API credentials.' },
  { name: 'Users', description: 'Users of an organization, memberships, and their association with customers.' },
  { name: 'Customers', description: 'Customer accounts (companies) with addresses, contacts, pricing tier and sales reps.' },
  { name: 'Sales reps', description: 'Sales representatives and their assignment to organizations.' },
  { name: 'Products', description: 'Catalog products with tiered prices; what a caller sees depends on the token (Customer: own tier only).' },
  { name: 'Categories', description: 'The product category tree.' },
  { name: 'Stock', description: 'Stock locations, levels per product and location (on hand, reserved, available) and the ledger of their movements; orders reserve tracked lines (docs/fulfillment.md).' },
  { name: 'Catalogs', description: 'Customer catalogs: product selections (SKUs and categories, include and exclude) assigned to customers or price tiers; a customer with a catalog sees and buys only what it holds.' },
  { name: 'Images', description: 'Product and category images: uploads, remote ingestion, the media library.' },
  { name: 'Carts', description: 'Shopping carts: one PENDING cart per customer, tier prices with quantity breaks. Checkout (charge, order, invoice, confirmation) runs as one durable workflow.' },
  { name: 'Orders', description: 'Orders from checkout, the API or imports.' },
  { name: 'Invoices', description: 'Invoices, their payments and refunds, PDF documents.' },
  { name: 'Payments', description: 'Cards on file and hosted payment pages.' },
  { name: 'Credit', description: 'Payment terms, customer credit limits and on-account buying (docs/credit.md).' },
  { name: 'Returns', description: 'Returns (RMA-000001): requested by buyers or staff from shipped units, approved or rejected, received (restock or scrap), refunded to the card or credited on account (docs/returns.md).' },
  { name: 'Credit notes', description: 'Credit notes against invoices (CN-000001), applied to open invoices as CreditNote payments or kept as available credit (docs/returns.md).' },
  { name: 'Price lists', description: 'Contract price lists with validity and priority, assigned to customers and price tiers; which price applies (docs/pricing.md).' },
  { name: 'Quotes', description: 'Quote requests negotiated between a buyer and the seller (offers, counters, acceptance into an order, expiry), each run by a negotiateQuote workflow (docs/quotes.md).' },
  { name: 'Fulfillment', description: 'Shipments of an order (partial, numbered SH-000001 per organization, with carrier and tracking), delivery confirmations, and the order status that follows them, run by a fulfillOrder workflow per order (docs/fulfillment.md).' },
  { name: 'Approvals', description: "Buyer roles and spending limits per customer, and purchase approvals that hold a checkout above a buyer's limit until an Approver answers, with escalation and expiry (docs/approvals.md)." },
  { name: 'Commissions', description: 'Commission plans and statements of sales reps (approval workflow).' },
  { name: 'Analytics', description: 'Sales analytics over orders and invoices.' },
  { name: 'Imports', description: 'Batch import jobs (CSV, NDJSON, JSON) run as durable workflows.' },
  { name: 'Webhooks', description: 'Webhook subscriptions and deliveries, signed per Standard Webhooks.' },
  { name: 'Company documents', description: 'Company documents and folders in object storage.' },
  { name: 'Integrations', description: 'Connections to outside systems (ERP, accounting, shipping) with encrypted secrets.' },
  { name: 'Operations', description: 'Liveness and readiness of the API process.' },
  { name: 'Documentation', description: 'This document and its reference page.' },
];

/**
 * What each named yup test of a request schema means in JSON Schema, so the document states every
 * rule the server validates (formats, patterns, decimals). test/openapi.test.ts walks every route's
 * yup schema and fails on a test that neither maps here nor is a rule between fields. A rule JSON
 * Schema cannot state by name (e.g. an order status compared case-insensitively) says its form with
 * `.meta({ openapi: { enum: [...] } })` on the schema.
 */
export const DATE_TIME_EXAMPLE = '2025-01-31T00:00:00Z';
export const DATE_EXAMPLE = '2025-01-31';
const DATE_TIME: Json = { format: 'date-time', example: DATE_TIME_EXAMPLE };
const TEST_FORMS: Record<string, Json> = {
  // src/domain/schemas.ts dateInput: a date-time with an offset; a bare date is accepted too (its midnight UTC).
  'date-input': { ...DATE_TIME, description: 'An ISO 8601 date-time with an offset; a date alone (2025-01-31) means its midnight UTC' },
  // dayInput: a day; a date-time at midnight UTC is accepted too.
  day: { format: 'date', example: DATE_EXAMPLE },
  instant: DATE_TIME,
  iso: DATE_TIME,
  url: { format: 'uri' },
  'http-url': { format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' },
  origin: { format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/]+/?$' },
  email: { format: 'email' },
  uuid: { format: 'uuid' },
  // An amount in a currency's minor unit: at most two decimals.
  cents: { multipleOf: 0.01 },
};

function regexSource(p: unknown): string | undefined {
  const r = (p as { regex?: unknown } | undefined)?.regex;
  return r instanceof RegExp ? r.source : undefined;
}

/** yup description -> JSON Schema (2020-12, as OpenAPI 3.1 uses). */
export function describeToJson(d: SchemaDescription | Json, ctx: BuildContext, mode: Mode): Json {
  const desc = d as Desc;
  const meta = desc.meta ?? {};
  // A field validated elsewhere (e.g. entry by entry in the service) documents the schema that checks it.
  if (meta.documentAs) {
    const shown = describeToJson(meta.documentAs.describe(), ctx, mode);
    return desc.nullable ? { anyOf: [shown, { type: 'null' }] } : shown;
  }
  if (meta.component) {
    const name = meta.component;
    if (!ctx.components[name]) {
      ctx.components[name] = {}; // placeholder against recursion
      ctx.components[name] = describeToJson({ ...desc, nullable: false, optional: false, meta: { ...meta, component: undefined } } as unknown as Json, ctx, mode);
    }
    const ref = { $ref: `#/components/schemas/${name}` };
    return desc.nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  }
  const tests = desc.tests ?? [];
  const out: Json = {};
  switch (desc.type) {
    case 'object': {
      out.type = 'object';
      const props: Json = {};
      const required: string[] = [];
      for (const [k, f] of Object.entries(desc.fields ?? {})) {
        props[k] = describeToJson(f, ctx, mode);
        // Response building blocks (src/domain/contract.ts) are defined() unless wrapped in opt().
        if (!f.optional) required.push(k);
      }
      out.properties = props;
      if (required.length) out.required = required;
      if (mode === 'response') out.additionalProperties = false;
      break;
    }
    case 'array':
      out.type = 'array';
      out.items = desc.innerType ? describeToJson(desc.innerType, ctx, mode) : {};
      break;
    case 'string': {
      out.type = 'string';
      const match = tests.find((t) => t.name === 'matches');
      const src = regexSource(match?.params);
      if (src === UUID_RE.source) out.format = 'uuid';
      else if (src) out.pattern = src;
      // A pattern that asks for an http(s) URL: the value is a URI.
      if (src && /^\^\(?https\?/i.test(src.replace(/\\/g, ''))) out.format = 'uri';
      break;
    }
    case 'number':
      out.type = tests.some((t) => t.name === 'integer') ? 'integer' : 'number';
      break;
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'date':
      out.type = 'string';
      out.format = 'date-time';
      break;
    default:
      break;
  }
  for (const t of tests) {
    const form = t.name ? TEST_FORMS[t.name] : undefined;
    if (form) for (const [k, v] of Object.entries(form)) if (out[k] === undefined) out[k] = v;
    if (t.name === 'max' && t.params) out[out.type === 'string' ? 'maxLength' : out.type === 'array' ? 'maxItems' : 'maximum'] = t.params.max;
    if (t.name === 'min' && t.params) out[out.type === 'string' ? 'minLength' : out.type === 'array' ? 'minItems' : 'minimum'] = t.params.min;
    if (t.name === 'length' && t.params && out.type === 'string') out.minLength = out.maxLength = t.params.length;
  }
  const list = (desc.oneOf ?? []).filter((v) => v !== undefined && v !== null);
  if (list.length) out.enum = desc.nullable ? [...list, null] : list;
  // A schema may state its OpenAPI form itself, e.g. a multipart file: .meta({ openapi: { type: 'string', format: 'binary' } }).
  Object.assign(out, meta.openapi ?? {});
  if (meta.additionalProperties !== undefined) {
    const ap = meta.additionalProperties;
    out.additionalProperties = ap === true ? true : describeToJson((ap as AnySchema).describe(), ctx, mode);
  }
  if (meta.description) out.description = typeof out.description === 'string' ? `${meta.description.replace(/\.$/, '')}. ${out.description}` : meta.description;
  if (meta.example !== undefined) out.example = meta.example;
  if (desc.nullable && out.type) out.type = Array.isArray(out.type) ? out.type : [out.type, 'null'];
  return out;
}

/** Longest summary: viewers (Scalar, Redocly) use it as a heading and a navigation entry. */
export const MAX_SUMMARY = 80;
/** Where a long summary may end, strongest first (only outside parentheses and backticks). */
const SUMMARY_BREAKS = ['. ', '; ', ': ', ' (', ' - ', ' -> ', ', '];

/**
 * A route's summary as the document shows it: at most MAX_SUMMARY characters, ending at the last
 * clause break that fits (or a word, with an ellipsis). The whole summary then opens the
 * description, so nothing a route says is lost.
 */
export function splitSummary(summary: string): { summary: string; detail?: string } {
  const text = summary.trim();
  if (text.length <= MAX_SUMMARY) return { summary: text };
  const topLevel: boolean[] = [];
  let depth = 0;
  let code = false;
  for (const ch of text) {
    if (ch === '`') code = !code;
    if (!code && (ch === '(' || ch === '[' || ch === '{')) depth++;
    topLevel.push(depth === 0 && !code);
    if (!code && (ch === ')' || ch === ']' || ch === '}')) depth = Math.max(0, depth - 1);
  }
  for (const brk of SUMMARY_BREAKS) {
    let best = -1;
    for (let i = text.indexOf(brk); i !== -1 && i <= MAX_SUMMARY; i = text.indexOf(brk, i + 1)) if (i >= 12 && topLevel[i]) best = i;
    if (best > 0) return { summary: text.slice(0, best).replace(/[\s,;:.]+$/, ''), detail: text };
  }
  const cut = text.lastIndexOf(' ', MAX_SUMMARY - 1);
  return { summary: `${text.slice(0, cut > 20 ? cut : MAX_SUMMARY - 1).replace(/[\s,;:.(]+$/, '')}…`, detail: text };
}

const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
  description?: string;
  style?: string;
  explode?: boolean;
  /** Which paging parameter this is (pagingParameters), for tests and tools. */
  'x-paging'?: string;
}

function pagingParameters(spec: ListSpec): Param[] {
  const names = { page: 'pageNumber', size: 'pageSize', sortOn: 'sortOn', sortDirection: 'sortDirection', ...spec.names };
  const ops = ['startswith', 'contains', 'notcontains', 'endswith', 'equals', 'notequals', ...(spec.comparisons ? ['gt', 'gte', 'lt', 'lte'] : [])];
  const fields = Object.entries(spec.filters).map(([k, f]) => `\`${k}\` (${f.type})`).join(', ');
  const out: Param[] = [
    { name: names.page, in: 'query', 'x-paging': 'page', required: false, schema: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 }, description: 'Page number, from 1' },
    ...(names.page === 'pageNumber'
      ? []
      : [{ name: 'pageNumber', in: 'query' as const, required: false, schema: { type: 'integer', minimum: 1, maximum: 1_000_000 }, description: `Another name for \`${names.page}\` (SPEC's generic one); both given with different values is a 400` }]),
    { name: names.size, in: 'query', 'x-paging': 'size', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: spec.defaultPageSize ?? 25 }, description: 'Rows per page' },
    { name: names.sortOn, in: 'query', 'x-paging': 'sortOn', required: false, schema: { type: 'string', enum: Object.keys(spec.sorts), default: spec.defaultSort }, description: 'Sort field (case-insensitive)' },
    { name: names.sortDirection, in: 'query', 'x-paging': 'sortDirection', required: false, schema: { type: 'string', enum: ['asc', 'desc'], default: spec.defaultDirection ?? 'asc' } },
    {
      name: 'filters',
      in: 'query',
      'x-paging': 'filters',
      required: false,
      schema: { type: 'string', maxLength: 4000 },
      description: `JSON array of \`{ "field", "operator", "value" }\` (or qs bracket form \`filters[0][field]=…\`), all must hold. Fields: ${fields || 'none'}. Operators: ${ops.join(', ')} (text operators on text fields only).`,
      example: JSON.stringify([{ field: Object.keys(spec.filters)[0] ?? 'name', operator: 'contains', value: 'a' }]),
    } as Param,
  ];
  // A list without filterable fields takes no filters.
  return Object.keys(spec.filters).length ? out : out.filter((p) => p.name !== 'filters');
}

const isError = (status: number) => status >= 400;

function responseObject(status: number, r: string | ResponseDoc, ctx: BuildContext): Json {
  const doc: ResponseDoc = typeof r === 'string' ? { description: r } : r;
  const out: Json = { description: doc.description };
  if (doc.headers) out.headers = Object.fromEntries(Object.entries(doc.headers).map(([k, h]) => [k, { description: h.description, schema: h.schema ?? { type: 'string' } }]));
  if (isError(status) && !doc.schema && !doc.mediaType) {
    out.content = { 'application/problem+json': { schema: PROBLEM_REF } };
    return out;
  }
  if (doc.empty || status === 204 || status === 304) return out;
  // A success answer described only in words: documented as JSON of any shape, flagged so test/openapi.test.ts lists it.
  if (!doc.schema && !doc.mediaType) {
    out.content = { 'application/json': { schema: {} } };
    out['x-undescribed'] = true;
    return out;
  }
  if (doc.mediaType) {
    const text = /^text\/|json|xml|csv|javascript/.test(doc.mediaType);
    const schema = text ? { type: 'string' } : { type: 'string', format: 'binary' };
    out.content = Object.fromEntries([doc.mediaType, ...(doc.alsoMediaTypes ?? [])].map((m) => [m, { schema }]));
    return out;
  }
  const media: Json = { schema: describeToJson(doc.schema!.describe(), ctx, 'response') };
  if (doc.example !== undefined) media.example = doc.example;
  out.content = { 'application/json': media, ...Object.fromEntries((doc.alsoMediaTypes ?? []).map((m) => [m, { schema: { type: 'string' } }])) };
  return out;
}

const IDEMPOTENT_REPLAYED = {
  description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key',
  schema: { type: 'string', enum: ['true'] },
};
const LOCATION_CREATED = { description: 'Where the created resource is read (a path of this API, or the page a setup created)', schema: { type: 'string', format: 'uri-reference' } };
const LOCATION_ACCEPTED = { description: 'Where the accepted work is followed: the job, delivery or approval it created', schema: { type: 'string', format: 'uri-reference' } };
const WWW_AUTHENTICATE = { description: 'The scheme to authenticate with: `Bearer`', schema: { type: 'string' } };
const ETAG_HEADER = {
  description:
    'Version of what this answer shows (not a digest of its bytes: a fresh signed URL keeps it); send it back as `If-None-Match` to get a 304 while it is unchanged, or as `If-Match` on a write of the resource',
  schema: { type: 'string' },
};
const IF_NONE_MATCH: Param = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  schema: { type: 'string' },
  description: 'An ETag of an earlier answer: 304 Not Modified (no body) while the answer is the same',
};

/**
 * Reads whose answer carries an ETag (src/http/conventions.ts conditionalReads: koa-etag tags
 * every 2xx GET body that is JSON, text or a buffer) and so may answer 304. Stored files of
 * any type ('*\/*') are streamed without one.
 */
function isConditionalRead(r: RouteDef): boolean {
  const ok = r.responses[200];
  if (r.method !== 'get' || ok === undefined) return false;
  const mediaType = typeof ok === 'string' ? undefined : ok.mediaType;
  return mediaType === undefined || /^text\/|json|javascript|application\/pdf/.test(mediaType);
}

/** Errors every route can answer besides its own list: documented once per operation so clients type them. */
function commonErrors(r: RouteDef): Record<number, string> {
  const out: Record<number, string> = {};
  if (r.body || r.query || r.paged) out[400] = 'Invalid input (problem details name each field; a JSON body field the operation does not know is one of them)';
  if (r.body) out[415] = 'The request body is in a media type this operation does not read';
  if (r.auth !== 'public') out[401] = 'Missing, invalid or revoked token or API key';
  if (r.auth !== 'public' && r.auth.length < 3) out[403] = 'The role of the token does not allow this operation';
  if (honoursIdempotencyKey(r))
    out[409] = 'The Idempotency-Key was used with another request, its answer carried a secret, or its first request is still running (Retry-After)';
  if (r.rateLimit) out[429] = 'Rate limit exceeded (Retry-After says when to try again)';
  return out;
}

/** Two paths a request could match both of: where one has a literal segment the other has a parameter, and the other way round. */
export interface AmbiguousPair {
  paths: [string, string];
  /** The parameters standing where the other path has a literal, with their schemas. */
  params: { name: string; literal: string; schema: Json }[];
}

/**
 * Pairs of document paths of the same length whose segments are each equal or a parameter on one
 * side, with a parameter on each side somewhere (what Redocly's `no-ambiguous-paths` reports):
 * `/api/organizations/{organizationId}/salesreps` and `/api/organizations/payment-terms/{paymentTermId}`
 * both read `/api/organizations/payment-terms/salesreps`. They stay unambiguous as long as one
 * parameter of the pair is a uuid: a literal segment never is one.
 */
export function ambiguousPairs(paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema?: Json }[] }>>): AmbiguousPair[] {
  const isParam = (s: string) => /^\{[^}]+\}$/.test(s);
  const keys = Object.keys(paths);
  const out: AmbiguousPair[] = [];
  for (let i = 0; i < keys.length; i++)
    for (let j = i + 1; j < keys.length; j++) {
      const a = keys[i].split('/');
      const b = keys[j].split('/');
      if (a.length !== b.length) continue;
      let aParam = false;
      let bParam = false;
      let clash = false;
      for (let k = 0; k < a.length && !clash; k++) {
        if (a[k] === b[k]) continue;
        if (isParam(a[k]) && !isParam(b[k])) aParam = true;
        else if (isParam(b[k]) && !isParam(a[k])) bParam = true;
        else if (!isParam(a[k]) || !isParam(b[k])) clash = true;
      }
      if (clash || !aParam || !bParam) continue;
      const params: AmbiguousPair['params'] = [];
      for (const [own, other, path] of [[a, b, keys[i]], [b, a, keys[j]]] as const)
        own.forEach((seg, k) => {
          if (!isParam(seg) || isParam(other[k])) return;
          const name = seg.slice(1, -1);
          const p = Object.values(paths[path]).flatMap((op) => op.parameters ?? []).find((x) => x.in === 'path' && x.name === name);
          params.push({ name, literal: other[k], schema: p?.schema ?? {} });
        });
      out.push({ paths: [keys[i], keys[j]], params });
    }
  return out;
}

/** The document's words on each ambiguous pair: why a request still reaches one operation only. */
function ambiguityNote(pairs: AmbiguousPair[]): string {
  if (!pairs.length) return '';
  const lines = pairs.map((p) => {
    const uuids = p.params.filter((x) => x.schema.format === 'uuid').map((x) => `\`{${x.name}}\` is a uuid, never \`${x.literal}\``);
    return `- \`${p.paths[0]}\` and \`${p.paths[1]}\`: ${uuids.length ? uuids.join('; ') : 'NOT resolved by a uuid parameter'}.`;
  });
  return `\n\nPaths that differ only where one has a parameter and the other a literal segment (tools such as Redocly call them ambiguous) are told apart by the parameter's format: a literal segment is never a uuid, so a request naming real ids matches one operation only (the router tries the literal segment first, and a literal in a uuid's place is a 404).\n${lines.join('\n')}`;
}

/** A server of the document: its URL and which deployment it is. */
export interface ServerEntry {
  url: string;
  description: string;
  'x-environment': 'production' | 'sandbox';
}

/**
 * The document's `servers`: the API that serves it first (tools call the first by default), then
 * the deployment's other environment when configured, so an integrator finds the sandbox base URL.
 */
export function serversOf(self: { url: string; environment: 'production' | 'sandbox' }, others: { production?: string; sandbox?: string }): ServerEntry[] {
  const describe = (env: 'production' | 'sandbox', url: string, own: boolean): ServerEntry => ({
    url,
    description:
      env === 'sandbox'
        ? `Sandbox${own ? ' (this server)' : ''}: the same API with its own data, credentials and signing key, and the payment provider's test cards; nothing is charged or shipped`
        : `Production${own ? ' (this server)' : ''}`,
    'x-environment': env,
  });
  const out = [describe(self.environment, self.url, true)];
  for (const env of ['production', 'sandbox'] as const) {
    const url = others[env];
    if (url && env !== self.environment && url !== self.url) out.push(describe(env, url, false));
  }
  return out;
}

export function buildOpenApi(routes: RouteDef[], info: { title: string; version: string; servers: ServerEntry[] | string[] }): Json {
  const ctx: BuildContext = { components: { Problem: PROBLEM_SCHEMA } };
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const path = toOpenApiPath(r.path);
    const params: Param[] = [...r.path.matchAll(/:(\w+)/g)].map((m) => {
      const p = r.pathParams?.[m[1]] ?? PATH_PARAMETERS[m[1]] ?? { description: m[1], schema: { type: 'string' } };
      return { name: m[1], in: 'path', required: true, schema: p.schema, description: p.description };
    });
    if (r.paged) params.push(...pagingParameters(r.paged));
    if (r.query) {
      const q = describeToJson(r.query.describe(), ctx, 'request') as { properties?: Record<string, Json>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        if (params.some((p) => p.name.toLowerCase() === name.toLowerCase() && p.in === 'query')) continue;
        const { description, ...rest } = schema as Json & { description?: string };
        params.push({ name, in: 'query', required: (q.required ?? []).includes(name), schema: rest, ...(description ? { description } : {}) });
      }
    }
    for (const [name, p] of Object.entries(r.queryParams ?? {})) {
      if (!params.some((x) => x.name === name && x.in === 'query')) params.push({ name, in: 'query', required: p.required ?? false, schema: p.schema, description: p.description });
    }
    if (honoursIdempotencyKey(r))
      params.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', maxLength: 200 },
        description: r.answersSecret
          ? 'The answer carries a secret or token and is never stored: the first request with a key runs, a repeated key is a 409 (send a new key to ask again).'
          : 'The first 2xx answer for this key is stored and replayed (with `Idempotent-Replayed: true`) when the same key comes with the same request; the same key with another body is a 409, and while the first request still runs a 409 with Retry-After.',
      });
    const resource = resourceReadOf(r, routes);
    if (resource) {
      params.push({
        name: 'If-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: `The ETag of \`GET ${toOpenApiPath(resource.get.path)}\` as read before this change: the change runs only while it is still the current version, else 412 naming the current ETag (lost updates). \`*\` asks only that the resource exists. A weak prefix and an encoding suffix (\`-gzip\`) are ignored.`,
      });
      if (resource.creates)
        params.push({ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string', enum: ['*'] }, description: '`*`: create only; 412 when the resource already exists.' });
    }
    const responses: Record<string, Json> = {};
    const preconditions: Record<number, string> = resource ? { 412: 'If-Match names another version than the current one (the `ETag` header names it), or If-None-Match: * found the resource already there' } : {};
    const all: Record<number, string | ResponseDoc> = { ...commonErrors(r), ...preconditions, ...r.responses };
    const conditional = isConditionalRead(r);
    if (conditional) all[304] ??= { description: 'Not Modified: `If-None-Match` named the current ETag; no body', empty: true, headers: { ETag: ETAG_HEADER } };
    for (const [status, resp] of Object.entries(all).sort(([a], [b]) => Number(a) - Number(b))) responses[status] = responseObject(Number(status), resp, ctx);
    // Every 201 names the created resource and every 202 where to follow the accepted work (route.ts created(), accepted()).
    for (const status of ['201', '202']) {
      const doc = all[Number(status)];
      if (!responses[status] || (typeof doc === 'object' && doc.noLocation)) continue;
      const headers = (responses[status].headers as Json | undefined) ?? {};
      if (!headers.Location) responses[status].headers = { ...headers, Location: status === '201' ? LOCATION_CREATED : LOCATION_ACCEPTED };
    }
    if (honoursIdempotencyKey(r))
      for (const [status, resp] of Object.entries(responses))
        if (Number(status) >= 200 && Number(status) < 300)
          resp.headers = { ...((resp.headers as Json | undefined) ?? {}), 'Idempotent-Replayed': IDEMPOTENT_REPLAYED };
    if (responses['401']) responses['401'].headers = { 'WWW-Authenticate': WWW_AUTHENTICATE, ...((responses['401'].headers as Json | undefined) ?? {}) };
    if (conditional)
      responses['200'].headers = {
        ETag: { description: ETAG_HEADER.description, schema: ETAG_HEADER.schema },
        ...((responses['200'].headers as Json | undefined) ?? {}),
      };
    if (conditional) params.push(IF_NONE_MATCH);
    responses.default = { description: 'Any other error, as problem details', content: { 'application/problem+json': { schema: PROBLEM_REF } } };
    const { summary, detail } = splitSummary(r.summary);
    const description = [detail, r.description].filter(Boolean).join('\n\n');
    const op: Json = {
      operationId: r.operationId,
      summary,
      ...(description ? { description } : {}),
      tags: [r.tag],
      parameters: params,
      responses,
      security: r.auth === 'public' ? [] : [{ bearer: [] }, { apiKey: [] }],
      'x-roles': r.auth === 'public' ? [] : [...r.auth],
      ...(r.rateLimit ? { 'x-rate-limit': r.rateLimit.scope } : {}),
      ...(honoursIdempotencyKey(r) ? { 'x-idempotency-key': r.answersSecret ? 'not-stored' : 'replayed' } : {}),
    };
    if (r.body) {
      const kind = r.bodyKind ?? 'json';
      const mimes = kind === 'json' ? ['application/json'] : kind === 'form' ? ['application/x-www-form-urlencoded'] : kind === 'json-or-multipart' ? ['application/json', 'multipart/form-data'] : ['multipart/form-data'];
      const schema = describeToJson((r.body as AnySchema).describe(), ctx, 'request');
      op.requestBody = { required: true, content: Object.fromEntries(mimes.map((m) => [m, { schema, ...(r.requestExample !== undefined && m === 'application/json' ? { example: r.requestExample } : {}) }])) };
    }
    (paths[path] ??= {})[r.method] = op;
  }
  const ambiguity = ambiguityNote(ambiguousPairs(paths as Parameters<typeof ambiguousPairs>[0]));
  const usedTags = new Set(routes.map((r) => r.tag));
  const tags = [...TAGS.filter((t) => usedTags.has(t.name)), ...[...usedTags].filter((t) => !TAGS.some((x) => x.name === t)).map((name) => ({ name }))];
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description:
        "Multi-tenant B2B commerce API. Authenticate with `POST /api/auth/login` (client credentials) or `POST /api/auth/token` (e-mail and password) and send the `AccessToken` as `Authorization: Bearer`, or send an API key as `x-api-key`. Another organization's data answers 404. Errors are `application/problem+json` (components/schemas/Problem); a 401 carries `WWW-Authenticate: Bearer`. A JSON body may carry only the fields its operation declares, plus the read-only fields its resource's GET answers (a GET-modify-PUT round trip); another field is a 400 naming it, and a body in another media type is a 415. An answer without a body is `Content-Length: 0` with no `Content-Type`. Every POST, PUT and PATCH of an authenticated caller honours an `Idempotency-Key` header (replay with `Idempotent-Replayed: true`; another body with the same key is a 409)." + ambiguity,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: info.servers.map((s) => (typeof s === 'string' ? { url: s } : s)),
    tags,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from /api/auth/login or /api/auth/token' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Access token or static API key' },
      },
      schemas: Object.fromEntries(Object.entries(ctx.components).sort(([a], [b]) => a.localeCompare(b))),
    },
    paths,
  };
}
