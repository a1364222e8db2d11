/**
 * The one allocator of document numbers (orders `SO-000001`, invoices `INV-000001`, and any
 * numbered record added later: describe it as a NumberSequence). Every path that stores a number
 * goes through here: the single endpoints, checkout, the bulk endpoints and import jobs.
 *
 * - Allocation bumps the organization's counter row with one atomic upsert inside the caller's
 *   transaction (the row stays locked until it ends): two transactions never get the same value,
 *   and a rolled-back transaction gives its values back.
 * - A number already stored (supplied by bulk, an import or an edit) is never handed out: a taken
 *   candidate is skipped, and the counter jumps to just below the first free value above it (one
 *   query, however long the run of imported numbers).
 * - A caller storing an explicit number in the sequence's format calls `claimNumbers` first, in
 *   the same transaction and before the row is written: it takes the counter row's lock, so an
 *   allocation running meanwhile waits for the commit and then sees (and skips) the number.
 * - Gaps: generated numbers fill the sequence around imported ones, so it has none of its own,
 *   except a number reserved by a checkout that never completes and a stored number that an edit
 *   later replaces.
 */
import type { Sql } from '../db/sql.js';

export interface NumberSequence {
  /** `SO-`, `INV-`: a generated number is the prefix and the value, zero-padded to 6 digits. */
  prefix: string;
  /** Counter table (one row per organization) and its value column. */
  counterTable: string;
  counterColumn: string;
  /** Where the numbers are stored (unique per organization). */
  table: string;
  column: string;
}

export const ORDER_NUMBERS: NumberSequence = { prefix: 'SO-', counterTable: 'order_number_counter', counterColumn: 'last_value', table: 'sales_order', column: 'order_number' };
export const INVOICE_NUMBERS: NumberSequence = { prefix: 'INV-', counterTable: 'invoice_counter', counterColumn: 'last_number', table: 'invoice', column: 'invoice_number' };
export const SHIPMENT_NUMBERS: NumberSequence = { prefix: 'SH-', counterTable: 'shipment_number_counter', counterColumn: 'last_value', table: 'shipment', column: 'shipment_number' };
export const CREDIT_NOTE_NUMBERS: NumberSequence = { prefix: 'CN-', counterTable: 'credit_note_counter', counterColumn: 'last_value', table: 'credit_note', column: 'credit_note_number' };
export const RETURN_NUMBERS: NumberSequence = { prefix: 'RMA-', counterTable: 'return_counter', counterColumn: 'last_value', table: 'order_return', column: 'rma_number' };
export const QUOTE_NUMBERS: NumberSequence = { prefix: 'Q-', counterTable: 'quote_number_counter', counterColumn: 'last_value', table: 'quote', column: 'quote_number' };

/**
 * Every function here takes the caller's statement runner (`$n` placeholders), so the numbers are
 * drawn in the caller's transaction: `boundSql(em)` (src/db/orm-sql.ts) inside `em.transactional()`,
 * or the `sql` handle of a set-based applier's pg transaction (`inTransaction`).
 */

/** Values up to 18 digits (a bigint); 6 digits zero-padded, more without a leading zero. */
const FORMAT = '^([0-9]{6}|[1-9][0-9]{6,17})$';

export const formatNumber = (seq: NumberSequence, n: number | bigint | string): string => `${seq.prefix}${String(n).padStart(6, '0')}`;

/** The counter value a stored number stands for, when it has the sequence's own format (else null: it can never collide). */
export function sequenceValue(seq: NumberSequence, s: string | null | undefined): bigint | null {
  if (!s || !s.startsWith(seq.prefix)) return null;
  const digits = s.slice(seq.prefix.length);
  return new RegExp(FORMAT).test(digits) && BigInt(digits) > 0n ? BigInt(digits) : null;
}

/**
 * Bumps the organization's counter by `by` and answers, in the same statement, the numbers of the new values that are stored already (formatted
 * in SQL as formatNumber does: 6 digits zero-padded, more as they are). One round trip per allocation.
 */
