/**
 * Reading a submitted input (CSV with a header row, NDJSON/JSONL, or a JSON array) as records,
 * each with its 1-based record number, in batches of CHUNK_SIZE.
 */
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { CHUNK_SIZE, csvRowToRecord, type ImportKindName } from '../../domain/imports/records.js';
import type { ImportFormat } from '../../entities/ImportJob.js';
import type { ChunkRecord } from './types.js';

export class InputError extends Error {}

/** The format named by a file name or content type, else sniffed from the first character. */
export function detectFormat(fileName: string | null | undefined, head: Buffer): ImportFormat {
  const name = (fileName ?? '').toLowerCase();
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.ndjson') || name.endsWith('.jsonl')) return 'ndjson';
  if (name.endsWith('.json')) return 'json';
  const first = head.toString('utf8', 0, Math.min(head.length, 4096)).replace(/^\uFEFF/, '').trimStart()[0];
  if (first === '[') return 'json';
  if (first === '{') return 'ndjson';
  return 'csv';
}

/** Yields the input's records in batches of `size`; the CSV header comes first through `onColumns`. */
export async function* readRecords(
  kind: ImportKindName,
  format: ImportFormat,
  data: Buffer,
  onColumns: (cols: string[]) => void,
  size = CHUNK_SIZE,
): AsyncGenerator<ChunkRecord[]> {
  let batch: ChunkRecord[] = [];
  let n = 0;
  const push = (rec: ChunkRecord) => {
    batch.push(rec);
    if (batch.length >= size) {
      const out = batch;
      batch = [];
      return out;
    }
    return null;
  };
  if (format === 'csv') {
    const parser = Readable.from([data]).pipe(
      parse({
        bom: true,
        columns: (header: string[]) => {
          const cols = header.map((h) => h.trim());
          onColumns(cols);
          return cols;
        },
        skip_empty_lines: true,
        relax_column_count: true,
      }),
    );
    try {
      for await (const row of parser as AsyncIterable<Record<string, string>>) {
        n += 1;
        const full = push({ n, data: csvRowToRecord(kind, row), source: row });
        if (full) yield full;
      }
    } catch (e) {
      throw new InputError(`The CSV could not be read after record ${n}: ${(e as Error).message}`);
    }
  } else if (format === 'ndjson') {
    const text = data.toString('utf8').replace(/^\uFEFF/, '');
    for (const line of text.split(/\r?\n/)) {
      if (!line.trim()) continue;
      n += 1;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = `not JSON: ${line.slice(0, 100)}`;
      }
      const full = push({ n, data: value, source: null });
      if (full) yield full;
    }
  } else {
    let value: unknown;
    try {
      value = JSON.parse(data.toString('utf8').replace(/^\uFEFF/, ''));
    } catch (e) {
      throw new InputError(`The file is not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(value)) throw new InputError('A JSON file must hold an array of records.');
    for (const v of value) {
      n += 1;
      const full = push({ n, data: v, source: null });
      if (full) yield full;
    }
  }
  if (batch.length) yield batch;
}
