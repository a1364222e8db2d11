/**
 * Pure import rules: turning a CSV row into the record of the single-record endpoint (dotted
 * names, `price:<Tier>[@<atQuantity>]`, `attr:<name>`, empty cell = absent), record keys for
 * the error report, chunking, and the error CSV. No ORM, no Koa, no Temporal.
 */
import type { FieldErrors } from '../../errors.js';
import { toCsv } from '../csv.js';

export type ImportKindName = 'customers' | 'products' | 'prices' | 'orders' | 'invoices' | 'user-customer-links' | 'inventory' | 'catalog-assignments' | 'price-lists';

/** Records per chunk: one activity and one transaction each. */
export const CHUNK_SIZE = 1000;

export type JsonRecord = Record<string, unknown>;

const PRICE_COL = /^price:(.+?)(?:@(\d+))?$/i;
const ATTR_COL = /^attr:(.+)$/i;

function setDotted(target: JsonRecord, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let cur: Record<string, unknown> | unknown[] = target;
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]);
    const key: string | number = Array.isArray(cur) && /^\d+$/.test(part) ? Number(part) : part;
    const holder = cur as Record<string | number, unknown>;
    if (last) {
      holder[key] = value;
      return;
    }
    if (holder[key] === undefined || holder[key] === null || typeof holder[key] !== 'object') holder[key] = nextIsIndex ? [] : {};
    cur = holder[key] as Record<string, unknown> | unknown[];
  });
}

/** Removes holes left by sparse array indices (e.g. addresses.1 without addresses.0). */
function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(compact);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as JsonRecord).map(([k, x]) => [k, compact(x)]));
  return v;
}

/**
 * One CSV data row (header -> cell) to a record. Empty cells are absent. `price:<Tier>` and
 * `price:<Tier>@<n>` columns become `prices` entries (atQuantity 1 or n); `attr:<name>` columns
 * become `productAttributes` (products) or `customerAttributes` (customers). Values stay strings;
 * the kind's yup schema coerces them ("12" -> 12, "true" -> true).
 */
export function csvRowToRecord(kind: ImportKindName, row: Record<string, string | undefined>): JsonRecord {
  const out: JsonRecord = {};
  const prices: { tier: string; price: string; atQuantity: string }[] = [];
  const attrs: Record<string, string> = {};
  for (const [rawHeader, rawValue] of Object.entries(row)) {
    const header = rawHeader.trim();
    if (!header || rawValue === undefined || rawValue === '') continue;
    const price = PRICE_COL.exec(header);
    if (price) {
      prices.push({ tier: price[1].trim(), price: rawValue.trim(), atQuantity: price[2] ?? '1' });
      continue;
    }
    const attr = ATTR_COL.exec(header);
    if (attr) {
      attrs[attr[1].trim()] = rawValue;
      continue;
    }
    setDotted(out, header, rawValue);
  }
  if (prices.length) out.prices = [...(Array.isArray(out.prices) ? (out.prices as unknown[]) : []), ...prices];
  if (Object.keys(attrs).length) {
    const field = kind === 'customers' ? 'customerAttributes' : 'productAttributes';
    out[field] = { ...(typeof out[field] === 'object' && out[field] ? (out[field] as JsonRecord) : {}), ...attrs };
  }
  return compact(out) as JsonRecord;
}

/** At most this many distinct unknown fields or columns are listed on a job (a bounded row, whatever the input). */
export const MAX_IMPORT_WARNINGS = 100;

/**
 * A field of JSON records, or a CSV column, that the kind does not know: ignored on every record
 * (the rest of the record is imported) and listed once on the job. `count` is how many records
 * carried it (a CSV column: how many rows had a non-empty cell), `firstRecord` the first of them
 * (1-based, as in the error report; null for a CSV column whose cells are all empty).
 */
export interface ImportWarning {
  field: string;
  message: string;
  count: number;
  firstRecord: number | null;
}

/** `addresses[3].postCode` -> `addresses[].postCode`: one warning for a field whatever the element. */
export const warningField = (path: string) => path.replace(/\[\d+\]/g, '[]');

