/**
 * Set-based applier for `orders` (a POST /api/orders/bulk row). The rules are the order
 * service's own: `draftFromInput` (an Admin's order taken as given) and `orderValues` (what an
 * order stores, totals from src/domain/orders/totals.ts). One chunk = one read of the stored
 * orders of its keys (externalId, orderNumber, originationCartId; lines aggregated in the same
 * query) and one of the customers' rep numbers, the merge and compare in memory, then at most one
 * multi-row INSERT, one UPDATE ... FROM jsonb_to_recordset, one DELETE and one INSERT of lines.
 * A record equal to what is stored counts unchanged and writes nothing. A line outside the
 * customer's catalogs or breaking the quantity rules in force for it fails its record, and so does
 * an orderStatus change of an order whose status follows its fulfillment (a tracked line or a
 * shipment: the message of PUT /api/orders/{orderId}, naming the allowed transitions). A line
 * without a price is priced by the one resolver for the order's customer (the same statement that
 * answers the quantity rules) and records the list that priced it; a line with a price keeps it
 * as given, with no priceListId (docs/imports.md "Order lines without a price").
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { bulkOrderSchema, type BulkOrderInput } from '../../domain/orders/schemas.js';
import { managedStatusWrite } from '../../domain/fulfillment/rules.js';
import { AppError, type FieldErrors } from '../../errors.js';
import { allocateNumbers, claimNumbers, ORDER_NUMBERS } from '../numbering.js';
import { draftFromInput, orderValues, type OrderInput, type OrderValues } from '../orders/create.js';
import { hiddenMatch, outside, outsideStored, unassignedCustomer } from './scope.js';
import type { ApplyContext, ChunkOutcome, ChunkRecord } from './types.js';
import { stableJson } from '../../domain/json.js';
import { validateRecord } from './validate-record.js';
import { linesOutsideCatalogs, outsideCatalogMessage } from '../catalog/catalog-visibility.js';
import { checkOrderQuantity } from '../../domain/pricing/quantity-rules.js';
import { resolveLinesOfBuyers } from '../pricing/resolve.js';

type Line = OrderValues['items'][number];
type Scalars = OrderValues['scalars'];

interface Held extends Scalars {
  id: string;
  orderNumber: string | null;
  orderDate: Date;
  orderStatus: string;
  active: boolean;
  items: Line[];
  /** Stored orders only (read, never written here): the status follows the order's fulfillment (docs/fulfillment.md "Order status"). */
  fulfillmentManaged?: boolean;
}

/** [property, column, recordset type] of every column the import writes. */
const COLS: [keyof Held, string, string][] = [
  ['id', 'id', 'uuid'],
  ['orderNumber', 'order_number', 'text'],
  ['orderDate', 'order_date', 'timestamptz'],
  ['orderStatus', 'order_status', 'text'],
  ['orderType', 'order_type', 'text'],
  ['poNumber', 'po_number', 'text'],
  ['priceTier', 'price_tier', 'text'],
  ['currencyCode', 'currency_code', 'text'],
  ['terms', 'terms', 'text'],
  ['channel', 'channel', 'text'],
  ['externalId', 'external_id', 'text'],
  ['notes', 'notes', 'text'],
  ['originationCartId', 'origination_cart_id', 'uuid'],
  ['customerNumber', 'customer_number', 'text'],
  ['customerId', 'customer_id', 'uuid'],
  ['customer', 'customer', 'jsonb'],
  ['primarySalesRep', 'primary_sales_rep', 'jsonb'],
  ['takenBySalesRep', 'taken_by_sales_rep', 'jsonb'],
  ['repNumber', 'rep_number', 'text'],
  ['shippingDetails', 'shipping_details', 'jsonb'],
  ['subtotal', 'subtotal', 'numeric'],
  ['tax', 'tax', 'numeric'],
  ['shippingTotal', 'shipping_total', 'numeric'],
  ['total', 'total', 'numeric'],
  ['active', 'active', 'boolean'],
  ['createdByUserId', 'created_by_user_id', 'text'],
  ['createdByUserType', 'created_by_user_type', 'text'],
];
const MONEY = new Set<keyof Held>(['subtotal', 'tax', 'shippingTotal', 'total']);
const DATA = COLS.filter(([p]) => p !== 'id');
const recordset = `jsonb_to_recordset($2::jsonb) as r(${COLS.map(([, c, t]) => `${c} ${t}`).join(', ')})`;

