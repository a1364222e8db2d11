import type { FieldErrors } from '../../errors.js';
import type { JsonRecord } from '../../domain/imports/records.js';
import type { Sql } from './sql.js';

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
}

/** Applies the records of one chunk set-based: a few statements for the whole chunk. */
export type ChunkApplier = (ctx: ApplyContext, records: ChunkRecord[]) => Promise<ChunkOutcome>;
