/**
 * The one way to page, sort and filter (SPEC conventions 7-9). A list endpoint declares
 * its filterable and sortable fields; `parseList` turns the query (JSON-array or qs
 * bracket `filters`) into a MikroORM where/orderBy/limit/offset, rejecting unknown
 * fields, operators and oversized pages with a 400. Envelopes come in SPEC's three shapes.
 */
import { AppError, type FieldErrors } from '../errors.js';
import { checkInput, MAX_QUERY_STRING } from './input-guard.js';

export const MAX_PAGE_SIZE = 500;
const MAX_FILTERS = 50;
const TEXT_OPS = ['startswith', 'contains', 'notcontains', 'endswith', 'equals', 'notequals'] as const;
const COMPARE_OPS = ['gt', 'gte', 'lt', 'lte'] as const;
export type FilterOp = (typeof TEXT_OPS)[number] | (typeof COMPARE_OPS)[number];

export interface FieldSpec {
  /** Entity property path, e.g. 'companyName' or 'customer.customerNumber'. */
  prop: string;
  type: 'string' | 'number' | 'boolean' | 'date' | 'uuid';
}

export interface ListSpec {
  filters: Record<string, FieldSpec>;
  sorts: Record<string, string>;
  defaultSort: string;
  /** Direction without sortDirection; asc unless stated (newest-first logs say desc). */
  defaultDirection?: 'asc' | 'desc';
  defaultPageSize?: number;
  /** Whether gt/gte/lt/lte are accepted (customers, organization associations). */
  comparisons?: boolean;
  /** Query parameter names; SPEC conventions by default. */
  names?: { page?: string; size?: string; sortOn?: string; sortDirection?: string };
}

export interface ListQuery {
  page: number;
  pageSize: number;
  offset: number;
  where: Record<string, unknown>;
  orderBy: Record<string, unknown>;
}

interface RawFilter {
  field?: unknown;
  operator?: unknown;
  value?: unknown;
}

const lower = (s: string) => s.toLowerCase();
/** Escapes LIKE wildcards so `%` and `_` in user input match literally. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): Record<string, unknown> {
  const parts = dotted.split('.');
  const root: Record<string, unknown> = {};
  let cur = root;
  parts.forEach((p, i) => {
    if (i === parts.length - 1) cur[p] = value;
    else cur = cur[p] = {} as Record<string, unknown>;
  });
  return Object.assign(target, root);
}

function readFilters(raw: unknown, errors: FieldErrors): RawFilter[] {
  if (raw === undefined || raw === '') return [];
  let value: unknown = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      errors.filters = ['filters must be a JSON array of {field, operator, value} or qs bracket form.'];
      return [];
    }
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) value = Object.values(value);
  if (!Array.isArray(value)) {
    errors.filters = ['filters must be an array.'];
    return [];
  }
  if (value.length > MAX_FILTERS) {
    errors.filters = [`filters may hold at most ${MAX_FILTERS} conditions.`];
    return [];
  }
  // A JSON-array filter is parsed here, after the query-string check: apply the same limits.
  const bad = checkInput(value, { maxString: MAX_QUERY_STRING, root: 'filters' });
  if (bad) {
    Object.assign(errors, Object.fromEntries(Object.entries(bad).map(([k, v]) => [k.startsWith('filters') ? k : `filters${k.startsWith('[') ? '' : '.'}${k}`, v])));
    return [];
  }
  return value as RawFilter[];
}

function coerce(spec: FieldSpec, v: unknown, label: string, errors: FieldErrors): unknown {
  const s = typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
  switch (spec.type) {
    case 'number': {
      const n = Number(s);
      if (s === '' || !Number.isFinite(n)) (errors[label] ??= []).push('value must be a number.');
      else if (Math.abs(n) > 1e15) (errors[label] ??= []).push('value must be between -1e15 and 1e15.');
      return n;
    }
    case 'uuid':
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) (errors[label] ??= []).push('value must be a valid id (UUID).');
      return s;
    case 'boolean':
      if (!['true', 'false'].includes(s.toLowerCase())) (errors[label] ??= []).push('value must be true or false.');
      return s.toLowerCase() === 'true';
    case 'date': {
      const d = new Date(s);
      if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) (errors[label] ??= []).push('value must be an ISO 8601 date.');
      return d;
    }
    default:
      return s;
  }
}

function condition(spec: FieldSpec, op: FilterOp, value: unknown): Record<string, unknown> {
  if (spec.type === 'string' && TEXT_OPS.includes(op as (typeof TEXT_OPS)[number])) {
    const v = escapeLike(String(value));
    switch (op) {
      case 'startswith':
        return { $ilike: `${v}%` };
      case 'endswith':
        return { $ilike: `%${v}` };
      case 'contains':
        return { $ilike: `%${v}%` };
      case 'notcontains':
        return { $not: { $ilike: `%${v}%` } };
      case 'equals':
        return { $ilike: v };
      case 'notequals':
        return { $not: { $ilike: v } };
    }
  }
  const map: Record<string, string> = { equals: '$eq', notequals: '$ne', gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' };
  return { [map[op] ?? '$eq']: value };
}

/**
 * The page number: `pageNumber`, SPEC's generic name, is accepted on every list; a list whose SPEC
 * name differs (`page` for invoices) takes either, and both given with different values is a 400.
 */
