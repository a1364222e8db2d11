/**
 * The one allocator of document numbers (orders `SO-000001`, invoices `INV-000001`, and any
 * numbered record added later: describe it as a NumberSequence). Every path that stores a number
 * goes through here: the single endpoints, checkout, the bulk endpoints and import jobs.
 *
 * - Allocation bumps the organization's counter row with one atomic upsert inside the caller's
 *   transaction (the row stays locked until it ends): two transactions never get the same value,
 *   and a rolled-back transaction gives its values back.
 * - A number is never handed out when it is already stored. A caller storing an explicit number
 *   (bulk, import, an edit) calls `claimNumbers` first, in the same transaction and before the
 *   row is written: a number in the sequence's own format moves the counter past it
 *   (GREATEST), under the same row lock, so a concurrent allocation waits and then continues
 *   above it. Should a candidate still be taken (a number stored before this rule existed),
 *   the counter jumps past the highest stored number of the sequence and allocation goes on.
 * - Not gapless: numbers between the counter and a claimed explicit number are never generated,
 *   and a number reserved by a checkout that never completes stays unused.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

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

/** Runs one parameterized statement (`?` placeholders) in the caller's transaction and returns its rows. */
export type NumberingSql = <T>(text: string, params: unknown[]) => Promise<T[]>;

/** The statement runner of a MikroORM EntityManager (inside `transactional`, its transaction). */
export const emSql =
  (em: EntityManager): NumberingSql =>
  <T>(text: string, params: unknown[]) =>
    em.getConnection().execute<T[]>(text, params, 'all', em.getTransactionContext());

/** The statement runner of a pg-style `$1` handle (the import appliers' transaction). */
export const pgSql =
  (sql: <T>(text: string, params?: unknown[]) => Promise<T[]>): NumberingSql =>
  <T>(text: string, params: unknown[]) => {
    let i = 0;
    return sql<T>(
      text.replace(/\?/g, () => `$${++i}`),
      params,
    );
  };

/** Values up to 18 digits (a bigint); 6 digits zero-padded, more without a leading zero. */
const FORMAT = '^([0-9]{6}|[1-9][0-9]{6,17})$';

export const formatNumber = (seq: NumberSequence, n: number | bigint | string): string => `${seq.prefix}${String(n).padStart(6, '0')}`;

/** The counter value a stored number stands for, when it has the sequence's own format (else null: it can never collide). */
export function sequenceValue(seq: NumberSequence, s: string | null | undefined): bigint | null {
  if (!s || !s.startsWith(seq.prefix)) return null;
  const digits = s.slice(seq.prefix.length);
  return new RegExp(FORMAT).test(digits) && BigInt(digits) > 0n ? BigInt(digits) : null;
}

async function bump(q: NumberingSql, seq: NumberSequence, orgId: string, by: number): Promise<bigint> {
  const { counterTable: t, counterColumn: c } = seq;
  const [row] = await q<Record<string, string>>(
    `insert into "${t}" (organization_id, "${c}") values (?, ?) on conflict (organization_id) do update set "${c}" = "${t}"."${c}" + excluded."${c}" returning "${c}"`,
    [orgId, by],
  );
  return BigInt(row[c]);
}

async function raiseTo(q: NumberingSql, seq: NumberSequence, orgId: string, value: bigint): Promise<void> {
  const { counterTable: t, counterColumn: c } = seq;
  await q(`insert into "${t}" (organization_id, "${c}") values (?, ?) on conflict (organization_id) do update set "${c}" = greatest("${t}"."${c}", excluded."${c}")`, [
    orgId,
    value.toString(),
  ]);
}

/**
 * Stored numbers are about to include `numbers` (explicit ones: bulk, import, an edit): the
 * counter moves past the highest of them that has the sequence's format. Call it in the writing
 * transaction, before the rows are written.
 */
export async function claimNumbers(q: NumberingSql, seq: NumberSequence, orgId: string, numbers: Iterable<string | null | undefined>): Promise<void> {
  let max = 0n;
  for (const s of numbers) {
    const v = sequenceValue(seq, s);
    if (v !== null && v > max) max = v;
  }
  if (max > 0n) await raiseTo(q, seq, orgId, max);
}

/**
 * `count` fresh numbers of the organization, in order, none stored already (nor `alsoTaken`: numbers
 * the caller is about to store in the same statement). Call it in the transaction that stores them.
 */
export async function allocateNumbers(q: NumberingSql, seq: NumberSequence, orgId: string, count: number, alsoTaken: (n: string) => boolean = () => false): Promise<string[]> {
  const out: string[] = [];
  while (out.length < count) {
    const need = count - out.length;
    const last = await bump(q, seq, orgId, need);
    const candidates = Array.from({ length: need }, (_, i) => formatNumber(seq, last - BigInt(need) + 1n + BigInt(i)));
    const stored = new Set(
      (await q<{ n: string }>(`select "${seq.column}" as n from "${seq.table}" where organization_id = ? and "${seq.column}" = any(string_to_array(?, ','))`, [orgId, candidates.join(',')])).map((r) => r.n),
    );
    const free = candidates.filter((n) => !stored.has(n) && !alsoTaken(n));
    out.push(...free);
    if (free.length < candidates.length) {
      // Numbers stored without a claim (before claims existed): continue above the highest stored one.
      const [row] = await q<{ max: string | null }>(
        `select max(substr("${seq.column}", ?)::bigint)::text as max from "${seq.table}" where organization_id = ? and substr("${seq.column}", 1, ?) = ? and substr("${seq.column}", ?) ~ ?`,
        [seq.prefix.length + 1, orgId, seq.prefix.length, seq.prefix, seq.prefix.length + 1, FORMAT],
      );
      if (row?.max) await raiseTo(q, seq, orgId, BigInt(row.max));
    }
  }
  return out;
}

/** One fresh number (see allocateNumbers). */
export async function allocateNumber(q: NumberingSql, seq: NumberSequence, orgId: string): Promise<string> {
  return (await allocateNumbers(q, seq, orgId, 1))[0];
}
