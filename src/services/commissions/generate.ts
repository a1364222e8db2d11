/**
 * Statement generation and clawbacks, set-based: one query reads every commissionable invoice of
 * the rep in the period (lines included), the pure rule engine prices them 2,000 at a time, and one
 * insert per chunk writes their entries (column arrays unnested in lockstep, each entry's lines as
 * compact json rows), sent while the engine prices the next chunk; these and the statement's other writes
 * run with bound parameters (src/db/orm-sql.ts), never inlined into the SQL text, and the
 * entries are never made entities. Clawbacks are computed from one query over the rep's
 * Approved/Paid entries whose invoices were since voided, cancelled or refunded, and inserted with
 * ON CONFLICT DO NOTHING on (organization, entry, cause), so none is applied twice.
 * Everything runs in one transaction under the statement's row lock; running it again (an activity
 * retry, a worker killed mid-way) gives the same entries.
 */
import type { commissionClawbacks } from '../../domain/commissions/responses.js';
import type { Out } from '../../domain/contract.js';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { clawbacksFor, computeEntries, entryAmountTexts, lineAmountTexts, SETTLED_STATUSES, totalCommission, type Entry, type InvoiceFacts, type PlanRules, type SettledEntry } from '../../domain/commissions/index.js';
import type { StatementEvent, StoredEntryLine } from '../../entities/Commission.js';
import { moneyNumber } from '../../domain/money.js';
import { CommissionPlan, CommissionStatement } from '../../entities/index.js';
import type { InvoiceLine } from '../../entities/Invoice.js';
import { boundRows } from '../../db/orm-sql.js';

/** Invoice states whose lines earn commission. */
export const COMMISSIONABLE_STATUSES = ['Issued', 'PartiallyPaid', 'Paid'] as const;

export interface GenerateInput {
  organizationId: string;
  statementId: string;
  /** Event appended once (idempotent per key): `Generated` or `Recalculated`. */
  event: { key: string; type: 'Generated' | 'Recalculated'; at: string; by: string | null };
  /** Test-only pause before the write (ms). */
  pauseMs?: number;
}

export interface GenerateResult {
  status: string;
  entries: number;
  totalCommission: string;
  payableTotal: string;
  /** False when the event was already recorded (a retry) or the statement is no longer open. */
  generated: boolean;
}

interface InvoiceRow {
  id: string;
  invoice_number: string;
  customer_number: string;
  invoice_date: Date;
  currency_code: string;
  items: InvoiceLine[];
  discount_amount: string;
  total: string;
}

export function appendEvent(events: readonly StatementEvent[], e: StatementEvent): StatementEvent[] {
  return events.some((x) => x.key === e.key) ? [...events] : [...events, e];
}

/** Plans of the rep as the engine reads them. */
export function planRules(p: CommissionPlan): PlanRules {
  return {
    id: p.id,
    DefaultRate: p.defaultRate,
    EffectiveStartDate: p.effectiveStartDate,
    EffectiveEndDate: p.effectiveEndDate ?? null,
    Rules: p.rules,
    CustomerOverrides: p.customerOverrides,
    Active: p.active,
  };
}

export interface PendingClawback {
  salesRepId: string;
  sourceStatementId: string;
  sourceEntryId: string;
  invoiceId: string;
  invoiceNumber: string;
  cause: string;
  currencyCode: string;
  /** Negative exact decimal string. */
  amount: string;
  reason: string;
}

/**
 * The clawbacks owed but not yet recorded: entries of Approved/Paid statements (of one rep, or all)
 * whose invoices were since voided, cancelled or refunded. A credit note issued for the invoice
 * counts as a refund of its amount (refund id `credit-note:<number>`, so cause
 * `refund:credit-note:CN-000001`; docs/commissions.md "Clawbacks"). One read, then the pure rule.
 */