function pageOf(name: string, int: (name: string, dflt: number, max?: number) => number, get: (name: string) => unknown, errors: FieldErrors): number {
  const page = int(name, 1, 1_000_000);
  if (name === 'pageNumber' || get('pageNumber') === undefined || get('pageNumber') === '') return page;
  const generic = int('pageNumber', 1, 1_000_000);
  if (get(name) === undefined || get(name) === '') return generic;
  if (generic !== page && !errors[name] && !errors.pageNumber) errors.pageNumber = [`pageNumber (${generic}) and ${name} (${page}) name different pages: give one of them.`];
  return page;
}

/** Parses paging, sorting and filters; throws one 400 naming every bad parameter. */
export function parseList(query: Record<string, unknown>, spec: ListSpec): ListQuery {
  const names = { page: 'pageNumber', size: 'pageSize', sortOn: 'sortOn', sortDirection: 'sortDirection', ...spec.names };
  const errors: FieldErrors = {};
  const get = (name: string): unknown => {
    const key = Object.keys(query).find((k) => lower(k) === lower(name));
    return key === undefined ? undefined : query[key];
  };
  const int = (name: string, dflt: number, max?: number): number => {
    const raw = get(name);
    if (raw === undefined || raw === '') return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) {
      errors[name] = [`${name} must be a whole number of at least 1.`];
      return dflt;
    }
    if (max !== undefined && n > max) {
      errors[name] = [`${name} must be at most ${max}.`];
      return dflt;
    }
    return n;
  };
  const page = pageOf(names.page, int, get, errors);
  const pageSize = int(names.size, spec.defaultPageSize ?? 25, MAX_PAGE_SIZE);

  const sortRaw = get(names.sortOn);
  const sortKey = typeof sortRaw === 'string' && sortRaw !== '' ? sortRaw : spec.defaultSort;
  const sortName = Object.keys(spec.sorts).find((k) => lower(k) === lower(sortKey));
  if (!sortName) errors[names.sortOn] = [`sortOn must be one of: ${Object.keys(spec.sorts).join(', ')}.`];
  const dirRaw = get(names.sortDirection);
  const dir = dirRaw === undefined || dirRaw === '' ? (spec.defaultDirection ?? 'asc') : String(dirRaw).toLowerCase();
  if (dir !== 'asc' && dir !== 'desc') errors[names.sortDirection] = ['sortDirection must be asc or desc.'];

  const where: Record<string, unknown> = {};
  const and: Record<string, unknown>[] = [];
  const allowed: string[] = [...TEXT_OPS, ...(spec.comparisons ? COMPARE_OPS : [])];
  readFilters(get('filters'), errors).forEach((f, i) => {
    const label = `filters[${i}]`;
    if (!f || typeof f !== 'object') {
      errors[label] = ['each filter must be an object with field, operator and value.'];
      return;
    }
    const fieldName = Object.keys(spec.filters).find((k) => lower(k) === lower(String(f.field ?? '')));
    const op = String(f.operator ?? '').toLowerCase() as FilterOp;
    if (!fieldName) (errors[`${label}.field`] ??= []).push(`field must be one of: ${Object.keys(spec.filters).join(', ')}.`);
    if (!allowed.includes(op)) (errors[`${label}.operator`] ??= []).push(`operator must be one of: ${allowed.join(', ')}.`);
    if (!fieldName || !allowed.includes(op)) return;
    const fs = spec.filters[fieldName];
    if (fs.type !== 'string' && ['startswith', 'endswith', 'contains', 'notcontains'].includes(op))
      (errors[`${label}.operator`] ??= []).push(`operator ${op} applies to text fields only.`);
    const value = coerce(fs, f.value, `${label}.value`, errors);
    const cond = condition(fs, op, value);
    // MikroORM renders a field-level { $not: { $ilike } } as invalid SQL; negate the whole condition instead.
    and.push('$not' in cond ? { $not: setPath({}, fs.prop, cond.$not) } : setPath({}, fs.prop, cond));
  });
  if (Object.keys(errors).length) throw AppError.validation(errors, 'Invalid paging, sorting or filter parameters.');
  if (and.length) where.$and = and;
  const orderBy = setPath({}, spec.sorts[sortName!], dir);
  const list: ListQuery = { page, pageSize, offset: (page - 1) * pageSize, where, orderBy };
  pageParamOf.set(list, names.page);
  return list;
}

