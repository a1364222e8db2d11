/**
 * Set-based applier for `invoices` (a POST /api/invoices/bulk row). The rules are the invoice
 * service's own (`apply` and `recompute` of src/services/invoices/invoices.ts, money from
 * src/domain/invoices/money.ts) and the bulk upsert's matching: externalId, else invoiceNumber;
 * active:false soft-deletes the match; only a Draft invoice takes the imported fields. One chunk =
 * one read of the stored invoices of its keys, the merge and compare in memory on copies of the
 * stored rows, then at most one multi-row INSERT and one UPDATE ... FROM jsonb_to_recordset.
 * A record equal to what is stored counts unchanged and writes nothing.
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { adminOnlyChanges } from '../../domain/invoices/admin-fields.js';
import { createSchema } from '../../domain/invoices/schemas.js';
import { AppError, type FieldErrors } from '../../errors.js';
import { apply, needsOrderNumber, recompute, type InvoiceState, type NewInvoice } from '../invoices/invoices.js';
import { allocateNumbers, claimNumbers, INVOICE_NUMBERS } from '../numbering.js';
import { hiddenMatch, outside, outsideStored, unassignedCustomer } from './scope.js';
import type { ApplyContext, ChunkOutcome, ChunkRecord } from './types.js';
import { stableJson } from '../../domain/json.js';
import { validateRecord } from './validate-record.js';

interface Held extends InvoiceState {
  id: string;
  status: string;
}

const COLS: [keyof Held, string, string][] = [
  ['id', 'id', 'uuid'],
  ['orderId', 'order_id', 'uuid'],
  ['orderNumber', 'order_number', 'text'],
  ['invoiceNumber', 'invoice_number', 'text'],
  ['externalId', 'external_id', 'text'],
  ['status', 'status', 'text'],
  ['invoiceDate', 'invoice_date', 'timestamptz'],
  ['dueDate', 'due_date', 'timestamptz'],
  ['terms', 'terms', 'text'],
  ['currencyCode', 'currency_code', 'text'],
  ['poNumber', 'po_number', 'text'],
  ['notes', 'notes', 'text'],
  ['customerNumber', 'customer_number', 'text'],
  ['customerId', 'customer_id', 'uuid'],
  ['customer', 'customer', 'jsonb'],
  ['primarySalesRep', 'primary_sales_rep', 'jsonb'],
  ['items', 'items', 'jsonb'],
  ['discount', 'discount', 'jsonb'],
  ['taxInput', 'tax_input', 'numeric'],
  ['importedInvoiceTotal', 'imported_invoice_total', 'numeric'],
  ['importedBalance', 'imported_balance', 'numeric'],
  ['subtotal', 'subtotal', 'numeric'],
  ['discountAmount', 'discount_amount', 'numeric'],
  ['tax', 'tax', 'numeric'],
  ['total', 'total', 'numeric'],
  ['importedPaid', 'imported_paid', 'numeric'],
  ['amountPaid', 'amount_paid', 'numeric'],
  ['active', 'active', 'boolean'],
];
const DATA = COLS.filter(([p]) => p !== 'id');
const recordset = `jsonb_to_recordset($2::jsonb) as r(${COLS.map(([, c, t]) => `${c} ${t}`).join(', ')})`;
const SELECT = COLS.map(([p, c, t]) => (t === 'numeric' ? `${c}::text as "${p}"` : `${c} as "${p}"`)).join(', ');

const clean = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null)) as unknown;
const same = (a: Held, b: Held) =>
  DATA.every(([p, , t]) => {
    const x = a[p] as unknown;
    const y = b[p] as unknown;
    if (t === 'numeric') return x === null || x === undefined || y === null || y === undefined ? (x ?? null) === (y ?? null) : new Decimal(x as string).equals(y as string);
    return stableJson(clean(x)) === stableJson(clean(y));
  });
const toRow = (h: Held) => Object.fromEntries(COLS.map(([p, c]) => [c, h[p] ?? null]));

/** A new invoice as createInvoice starts it (Draft, zero amounts), before the record is applied. */
const fresh = (input: NewInvoice): Held => ({
  id: randomUUID(),
  orderId: input.orderId,
  orderNumber: null,
  invoiceNumber: '',
  externalId: null,
  status: 'Draft',
  invoiceDate: new Date(input.invoiceDate),
  dueDate: new Date(input.dueDate),
  terms: input.terms,
  currencyCode: input.currencyCode,
  poNumber: null,
  notes: null,
  customerNumber: input.customer.customerNumber,
  customerId: null,
  customer: { customerNumber: input.customer.customerNumber },
  primarySalesRep: {},
  items: [],
  discount: null,
  taxInput: '0',
  importedInvoiceTotal: null,
  importedBalance: null,
  subtotal: '0',
  discountAmount: '0',
  tax: '0',
  total: '0',
  importedPaid: '0',
  amountPaid: '0',
  active: true,
});