export async function computeClawbacks(em: EntityManager, organizationId: string, salesRepId: string | null): Promise<PendingClawback[]> {
  const rows = await boundRows<
    { entry_id: string; statement_id: string; sales_rep_id: string; invoice_id: string; invoice_number: string; commission: string; invoice_total: string; currency_code: string; status: string; refunds: { refundId: string; amount: string; createdAt: string }[] | null }
  >(
    em,
    `select e.id as entry_id, e.statement_id, s.sales_rep_id, e.invoice_id, e.invoice_number, e.commission, e.invoice_total, s.currency_code, i.status,
            coalesce(i.refunds, '[]'::jsonb) || coalesce(cn.notes, '[]'::jsonb) as refunds
       from commission_entry e
       join commission_statement s on s.organization_id = e.organization_id and s.id = e.statement_id
       join invoice i on i.organization_id = e.organization_id and i.id = e.invoice_id
       cross join lateral (
         select jsonb_agg(jsonb_build_object('refundId', 'credit-note:' || n.credit_note_number, 'amount', n.amount::text,
                                             'createdAt', to_char(n.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) as notes
           from credit_note n where n.organization_id = i.organization_id and n.invoice_id = i.id) cn
      where e.organization_id = $1 and ($2::uuid is null or s.sales_rep_id = $3::uuid) and s.status in ('Approved', 'Paid') and e.commission > 0
        and (i.status in ('Voided', 'Cancelled') or jsonb_array_length(coalesce(i.refunds, '[]'::jsonb)) > 0
             or cn.notes is not null)
        and not exists (select 1 from commission_adjustment a
                         where a.organization_id = e.organization_id and a.source_entry_id = e.id and a.cause in ('void', 'cancel'))`,
    [organizationId, salesRepId, salesRepId],
  );
  if (!rows.length) return [];
  const existing = await boundRows<{ source_entry_id: string; cause: string; amount: string }>(
    em,
    `select source_entry_id, cause, amount from commission_adjustment
      where organization_id = $1 and source_entry_id in (select value::uuid from jsonb_array_elements_text($2::jsonb))`,
    [organizationId, JSON.stringify(rows.map((r) => r.entry_id))],
  );
  const entries: SettledEntry[] = rows.map((r) => ({
    entryId: r.entry_id,
    invoiceId: r.invoice_id,
    invoiceNumber: r.invoice_number,
    commission: r.commission,
    invoiceTotal: r.invoice_total,
    currencyCode: r.currency_code,
    invoiceStatus: r.status,
    refunds: (r.refunds ?? []).map((x) => ({ refundId: x.refundId, amount: x.amount, createdAt: x.createdAt })),
  }));
  const fresh = clawbacksFor(entries, existing.map((x) => ({ entryId: x.source_entry_id, cause: x.cause, amount: x.amount })));
  const source = new Map(rows.map((r) => [r.entry_id, r]));
  return fresh.map((c) => {
    const src = source.get(c.entryId)!;
    return {
      salesRepId: src.sales_rep_id,
      sourceStatementId: src.statement_id,
      sourceEntryId: c.entryId,
      invoiceId: c.invoiceId,
      invoiceNumber: c.invoiceNumber,
      cause: c.cause,
      currencyCode: src.currency_code,
      amount: c.amount.toFixed(),
      reason: c.reason,
    };
  });
}

/** Records the rep's not yet recorded clawbacks (pending until a statement takes them); unique per (entry, cause). */
export async function recordClawbacks(em: EntityManager, organizationId: string, salesRepId: string): Promise<number> {
  const fresh = await computeClawbacks(em, organizationId, salesRepId);
  if (!fresh.length) return 0;
  const payload = fresh.map((c) => ({
    source_entry_id: c.sourceEntryId,
    source_statement_id: c.sourceStatementId,
    invoice_id: c.invoiceId,
    invoice_number: c.invoiceNumber,
    cause: c.cause,
    currency_code: c.currencyCode,
    amount: c.amount,
    reason: c.reason,
  }));
  const res = await boundRows<{ id: string }>(
    em,
    `insert into commission_adjustment (id, organization_id, sales_rep_id, statement_id, type, source_statement_id, source_entry_id, invoice_id, invoice_number, cause, currency_code, amount, reason, created_at)
     select gen_random_uuid(), $1::uuid, $2::uuid, null, 'Clawback', x.source_statement_id, x.source_entry_id, x.invoice_id, x.invoice_number, x.cause, x.currency_code, x.amount, x.reason, now()
       from jsonb_to_recordset($3::jsonb) as x(source_statement_id uuid, source_entry_id uuid, invoice_id uuid, invoice_number text, cause text, currency_code text, amount numeric, reason text)
     on conflict (organization_id, source_entry_id, cause) do nothing
     returning id`,
    [organizationId, salesRepId, JSON.stringify(payload)],
  );
  return res.length;
}