/** The page of a paged answer, for its RFC 8288 `Link` header (see pagingOf). */
export interface PageInfo {
  page: number;
  pageSize: number;
  total: number;
  /** The query parameter that selects the page (`pageNumber`, or `page` for invoices). */
  pageParam: string;
}

/** The page query parameter each ListQuery was read with (kept out of ListQuery so its shape stays SPEC's). */
const pageParamOf = new WeakMap<ListQuery, string>();
/** Every envelope built below remembers its page, so the app can add `Link` headers without each route doing it. */
const pageInfoOf = new WeakMap<object, PageInfo>();

function remember<T extends object>(envelope: T, total: number, q: ListQuery): T {
  pageInfoOf.set(envelope, { page: q.page, pageSize: q.pageSize, total, pageParam: pageParamOf.get(q) ?? 'pageNumber' });
  return envelope;
}

/** The page an envelope answers, when it was built by one of the envelope functions of this module. */
export function pagingOf(body: unknown): PageInfo | undefined {
  return body && typeof body === 'object' ? pageInfoOf.get(body) : undefined;
}

/**
 * RFC 8288 `Link` header of a paged answer: first, prev, next and last pages, as the request's own
 * path and query with only the page parameter changed (relative references, resolved against the
 * request URL). Empty when there is one page or none.
 */
export function linkHeader(path: string, querystring: string, info: PageInfo): string {
  const last = Math.max(1, Math.ceil(info.total / info.pageSize));
  const target = (page: number) => {
    const params = new URLSearchParams(querystring);
    for (const k of [...params.keys()]) if (k.toLowerCase() === info.pageParam.toLowerCase()) params.delete(k);
    params.set(info.pageParam, String(page));
    return `<${path}?${params.toString()}>`;
  };
  const links: string[] = [`${target(1)}; rel="first"`];
  if (info.page > 1) links.push(`${target(Math.min(info.page - 1, last))}; rel="prev"`);
  if (info.page < last) links.push(`${target(info.page + 1)}; rel="next"`);
  links.push(`${target(last)}; rel="last"`);
  return links.join(', ');
}

const totalPages = (total: number, size: number) => (total === 0 ? 0 : Math.ceil(total / size));

/** Products, customers, images, carts. */
export function dataEnvelope<T>(rows: T[], total: number, q: ListQuery, withPageSize = false) {
  return remember({ data: rows, totalRecords: total, currentPage: q.page, totalPages: totalPages(total, q.pageSize), ...(withPageSize ? { pageSize: q.pageSize } : {}) }, total, q);
}

/** Invoices. */
export function itemsEnvelope<T>(rows: T[], total: number, q: ListQuery) {
  return remember({ items: rows, totalCount: total, pageNumber: q.page, pageSize: q.pageSize, totalPages: totalPages(total, q.pageSize) }, total, q);
}

/** The generic PascalCase form. */
export function genericEnvelope<T>(rows: T[], total: number, q: ListQuery) {
  return remember({ Data: rows, TotalCount: total, PageNumber: q.page, PageSize: q.pageSize }, total, q);
}

/**
 * The `after` keyset parameter (case-insensitive name): the key of the last row of the previous
 * page, for lists sorted by that unique key. Null when absent or empty; 400 naming `after` when it
 * is not a string of at most 100 characters or the list is sorted by something else. `desc` tells
 * which side of the key the next page lies on.
 */
export function parseAfter(
  query: Record<string, unknown>,
  q: ListQuery,
  key: { prop: string; what: string; by: string; sortHint: string },
): { value: string; desc: boolean } | null {
  const name = Object.keys(query).find((k) => k.toLowerCase() === 'after');
  const raw = name === undefined ? undefined : query[name];
  if (raw === undefined || raw === '') return null;
  const errors: FieldErrors = {};
  if (typeof raw !== 'string' || raw.length > 100) errors.after = [`after must be ${key.what} (at most 100 characters).`];
  else if (!(key.prop in q.orderBy)) errors.after = [`after pages by ${key.by}: use it with ${key.sortHint}.`];
  if (Object.keys(errors).length) throw AppError.validation(errors, 'Invalid paging, sorting or filter parameters.');
  return { value: raw as string, desc: String(q.orderBy[key.prop]).toLowerCase() === 'desc' };
}
