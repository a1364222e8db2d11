/**
 * The one CSV writer of the service (DESIGN "Security decisions": every CSV the service writes
 * neutralises cells starting with `=`, `+`, `-`, `@`). csv-stringify quotes per RFC 4180 with
 * CRLF line ends; a cast turns every value into text and prefixes a formula-looking cell with
 * `'` so a spreadsheet shows it instead of running it. Plain numbers (`-12.50`) stay numbers.
 * Used by import error reports and the commission payroll CSV; write any new CSV through it.
 */
import { stringify } from 'csv-stringify/sync';

/** Characters a spreadsheet treats as the start of a formula (tab and CR too: some trim them first). */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** A cell's text, neutralised when a spreadsheet would read it as a formula. */
export function safeCell(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** Rows (header first) as a CSV document: RFC 4180 quoting, CRLF line ends, formula cells neutralised. */
export function toCsv(rows: readonly (readonly unknown[])[]): string {
  return stringify(
    rows.map((r) => [...r]),
    {
      record_delimiter: 'windows',
      // Quote any field holding CR or LF (off by default once record_delimiter is set).
      quote_record_delimiter: true,
      cast: {
        string: safeCell,
        number: (n) => String(n),
        bigint: (n) => String(n),
        boolean: (b) => String(b),
        date: (d) => d.toISOString(),
        object: (o) => safeCell(JSON.stringify(o)),
      },
    },
  );
}