async function bumpAndCheck(q: Sql, seq: NumberSequence, orgId: string, by: number): Promise<{ last: bigint; stored: Set<string> }> {
  const { counterTable: t, counterColumn: c, table, column } = seq;
  const [row] = await q<{ last: string; stored: string | null }>(
    `with b as (
       insert into "${t}" (organization_id, "${c}") values ($1, $2)
       on conflict (organization_id) do update set "${c}" = "${t}"."${c}" + excluded."${c}" returning "${c}" as v)
     select b.v::text as last,
            (select string_agg(s."${column}", ',') from "${table}" s
              where s.organization_id = $3 and s."${column}" = any(
                select $4::text || case when g < 1000000 then lpad(g::text, 6, '0') else g::text end from generate_series(b.v - $5::bigint + 1, b.v) g)) as stored
       from b`,
    [orgId, by, orgId, seq.prefix, by],
  );
  return { last: BigInt(row.last), stored: new Set(row.stored ? row.stored.split(',') : []) };
}

/** Takes the counter row's lock (creating the row) without moving it. */
async function lockCounter(q: Sql, seq: NumberSequence, orgId: string): Promise<void> {
  const { counterTable: t, counterColumn: c } = seq;
  await q(`insert into "${t}" (organization_id, "${c}") values ($1, 0) on conflict (organization_id) do update set "${c}" = "${t}"."${c}"`, [orgId]);
}

/**
 * Stored numbers are about to include `numbers` (explicit ones: bulk, import, an edit). When one
 * has the sequence's format, the counter row is locked until the writing transaction ends, so no
 * allocation hands the number out meanwhile. Call it in that transaction, before the rows are written.
 */
export async function claimNumbers(q: Sql, seq: NumberSequence, orgId: string, numbers: Iterable<string | null | undefined>): Promise<void> {
  for (const s of numbers) {
    if (sequenceValue(seq, s) !== null) return lockCounter(q, seq, orgId);
  }
}

/** The smallest value above `after` whose number is not stored (stored numbers of other formats never collide). */
async function firstFreeAbove(q: Sql, seq: NumberSequence, orgId: string, after: bigint): Promise<bigint> {
  const from = seq.prefix.length + 1;
  const [row] = await q<{ free: string }>(
    `with s as (
       select v from (select case when substr("${seq.column}", $1) ~ $2 then substr("${seq.column}", $3)::bigint end as v
                        from "${seq.table}" where organization_id = $4 and starts_with("${seq.column}", $5)) n
        where v > $6)
     select (min(x.v) + 1)::text as free from (select $7::bigint as v union all select v from s) x
      where not exists (select 1 from s s2 where s2.v = x.v + 1)`,
    [from, FORMAT, from, orgId, seq.prefix, after.toString(), after.toString()],
  );
  return BigInt(row.free);
}

/**
 * `count` fresh numbers of the organization, in order, none stored already (nor `alsoTaken`: numbers
 * the caller is about to store in the same statement). Call it in the transaction that stores them.
 */
export async function allocateNumbers(q: Sql, seq: NumberSequence, orgId: string, count: number, alsoTaken: (n: string) => boolean = () => false): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const need = count - out.length;
    const { last, stored } = await bumpAndCheck(q, seq, orgId, need);
    const candidates = Array.from({ length: need }, (_, i) => formatNumber(seq, last - BigInt(need) + 1n + BigInt(i)));
    const free = candidates.filter((n) => !stored.has(n) && !alsoTaken(n));
    out.push(...free);
    if (stored.size) {
      // A run of stored numbers (an import): continue just below the first free value after it.
      const next = await firstFreeAbove(q, seq, orgId, last);
      if (next > last + 1n) await q(`update "${seq.counterTable}" set "${seq.counterColumn}" = $1 where organization_id = $2`, [(next - 1n).toString(), orgId]);
    }
  }
  return out;
}

/** One fresh number (see allocateNumbers). */
export async function allocateNumber(q: Sql, seq: NumberSequence, orgId: string): Promise<string> {
  return (await allocateNumbers(q, seq, orgId, 1))[0];
}