/** JSON as stored (undefined keys dropped, dates as ISO strings), for comparing. */
const clean = (v: unknown): unknown => JSON.parse(JSON.stringify(v ?? null)) as unknown;
const sameMoney = (a: string, b: string) => new Decimal(a).equals(b);
const sameLines = (a: Line[], b: Line[]) =>
  a.length === b.length &&
  a.every(
    (x, i) =>
      x.sku === b[i].sku && x.productName === b[i].productName && x.quantity === b[i].quantity && sameMoney(x.price, b[i].price) && sameMoney(x.subTotal, b[i].subTotal) && (x.priceListId ?? null) === (b[i].priceListId ?? null),
  );
const sameRow = (a: Held, b: Held) =>
  DATA.every(([p]) =>
    MONEY.has(p) ? sameMoney(a[p] as string, b[p] as string) : p === 'orderDate' ? a.orderDate.getTime() === b.orderDate.getTime() : stableJson(clean(a[p])) === stableJson(clean(b[p])),
  );

const toRow = (h: Held) => Object.fromEntries(COLS.map(([p, c]) => [c, h[p] ?? null]));

/** `orders`: an existing externalId, else orderNumber, updates that order; otherwise a new one (number drawn when absent). */
export async function applyOrders(ctx: ApplyContext, records: ChunkRecord[]): Promise<ChunkOutcome> {
  const { sql, orgId } = ctx;
  const out: ChunkOutcome = { created: 0, updated: 0, unchanged: 0, failures: [] };
  const ok: { rec: ChunkRecord; value: BulkOrderInput }[] = [];
  for (const rec of records) {
    const v = validateRecord<BulkOrderInput>(bulkOrderSchema, rec);
    if ('errors' in v) out.failures.push({ n: rec.n, errors: v.errors });
    else ok.push({ rec, value: v.value });
  }
  const texts = (f: (x: BulkOrderInput) => string | null | undefined) => [...new Set(ok.map((x) => f(x.value)).filter((x): x is string => !!x))];
  const rows = await sql<Held>(
    `select o.id, o.order_number as "orderNumber", o.order_date as "orderDate", o.order_status as "orderStatus", o.order_type as "orderType", o.po_number as "poNumber",
            o.price_tier as "priceTier", o.currency_code as "currencyCode", o.terms, o.channel, o.external_id as "externalId", o.notes,
            o.origination_cart_id as "originationCartId", o.customer_number as "customerNumber", o.customer_id as "customerId", o.customer, o.primary_sales_rep as "primarySalesRep",
            o.taken_by_sales_rep as "takenBySalesRep", o.rep_number as "repNumber", o.shipping_details as "shippingDetails", o.subtotal::text as subtotal,
            o.tax::text as tax, o.shipping_total::text as "shippingTotal", o.total::text as total, o.active, o.created_by_user_id as "createdByUserId",
            o.created_by_user_type as "createdByUserType", o.fulfillment_managed as "fulfillmentManaged",
            coalesce((select json_agg(json_build_object('sku', i.sku, 'productName', i.product_name, 'quantity', i.quantity, 'price', i.price::text, 'subTotal', i.sub_total::text, 'priceListId', i.price_list_id)
                                      order by i.position) from order_item i where i.organization_id = o.organization_id and i.order_id = o.id), '[]'::json) as items
       from sales_order o
      where o.organization_id = $1 and (o.external_id = any($2::text[]) or o.order_number = any($3::text[]) or o.origination_cart_id = any($4::uuid[]))`,
    [orgId, texts((x) => x.externalId), texts((x) => x.orderNumber), texts((x) => x.originationCartId)],
  );
  const stored = new Map(
    (
      await sql<{ id: string; customer_number: string; rep_number: string | null; pricing: string }>('select id, customer_number, rep_number, pricing from customer where organization_id = $1 and customer_number = any($2::text[])', [
        orgId,
        texts((x) => x.customer.customerNumber),
      ])
    ).map((c) => [c.customer_number, { id: c.id, repNumber: c.rep_number, pricing: c.pricing }]),
  );
  // Issue 40: a line outside the stored customer's catalogs fails its record (one statement for the chunk).
  const orderLines = ok.flatMap(({ rec, value }) => value.items.map((it, i) => ({ n: rec.n, i, customerId: stored.get(value.customer.customerNumber)?.id ?? null, sku: it.sku })));
  const catalogErrors = new Map<number, FieldErrors>();
  for (const pos of await linesOutsideCatalogs(sql, orgId, orderLines)) {
    const l = orderLines[pos];
    const errors = catalogErrors.get(l.n) ?? {};
    errors[`items[${l.i}].sku`] = [outsideCatalogMessage(l.sku)];
    catalogErrors.set(l.n, errors);
  }
  // A line whose quantity breaks the rules in force for its customer (docs/pricing.md "Quantity rules") fails its record too, and a
  // line without a price is priced by the one resolver (the same statement for the chunk); one it cannot price fails its record.
  const ruleLines = ok.flatMap(({ rec, value }) =>
    value.items.map((it, i) => {
      const c = stored.get(value.customer.customerNumber);
      return { n: rec.n, i, quantity: it.quantity, customerId: c?.id ?? null, tier: c?.pricing ?? value.priceTier ?? '', currency: value.currencyCode, sku: it.sku, given: it.price ?? null };
    }),
  );
  const resolved = await resolveLinesOfBuyers(sql, orgId, ruleLines);
  const pricedOf = new Map<number, { price: number; priceListId: string | null }[]>();
  const fail = (n: number, field: string, why: string) => {
    const errors = catalogErrors.get(n) ?? {};
    errors[field] = [why];
    catalogErrors.set(n, errors);
  };
  ruleLines.forEach((l, pos) => {
    const r = resolved.get(pos);
    const why = r ? checkOrderQuantity(l.quantity, r.rules) : null;
    if (why) fail(l.n, `items[${l.i}].quantity`, why);
    let line: { price: number; priceListId: string | null };
    if (l.given !== null) line = { price: l.given, priceListId: null };
    else if (r?.unitPrice) line = { price: r.unitPrice.toNumber(), priceListId: r.priceListId };
    else {
      fail(l.n, `items[${l.i}].price`, `No price list in force for the customer nor its tier prices ${l.sku} at quantity ${l.quantity}; give the line a price.`);
      return;
    }
    const lines = pricedOf.get(l.n) ?? [];
    lines[l.i] = line;
    pricedOf.set(l.n, lines);
  });
  const byExt = new Map<string, Held>();
  const byNumber = new Map<string, Held>();
  const byCart = new Map<string, Held>();
  const index = (h: Held) => {
    if (h.externalId) byExt.set(h.externalId, h);
    if (h.orderNumber) byNumber.set(h.orderNumber, h);
    if (h.originationCartId) byCart.set(h.originationCartId, h);
  };
  rows.forEach(index);
  const created = new Set<Held>();
  const heldOf = new Map<number, Held>();
  const changed = new Set<Held>();
  const linesChanged = new Set<Held>();

  for (const { rec, value } of ok) {
    // DESIGN "Security decisions": a natural key finds only an order the caller may see.
    const byKey = value.externalId ? byExt.get(value.externalId) : undefined;
    const match = byKey ?? (value.orderNumber ? byNumber.get(value.orderNumber) : undefined);
    if (match && outsideStored(ctx.caller, match)) {
      out.failures.push(hiddenMatch(rec.n, byKey ? 'externalId' : 'orderNumber', 'order'));
      continue;
    }
    if (outside(ctx.caller, value.customer.customerNumber)) {
      out.failures.push(unassignedCustomer(rec.n));
      continue;
    }
    if (ctx.caller) {
      // This applier takes prices as given (an Admin's import); a rep's orders are priced from the catalog by POST /api/orders.
      out.failures.push({ n: rec.n, kind: 'forbidden', errors: { items: ["A sales rep's orders are priced from the catalog; place them with POST /api/orders."] } });
      continue;
    }
    const outsideCatalog = catalogErrors.get(rec.n);
    if (outsideCatalog) {
      out.failures.push({ n: rec.n, errors: outsideCatalog });
      continue;
    }
    const priced = pricedOf.get(rec.n) ?? [];
    const input: OrderInput = { ...value, items: value.items.map((it, i) => ({ ...it, ...priced[i] })) };
    let draft;
    try {
      draft = draftFromInput(input, stored.get(value.customer.customerNumber) ?? null);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      out.failures.push({ n: rec.n, errors: e.errors ?? { $: [e.message] } });
      continue;
    }
    const existing = (value.externalId ? byExt.get(value.externalId) : undefined) ?? (value.orderNumber ? byNumber.get(value.orderNumber) : undefined) ?? null;
    const v = orderValues(draft, existing);
    const next: Held = {
      id: existing?.id ?? randomUUID(),
      ...v.scalars,
      orderNumber: value.orderNumber ?? existing?.orderNumber ?? null,
      orderDate: v.orderDate ?? existing?.orderDate ?? new Date(),
      orderStatus: v.orderStatus ?? existing?.orderStatus ?? 'Pending',
      active: v.active ?? existing?.active ?? true,
      items: v.items,
    };
    const errors: FieldErrors = {};
    const clash = (held: Held | undefined) => !!held && held !== existing;
    if (next.orderNumber && clash(byNumber.get(next.orderNumber))) errors.orderNumber = ['An order with this orderNumber already exists.'];
    if (next.externalId && clash(byExt.get(next.externalId))) errors.externalId = ['Another order already has this externalId.'];
    if (next.originationCartId && clash(byCart.get(next.originationCartId))) errors.originationCartId = ['An order for this originationCartId already exists.'];
    if (Object.keys(errors).length) {
      out.failures.push({ n: rec.n, errors });
      continue;
    }
    const rowSame = !!existing && sameRow(existing, next);
    const linesSame = !!existing && sameLines(existing.items, next.items);
    if (existing && rowSame && linesSame) {
      heldOf.set(rec.n, existing);
      out.unchanged += 1;
      continue;
    }
    // An order with a tracked line or a shipment: its status follows the process, as PUT /api/orders/{orderId} says (the same 400).
    const managed = existing?.fulfillmentManaged ? managedStatusWrite(existing.orderStatus, next.orderStatus) : null;
    if (managed) {
      out.failures.push({ n: rec.n, errors: { orderStatus: [managed] } });
      continue;
    }
    // An order waiting for approval is what its request holds: only the decision releases or cancels it.
    if (existing?.orderStatus === 'PendingApproval') {
      out.failures.push({ n: rec.n, errors: { orderStatus: ['The order is waiting for approval (PendingApproval); only its approval request releases (approve) or cancels (reject) it, and nothing else of it changes meanwhile.'] } });
      continue;
    }
    const held = existing ?? next;
    if (existing) {
      if (existing.orderNumber && existing.orderNumber !== next.orderNumber) byNumber.delete(existing.orderNumber);
      if (existing.externalId && existing.externalId !== next.externalId) byExt.delete(existing.externalId);
      if (existing.originationCartId && existing.originationCartId !== next.originationCartId) byCart.delete(existing.originationCartId);
      Object.assign(existing, next);
      if (!created.has(existing)) {
        if (!rowSame) changed.add(existing);
        if (!linesSame) linesChanged.add(existing);
      }
      out.updated += 1;
    } else {
      created.add(held);
      out.created += 1;
    }
    index(held);
    heldOf.set(rec.n, held);
  }
  if (!ctx.write) return out;

  // Numbers (src/services/numbering.ts), before any row is written: explicit ones lock the counter
  // until commit; new orders without one draw fresh numbers, none stored or used in this chunk.
  const q = sql;
  await claimNumbers(q, ORDER_NUMBERS, orgId, [...created, ...changed].map((h) => h.orderNumber));
  const need = [...created].filter((h) => !h.orderNumber);
  const drawn = await allocateNumbers(q, ORDER_NUMBERS, orgId, need.length, (n) => byNumber.has(n));
  need.forEach((h, i) => {
    h.orderNumber = drawn[i];
    byNumber.set(drawn[i], h);
  });
  const creates = [...created];
  const updates = [...new Set([...changed, ...linesChanged])];
  if (creates.length)
    await sql(
      `insert into sales_order (${COLS.map(([, c]) => c).join(', ')}, organization_id, created_at, updated_at)
       select ${COLS.map(([, c]) => `r.${c}`).join(', ')}, $1, now(), now() from ${recordset}`,
      [orgId, JSON.stringify(creates.map(toRow))],
    );
  if (updates.length)
    await sql(
      `update sales_order o set ${DATA.map(([, c]) => `${c} = r.${c}`).join(', ')}, updated_at = now() from ${recordset}
        where o.organization_id = $1 and o.id = r.id`,
      [orgId, JSON.stringify(updates.map(toRow))],
    );
  const relined = [...linesChanged];
  if (relined.length) await sql('delete from order_item where organization_id = $1 and order_id = any($2::uuid[])', [orgId, relined.map((h) => h.id)]);
  const lines = [...creates, ...relined].flatMap((h) =>
    h.items.map((l, position) => ({ order_id: h.id, position, sku: l.sku, product_name: l.productName, quantity: l.quantity, price: l.price, sub_total: l.subTotal, price_list_id: l.priceListId ?? null })),
  );
  if (lines.length)
    await sql(
      `insert into order_item (id, organization_id, order_id, position, sku, product_name, quantity, price, sub_total, price_list_id)
       select gen_random_uuid(), $1, r.order_id, r.position, r.sku, r.product_name, r.quantity, r.price, r.sub_total, r.price_list_id
         from jsonb_to_recordset($2::jsonb) as r(order_id uuid, position int, sku text, product_name text, quantity int, price numeric, sub_total numeric, price_list_id uuid)`,
      [orgId, JSON.stringify(lines)],
    );
  out.refs = [...heldOf].map(([n, h]) => ({ n, id: h.id, number: h.orderNumber ?? '' }));
  return out;
}