/** Pending clawbacks: recorded ones not yet on a statement, plus those computable now (not recorded yet). */
export async function pendingClawbacks(em: EntityManager, organizationId: string, salesRepId: string | null): Promise<Out<typeof commissionClawbacks>> {
  const recorded = await boundRows<
    { sales_rep_id: string; source_statement_id: string; invoice_number: string; cause: string; currency_code: string; amount: string; reason: string; created_at: Date }
  >(
    em,
    `select sales_rep_id, source_statement_id, invoice_number, cause, currency_code, amount, reason, created_at from commission_adjustment
      where organization_id = $1 and statement_id is null and ($2::uuid is null or sales_rep_id = $3::uuid) order by created_at, id`,
    [organizationId, salesRepId, salesRepId],
  );
  const computed = await computeClawbacks(em, organizationId, salesRepId);
  const view = (r: { salesRepId: string; sourceStatementId: string; invoiceNumber: string; cause: string; currencyCode: string; amount: string; reason: string }, recordedAt: string | null) => ({
    type: 'Clawback' as const,
    salesRepId: r.salesRepId,
    sourceStatementId: r.sourceStatementId,
    invoiceNumber: r.invoiceNumber,
    cause: r.cause,
    currencyCode: r.currencyCode,
    amount: moneyNumber(r.amount, r.currencyCode),
    reason: r.reason,
    recordedAt,
  });
  return {
    clawbacks: [
      ...recorded.map((r) =>
        view(
          { salesRepId: r.sales_rep_id, sourceStatementId: r.source_statement_id, invoiceNumber: r.invoice_number, cause: r.cause, currencyCode: r.currency_code, amount: r.amount, reason: r.reason },
          new Date(r.created_at).toISOString(),
        ),
      ),
      ...computed.map((c) => view(c, null)),
    ],
  };
}

/**
 * Reads the rep's commissionable invoices of the period in one query, in no particular order: the
 * entries do not depend on it, and sorting 10,000 invoices with their lines spilled past work_mem
 * (a third of the read's time in PostgreSQL).
 */
export async function readInvoices(em: EntityManager, st: { organizationId: string; repNumber: string; startDate: string; endDate: string; currencyCode: string }): Promise<(InvoiceFacts & { total: string })[]> {
  const rows = await boundRows<InvoiceRow>(
    em,
    `select id, invoice_number, customer_number, invoice_date, currency_code, items, discount_amount, total
       from invoice
      where organization_id = $1 and primary_sales_rep->>'repNumber' = $2 and active and currency_code = $3
        and status in ('Issued', 'PartiallyPaid', 'Paid')
        and invoice_date >= ($4::date)::timestamp at time zone 'UTC'
        and invoice_date < (($5::date) + 1)::timestamp at time zone 'UTC'`,
    [st.organizationId, st.repNumber, st.currencyCode, st.startDate, st.endDate],
  );
  return rows.map((r) => ({
    invoiceId: r.id,
    invoiceNumber: r.invoice_number,
    customerNumber: r.customer_number,
    invoiceDate: new Date(r.invoice_date),
    currencyCode: r.currency_code,
    items: r.items.map((l) => ({ sku: l.sku, productName: l.productName ?? null, quantity: l.quantity, price: l.price })),
    discountAmount: r.discount_amount,
    total: r.total,
  }));
}

/** Rates repeat on every line of a rule: their text is made once per rate object. */
const rateTexts = new WeakMap<Decimal, string>();
function rateText(rate: Decimal): string {
  let t = rateTexts.get(rate);
  if (t === undefined) rateTexts.set(rate, (t = rate.toFixed()));
  return t;
}

/**
 * Inserts a statement's entries in one statement with bound parameters: one array per column and
 * the lines as one JSON array (each entry's lines as compact rows, StoredEntryLine), so the payload
 * is neither interpolated into the SQL text nor turned into entities. The set-returning functions
 * sit in the select list, where PostgreSQL runs them in lockstep row by row (entry i gets element
 * i of every array, in the entries' order) without first storing their output. The lines stay
 * `json` text: json_array_elements only splits the array (`$10::jsonb -> i` built and copied a
 * jsonb value per entry).
 */
async function writeEntries(tx: EntityManager, orgId: string, statementId: string, entries: readonly Entry[], totals: ReadonlyMap<string, string>): Promise<void> {
  if (!entries.length) return;
  const n = entries.length;
  const invoiceIds = new Array<string>(n);
  const invoiceNumbers = new Array<string>(n);
  const customerNumbers = new Array<string>(n);
  const invoiceDates = new Array<string>(n);
  const invoiceTotals = new Array<string>(n);
  const bases = new Array<string>(n);
  const commissions = new Array<string>(n);
  const lines = new Array<StoredEntryLine[]>(n);
  for (let i = 0; i < n; i++) {
    const e = entries[i];
    invoiceIds[i] = e.invoiceId;
    invoiceNumbers[i] = e.invoiceNumber;
    customerNumbers[i] = e.customerNumber;
    invoiceDates[i] = new Date(e.invoiceDate).toISOString();
    invoiceTotals[i] = totals.get(e.invoiceId) ?? '0';
    const t = entryAmountTexts(e);
    bases[i] = t.base;
    commissions[i] = t.commission;
    lines[i] = e.lines.map((l): StoredEntryLine => {
      const lt = lineAmountTexts(l);
      return [l.sku, l.productName, l.quantity, lt.base, l.rule, rateText(l.rate), lt.commission];
    });
  }
  await boundRows(
    tx,
    `insert into commission_entry (id, organization_id, statement_id, invoice_id, invoice_number, customer_number, invoice_date, invoice_total, base, commission, lines)
     select gen_random_uuid(), $1, $2, unnest($3::uuid[]), unnest($4::text[]), unnest($5::text[]), unnest($6::timestamptz[]), unnest($7::numeric[]), unnest($8::numeric[]), unnest($9::numeric[]),
            json_array_elements($10::json)`,
    [orgId, statementId, invoiceIds, invoiceNumbers, customerNumbers, invoiceDates, invoiceTotals, bases, commissions, JSON.stringify(lines)],
  );
}