/**
 * `invoices`: an existing externalId, else invoiceNumber, updates that invoice (Draft only;
 * active:false soft-deletes); otherwise a new Draft. With a caller scope (a SalesRep's bulk
 * call): a key naming an invoice of a customer the caller may not see fails 404, a record for
 * such a customer 403, imported totals and balances 403, and lines are priced by the caller's rule.
 */
export async function applyInvoices(ctx: ApplyContext, records: ChunkRecord[]): Promise<ChunkOutcome> {
  const { sql, orgId } = ctx;
  const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
  const ok: { rec: ChunkRecord; value: NewInvoice }[] = [];
  for (const rec of records) {
    const v = validateRecord<NewInvoice>(createSchema, rec);
    if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
    else ok.push({ rec, value: v.value });
  }
  const texts = (f: (x: NewInvoice) => string | null | undefined) => [...new Set(ok.map((x) => f(x.value)).filter((x): x is string => !!x))];
  const rows = await sql<Held>(`select ${SELECT} from invoice where organization_id = $1 and (external_id = any($2::text[]) or invoice_number = any($3::text[]))`, [
    orgId,
    texts((x) => x.externalId),
    texts((x) => x.invoiceNumber),
  ]);
  const byExt = new Map<string, Held>();
  const byNumber = new Map<string, Held>();
  const index = (h: Held) => {
    if (h.externalId) byExt.set(h.externalId, h);
    if (h.invoiceNumber) byNumber.set(h.invoiceNumber, h);
  };
  rows.forEach(index);
  // An invoice belongs to the stored customer its customerNumber names (by id; none: unlinked).
  const owners = new Map(
    (await sql<{ id: string; customer_number: string }>('select id, customer_number from customer where organization_id = $1 and customer_number = any($2::text[])', [orgId, texts((x) => x.customer?.customerNumber)])).map(
      (c) => [c.customer_number, c.id],
    ),
  );
  const ownerOf = (v: NewInvoice) => ({ customerId: owners.get(v.customer.customerNumber) ?? null });
  // A record naming an order by orderId without its orderNumber takes the order's (as POST /api/invoices does).
  const orderNumbers = new Map(
    (await sql<{ id: string; order_number: string }>('select id, order_number from sales_order where organization_id = $1 and id = any($2::uuid[])', [
      orgId,
      texts((x) => (needsOrderNumber(x) ? x.orderId : null)),
    ])).map((o) => [o.id, o.order_number]),
  );
  const created = new Set<Held>();
  const heldOf = new Map<number, Held>();
  const changed = new Set<Held>();

  for (const { rec, value: given } of ok) {
    const byKey = given.externalId ? byExt.get(given.externalId) : undefined;
    const existing = byKey ?? (given.invoiceNumber ? byNumber.get(given.invoiceNumber) : undefined) ?? null;
    // DESIGN "Security decisions": a natural key finds only an invoice the caller may see.
    if (existing && outsideStored(ctx.caller, existing)) {
      out.failures.push(hiddenMatch(rec.n, byKey ? 'externalId' : 'invoiceNumber', 'invoice'));
      continue;
    }
    if (outside(ctx.caller, given.customer.customerNumber)) {
      out.failures.push(unassignedCustomer(rec.n));
      continue;
    }
    let value = given;
    try {
      if (ctx.caller) {
        const denied = adminOnlyChanges(given, existing);
        if (Object.keys(denied).length) {
          out.failures.push({ n: rec.n, kind: 'forbidden', errors: denied });
          continue;
        }
        if (ctx.caller.priceInvoice && (!existing || (existing.status === 'Draft' && given.active !== false))) value = await ctx.caller.priceInvoice(given, existing);
      }
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      out.failures.push({ n: rec.n, errors: e.errors ?? { $: [e.message] }, ...(e.kind === 'not_found' || e.kind === 'forbidden' ? { kind: e.kind } : {}) });
      continue;
    }
    if (needsOrderNumber(value, existing?.orderId ?? null) && orderNumbers.has(value.orderId)) value = { ...value, orderNumber: orderNumbers.get(value.orderId) };
    const next: Held = existing ? structuredClone(existing) : fresh(value);
    try {
      if (!existing) {
        apply(next, value, ownerOf(value));
        recompute(next);
        if (value.active === false) next.active = false;
      } else if (value.active === false) next.active = false;
      else {
        next.active = true;
        if (next.status === 'Draft') {
          apply(next, { ...value, invoiceNumber: value.invoiceNumber || next.invoiceNumber }, ownerOf(value));
          recompute(next);
        }
      }
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      out.failures.push({ n: rec.n, errors: e.errors ?? { $: [e.message] } });
      continue;
    }
    const errors: FieldErrors = {};
    const clash = (held: Held | undefined) => !!held && held !== existing;
    if (next.invoiceNumber && clash(byNumber.get(next.invoiceNumber))) errors.invoiceNumber = [`Invoice number "${next.invoiceNumber}" is already used in this organization.`];
    if (next.externalId && clash(byExt.get(next.externalId))) errors.externalId = [`An invoice with externalId "${next.externalId}" already exists in this organization.`];
    if (Object.keys(errors).length) {
      out.failures.push({ n: rec.n, errors });
      continue;
    }
    if (existing && same(existing, next)) {
      heldOf.set(rec.n, existing);
      out.unchanged += 1;
      continue;
    }
    if (existing) {
      if (existing.invoiceNumber !== next.invoiceNumber) byNumber.delete(existing.invoiceNumber);
      if (existing.externalId && existing.externalId !== next.externalId) byExt.delete(existing.externalId);
      Object.assign(existing, next);
      if (!created.has(existing)) changed.add(existing);
      index(existing);
      heldOf.set(rec.n, existing);
      out.updated += 1;
    } else {
      created.add(next);
      index(next);
      heldOf.set(rec.n, next);
      out.created += 1;
    }
  }
  if (!ctx.write) return out;

  // Numbers (src/services/numbering.ts), before any row is written: explicit ones lock the counter
  // until commit; new invoices without one draw fresh numbers, none stored or used in this chunk.
  const q = sql;
  await claimNumbers(q, INVOICE_NUMBERS, orgId, [...created, ...changed].map((h) => h.invoiceNumber));
  const need = [...created].filter((h) => !h.invoiceNumber);
  const drawn = await allocateNumbers(q, INVOICE_NUMBERS, orgId, need.length, (n) => byNumber.has(n));
  need.forEach((h, i) => {
    h.invoiceNumber = drawn[i];
    byNumber.set(drawn[i], h);
  });
  if (created.size)
    await sql(
      `insert into invoice (${COLS.map(([, c]) => c).join(', ')}, organization_id, created_at, updated_at)
       select ${COLS.map(([, c]) => `r.${c}`).join(', ')}, $1, now(), now() from ${recordset}`,
      [orgId, JSON.stringify([...created].map(toRow))],
    );
  if (changed.size)
    await sql(
      `update invoice i set ${DATA.map(([, c]) => `${c} = r.${c}`).join(', ')}, updated_at = now() from ${recordset}
        where i.organization_id = $1 and i.id = r.id`,
      [orgId, JSON.stringify([...changed].map(toRow))],
    );
  out.refs = [...heldOf].map(([n, h]) => ({ n, id: h.id, number: h.invoiceNumber }));
  return out;
}