/** Collects the unknown fields and columns of a job's records, each once, in the order first seen. */
export class WarningTally {
  private readonly seen = new Map<string, { column: boolean; count: number; firstRecord: number | null }>();

  constructor(private readonly kind: ImportKindName) {}

  /** A CSV column the kind does not know, listed even if none of its cells has a value. */
  column(name: string): void {
    if (!this.seen.has(name) && this.seen.size < MAX_IMPORT_WARNINGS) this.seen.set(name, { column: true, count: 0, firstRecord: null });
  }

  /** Record `n` carried the unknown field (or a value in the unknown column) `field`. */
  add(field: string, n: number, column = false): void {
    let w = this.seen.get(field);
    if (!w) {
      if (this.seen.size >= MAX_IMPORT_WARNINGS) return;
      this.seen.set(field, (w = { column, count: 0, firstRecord: null }));
    }
    w.count += 1;
    if (w.firstRecord === null || n < w.firstRecord) w.firstRecord = n;
  }

  list(): ImportWarning[] {
    return [...this.seen].map(([field, w]) => ({
      field,
      message: w.column
        ? `${field} is not a column of ${this.kind} imports; its cells were ignored.`
        : `${field} is not a field of ${this.kind} records; it was ignored.`,
      count: w.count,
      firstRecord: w.firstRecord,
    }));
  }
}

/** The record's key for the report: its externalId, else its natural key. */
export function recordKey(kind: ImportKindName, record: unknown): string | null {
  if (!record || typeof record !== 'object') return null;
  const r = record as JsonRecord;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : typeof v === 'number' ? String(v) : null);
  const ext = str(r.externalId);
  if (ext) return ext;
  switch (kind) {
    case 'products':
    case 'prices':
      return str(r.sku);
    case 'customers':
      return str(r.customerNumber);
    case 'orders':
      return str(r.orderNumber);
    case 'invoices':
      return str(r.invoiceNumber);
    case 'inventory':
      return str(r.sku) && str(r.location) ? `${str(r.sku)}@${str(r.location)}` : str(r.sku);
    case 'catalog-assignments':
      return str(r.catalog) ? `${str(r.catalog)}:${str(r.customerNumber) ?? `tier:${str(r.priceTier) ?? ''}`}` : null;
    case 'price-lists':
      return str(r.priceList) && str(r.sku) ? `${str(r.priceList)}:${str(r.sku)}@${str(r.atQuantity) ?? '1'}` : null;
    case 'user-customer-links':
      return str(r.UserId) && str(r.CustomerNumber) ? `${str(r.UserId)}:${str(r.CustomerNumber)}` : null;
  }
}

export interface RecordError {
  field: string;
  message: string;
}

/** Field errors (field -> messages) as report entries, one per field ('$' = the record itself). */
export function toRecordErrors(errors: FieldErrors): RecordError[] {
  return Object.entries(errors).map(([field, messages]) => ({ field, message: messages.join(' ') }));
}

/** Splits `total` records into chunk index ranges of `size`. */
export function chunkCount(total: number, size = CHUNK_SIZE): number {
  return Math.ceil(total / size);
}

export interface FailedRecord {
  record: number;
  /** The record as submitted: CSV columns, or a JSON record. */
  source: JsonRecord;
  errors: RecordError[];
}

/**
 * The error CSV: the failed records with their original columns plus `error_field` and
 * `error_message` (several failing fields of one record are joined with "; "), ready to fix
 * and resubmit. For JSON input the columns are the records' top-level fields. Written by the one
 * CSV writer (src/domain/csv.ts): a cell starting with =, +, -, @ comes back prefixed with '.
 */
export function errorCsv(columns: string[] | null, failed: FailedRecord[]): string {
  const cols = columns ?? [...new Set(failed.flatMap((f) => Object.keys(f.source)))];
  const rows: unknown[][] = [[...cols, 'error_field', 'error_message']];
  for (const f of failed) {
    const fields = f.errors.map((e) => e.field).join('; ');
    const messages = f.errors.map((e) => (f.errors.length > 1 ? `${e.field}: ${e.message}` : e.message)).join('; ');
    rows.push([...cols.map((c) => f.source[c]), fields, messages]);
  }
  return toCsv(rows);
}