/** Invoices priced per chunk, so the engine prices one chunk while PostgreSQL writes the one before. */
const ENTRY_CHUNK = 2_000;

/**
 * Replaces the statement's entries with those of `invoices` under `plans`: the delete, then one
 * insert per chunk. Each statement is sent as soon as its chunk is priced and the next chunk is
 * priced while PostgreSQL runs it (the transaction's statements still run one after another, in
 * the order sent); the first failure fails the whole, and the transaction rolls back.
 */
async function replaceEntries(tx: EntityManager, orgId: string, statementId: string, plans: readonly PlanRules[], invoices: readonly (InvoiceFacts & { total: string })[]): Promise<Entry[]> {
  const sent: Promise<unknown>[] = [];
  const send = async (statement: Promise<unknown>) => {
    // Observed now (so a failure before the final await is never unhandled), reported by Promise.all below.
    statement.catch(() => undefined);
    sent.push(statement);
    // Lets the statement reach the connection before the next chunk is priced.
    await new Promise((resolve) => setImmediate(resolve));
  };
  await send(boundRows(tx, `delete from commission_entry where organization_id = $1 and statement_id = $2`, [orgId, statementId]));
  const all: Entry[] = [];
  for (let i = 0; i < invoices.length; i += ENTRY_CHUNK) {
    const chunk = invoices.slice(i, i + ENTRY_CHUNK);
    const entries = computeEntries(plans, chunk);
    for (const e of entries) all.push(e);
    await send(writeEntries(tx, orgId, statementId, entries, new Map(chunk.map((inv) => [inv.invoiceId, inv.total]))));
  }
  await Promise.all(sent);
  return all;
}

/** Generates (or recalculates) a Generating/Draft statement's entries and adjustments; Draft after. */
export async function generateStatement(em: EntityManager, input: GenerateInput): Promise<GenerateResult> {
  return em.fork().transactional(async (tx) => {
    const st = await tx.findOneOrFail(CommissionStatement, { id: input.statementId, organization: input.organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const done = st.events.some((e) => e.key === input.event.key);
    if (done || (st.status !== 'Generating' && st.status !== 'Draft')) {
      return { status: st.status, entries: -1, totalCommission: st.totalCommission, payableTotal: st.payableTotal, generated: false };
    }
    const orgId = input.organizationId;
    await recordClawbacks(tx, orgId, st.salesRepId);
    await boundRows(tx, `update commission_adjustment set statement_id = $1 where organization_id = $2 and sales_rep_id = $3 and statement_id is null and currency_code = $4`, [
      st.id,
      orgId,
      st.salesRepId,
      st.currencyCode,
    ]);
    const plans = await tx.find(CommissionPlan, { organization: orgId, salesRepId: st.salesRepId, active: true });
    const invoices = await readInvoices(tx, { organizationId: orgId, repNumber: st.repNumber, startDate: st.startDate, endDate: st.endDate, currencyCode: st.currencyCode });
    if (input.pauseMs) await new Promise((r) => setTimeout(r, input.pauseMs));
    const entries = await replaceEntries(tx, orgId, st.id, plans.map(planRules), invoices);
    const total = totalCommission(entries);
    const [adj] = await boundRows<{ sum: string | null }>(tx, `select sum(amount)::text as sum from commission_adjustment where organization_id = $1 and statement_id = $2`, [orgId, st.id]);
    const payable = total.plus(adj?.sum ?? 0);
    st.totalCommission = total.toFixed();
    st.payableTotal = payable.toFixed();
    st.status = 'Draft';
    st.generatedAt = new Date(input.event.at);
    st.events = appendEvent(st.events, {
      key: input.event.key,
      type: input.event.type,
      at: input.event.at,
      by: input.event.by,
      note: `${entries.length} invoice(s), commission ${total.toFixed(2)}, payable ${payable.toFixed(2)}`,
    });
    await tx.flush();
    return { status: st.status, entries: entries.length, totalCommission: st.totalCommission, payableTotal: st.payableTotal, generated: true };
  });
}

export { SETTLED_STATUSES };
