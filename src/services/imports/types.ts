import type { FieldErrors } from '../../errors.js';
import type { JsonRecord } from '../../domain/imports/records.js';
import type { Sql } from '../../db/sql.js';
import type { InvoiceState, NewInvoice } from '../invoices/invoices.js';

/** One record of a chunk: its 1-based number in the input, the record, and (CSV) its columns. */
export interface ChunkRecord {
  n: number;
  data: unknown;
  /** CSV columns as submitted; null for JSON input (the record itself is the source). */
  source: JsonRecord | null;
}

export interface RecordFailure {
  n: number;
  errors: FieldErrors;
  /** Why, when it is not bad input: the key names a record the caller may not see (404), or the caller may not write this (403). */
  kind?: 'not_found' | 'forbidden';
}

export interface ChunkOutcome {
  created: number;
  updated: number;
  unchanged: number;
  failures: RecordFailure[];
  /** Written records' id and number (orders, invoices; apply only), for the synchronous bulk endpoints' answers. */
  refs?: { n: number; id: string; number: string }[];
}

export interface ApplyContext {
  sql: Sql;
  orgId: string;
  /** false: check only (validate mode, or the first pass of onError abort): nothing is written. */
  write: boolean;
  /** Who writes, when it is not an Admin: the synchronous bulk endpoints called by a SalesRep. Import jobs are Admin only. */
  caller?: WriteScope;
}

/**
 * A caller limited to some customers (DESIGN "Security decisions"): a natural key finds a stored
 * record only when its customer is one of `customers` (else the row fails 404 and nothing
 * changes); a record for another customer fails 403; the rep rules of finding 6 apply.
 */
export interface WriteScope {
  /** Customer numbers the caller may see (src/services/customers/visibility.ts). */
  customers: ReadonlySet<string>;
  /** Ids of those customers: a stored record is visible only when it belongs to one of them (never by its number alone). */
  customerIds: ReadonlySet<string>;
  /** The caller's rep number (a SalesRep), else null. */
  repNumber: string | null;
  /** Rewrites an invoice record the way the caller may write it (lines priced from the catalog); `stored` is the matched invoice, if any. */
  priceInvoice?: (value: NewInvoice, stored: InvoiceState | null) => Promise<NewInvoice>;
}

/** Applies the records of one chunk set-based: a few statements for the whole chunk. */
export type ChunkApplier = (ctx: ApplyContext, records: ChunkRecord[]) => Promise<ChunkOutcome>;
