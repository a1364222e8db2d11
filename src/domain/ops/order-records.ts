/**
 * The business records of one order's story (GET /api/orders/{orderId}/timeline `Records`;
 * docs/returns.md "Steps and timeline"): the checkout (the order placed), each invoice, shipment,
 * return, cancellation and credit note, each a record of its own read from the database (the
 * source of truth), oldest first. The workflow steps beside them (`Steps`) come from Temporal.
 *
 * - A cancellation shows its lines, reason, amount, card refund (status, amount, key), its credit
 *   note and what its invoice could not absorb (`UncreditedAmount`).
 * - A credit note shows its number, amount, source, the credited invoice and every application to
 *   an invoice (`AppliedTo`), what is still available and a card refund's status.
 * Pure: the service gathers the rows and passes them as facts.
 */
import { Decimal } from 'decimal.js';
import { arr, bool, component, dateTime, doc, int, num, numN, obj, objN, oneOf, opt, str, strN, uuid, uuidN } from '../contract.js';
import { moneyNumber, type Amount } from '../money.js';

export const ORDER_RECORD_KINDS = ['Checkout', 'Invoice', 'Shipment', 'Return', 'Cancellation', 'CreditNote'] as const;
export type OrderRecordKind = (typeof ORDER_RECORD_KINDS)[number];

type When = Date | string;
const iso = (d: When) => new Date(d).toISOString();

export interface OrderFacts {
  id: string;
  orderNumber: string;
  orderStatus: string;
  currencyCode: string;
  total: Amount;
  paymentMethod?: string | null;
  createdAt: When;
}
export interface InvoiceFacts {
  id: string;
  invoiceNumber: string;
  status: string;
  currencyCode: string;
  total: Amount;
  createdAt: When;
}
export interface ShipmentFacts {
  id: string;
  shipmentNumber: string;
  status: string;
  carrier?: string | null;
  trackingNumber?: string | null;
  shippedAt: When;
  lines: { sku: string; quantity: number }[];
}
export interface ReturnFacts {
  id: string;
  rmaNumber: string;
  status: string;
  currencyCode: string;
  amount: Amount;
  refundMethod?: string | null;
  creditNoteId?: string | null;
  createdAt: When;
  lines: { sku: string; quantity: number; amount: Amount; reason?: string | null }[];
}
export interface CancellationFacts {
  id: string;
  wholeOrder: boolean;
  reason: string;
  currencyCode: string;
  amount: Amount;
  uncreditedAmount: Amount;
  refundKey?: string | null;
  refundStatus?: string | null;
  creditNoteId?: string | null;
  createdAt: When;
  lines: { sku: string; quantity: number; amount: Amount }[];
}
export interface CreditNoteFacts {
  id: string;
  creditNoteNumber: string;
  source: string;
  sourceId?: string | null;
  reason: string;
  currencyCode: string;
  amount: Amount;
  amountApplied: Amount;
  amountRefunded: Amount;
  refundStatus?: string | null;
  invoiceId: string;
  invoiceNumber: string;
  createdAt: When;
  applications: { invoiceId: string; invoiceNumber: string; amount: Amount; appliedAt: string }[];
}

export interface OrderRecord {
  At: string;
  Kind: OrderRecordKind;
  Id: string;
  Number: string;
  Status: string | null;
  CurrencyCode: string;
  Amount: number | null;
  Reason?: string | null;
  Lines?: { Sku: string; Quantity: number; Amount: number | null; Reason?: string | null }[];
  WholeOrder?: boolean;
  PaymentMethod?: string | null;
  Carrier?: string | null;
  TrackingNumber?: string | null;
  RefundMethod?: string | null;
  Refund?: { Status: string; Amount: number; IdempotencyKey: string } | null;
  CreditNoteId?: string | null;
  CreditNoteNumber?: string | null;
  UncreditedAmount?: number;
  Source?: string;
  InvoiceId?: string;
  InvoiceNumber?: string;
  Available?: number;
  RefundStatus?: string | null;
  AppliedTo?: { InvoiceId: string; InvoiceNumber: string; Amount: number; AppliedAt: string }[];
}

export interface OrderStory {
  order: OrderFacts;
  invoices: InvoiceFacts[];
  shipments: ShipmentFacts[];
  returns: ReturnFacts[];
  cancellations: CancellationFacts[];
  creditNotes: CreditNoteFacts[];
}

const KIND_ORDER = new Map(ORDER_RECORD_KINDS.map((k, i) => [k, i]));

/** The order's records, oldest first (at the same instant: checkout, invoice, shipment, return, cancellation, credit note). */
export function orderRecords(story: OrderStory): OrderRecord[] {
  const { order } = story;
  const money = (v: Amount, c: string) => moneyNumber(v, c);
  const noteNumber = new Map(story.creditNotes.map((n) => [n.id, n.creditNoteNumber]));
  const out: OrderRecord[] = [
    {
      At: iso(order.createdAt),
      Kind: 'Checkout',
      Id: order.id,
      Number: order.orderNumber,
      Status: order.orderStatus,
      CurrencyCode: order.currencyCode,
      Amount: money(order.total, order.currencyCode),
      PaymentMethod: order.paymentMethod ?? null,
    },
    ...story.invoices.map(
      (i): OrderRecord => ({ At: iso(i.createdAt), Kind: 'Invoice', Id: i.id, Number: i.invoiceNumber, Status: i.status, CurrencyCode: i.currencyCode, Amount: money(i.total, i.currencyCode) }),
    ),
    ...story.shipments.map(
      (s): OrderRecord => ({
        At: iso(s.shippedAt),
        Kind: 'Shipment',
        Id: s.id,
        Number: s.shipmentNumber,
        Status: s.status,
        CurrencyCode: order.currencyCode,
        Amount: null,
        Carrier: s.carrier ?? null,
        TrackingNumber: s.trackingNumber ?? null,
        Lines: s.lines.map((l) => ({ Sku: l.sku, Quantity: l.quantity, Amount: null })),
      }),
    ),
    ...story.returns.map(
      (r): OrderRecord => ({
        At: iso(r.createdAt),
        Kind: 'Return',
        Id: r.id,
        Number: r.rmaNumber,
        Status: r.status,
        CurrencyCode: r.currencyCode,
        Amount: money(r.amount, r.currencyCode),
        RefundMethod: r.refundMethod ?? null,
        CreditNoteId: r.creditNoteId ?? null,
        CreditNoteNumber: r.creditNoteId ? (noteNumber.get(r.creditNoteId) ?? null) : null,
        Lines: r.lines.map((l) => ({ Sku: l.sku, Quantity: l.quantity, Amount: money(l.amount, r.currencyCode), Reason: l.reason ?? null })),
      }),
    ),
    ...story.cancellations.map((c): OrderRecord => {
      const back = Decimal.max(0, new Decimal(c.amount).minus(c.uncreditedAmount));
      return {
        At: iso(c.createdAt),
        Kind: 'Cancellation',
        Id: c.id,
        Number: order.orderNumber,
        Status: c.wholeOrder ? 'WholeOrder' : 'Partial',
        CurrencyCode: c.currencyCode,
        Amount: money(c.amount, c.currencyCode),
        WholeOrder: c.wholeOrder,
        Reason: c.reason,
        Lines: c.lines.map((l) => ({ Sku: l.sku, Quantity: l.quantity, Amount: money(l.amount, c.currencyCode) })),
        Refund: c.refundKey ? { Status: c.refundStatus ?? 'Pending', Amount: money(back, c.currencyCode), IdempotencyKey: c.refundKey } : null,
        CreditNoteId: c.creditNoteId ?? null,
        CreditNoteNumber: c.creditNoteId ? (noteNumber.get(c.creditNoteId) ?? null) : null,
        UncreditedAmount: money(c.uncreditedAmount, c.currencyCode),
      };
    }),
    ...story.creditNotes.map((n): OrderRecord => {
      const available = new Decimal(n.amount).minus(n.amountApplied).minus(n.amountRefunded);
      return {
        At: iso(n.createdAt),
        Kind: 'CreditNote',
        Id: n.id,
        Number: n.creditNoteNumber,
        Status: available.lte(0) ? 'Applied' : new Decimal(n.amountApplied).plus(n.amountRefunded).gt(0) ? 'PartiallyApplied' : 'Open',
        CurrencyCode: n.currencyCode,
        Amount: money(n.amount, n.currencyCode),
        Source: n.source,
        Reason: n.reason,
        InvoiceId: n.invoiceId,
        InvoiceNumber: n.invoiceNumber,
        Available: money(Decimal.max(0, available), n.currencyCode),
        RefundStatus: n.refundStatus ?? null,
        AppliedTo: n.applications.map((a) => ({ InvoiceId: a.invoiceId, InvoiceNumber: a.invoiceNumber, Amount: money(a.amount, n.currencyCode), AppliedAt: a.appliedAt })),
      };
    }),
  ];
  return out
    .map((r, i) => ({ r, i }))
    .sort((a, b) => a.r.At.localeCompare(b.r.At) || KIND_ORDER.get(a.r.Kind)! - KIND_ORDER.get(b.r.Kind)! || a.i - b.i)
    .map((x) => x.r);
}

const recordLine = obj({ Sku: str(), Quantity: int(), Amount: numN(), Reason: opt(strN()) });

/** One record of the order's story (response schema). */
export const orderRecord = component(
  'OrderRecord',
  obj({
    At: doc(dateTime(), 'When it happened: placed, issued, shipped, requested, cancelled, credited'),
    Kind: doc(oneOf(ORDER_RECORD_KINDS), 'Checkout (the order placed), Invoice, Shipment, Return, Cancellation, CreditNote'),
    Id: doc(uuid(), 'The record\'s id (the order\'s for Checkout; the cancellation\'s, the credit note\'s, ...)'),
    Number: doc(str(), 'Its number: order, invoice, shipment, RMA, credit note (a cancellation: the order\'s)'),
    Status: doc(strN(), 'Its status now (a cancellation: WholeOrder or Partial)'),
    CurrencyCode: str(),
    Amount: doc(numN(), 'Order total, invoice total, return amount, cancelled amount, credit note amount; null for a shipment'),
    Reason: opt(doc(strN(), 'Cancellation or credit note reason')),
    Lines: opt(doc(arr(recordLine), 'Shipped, returned or cancelled lines')),
    WholeOrder: opt(bool()),
    PaymentMethod: opt(strN()),
    Carrier: opt(strN()),
    TrackingNumber: opt(strN()),
    RefundMethod: opt(doc(strN(), 'A return\'s refund method (card or credit)')),
    Refund: opt(
      doc(objN({ Status: str(), Amount: num(), IdempotencyKey: str() }), 'A cancellation\'s card refund (the provider key); null: nothing was refunded to a card'),
    ),
    CreditNoteId: opt(doc(uuidN(), 'The credit note a cancellation or return issued')),
    CreditNoteNumber: opt(strN()),
    UncreditedAmount: opt(doc(num(), 'What of a cancellation its invoice could not absorb (credited or refunded already)')),
    Source: opt(doc(str(), 'A credit note\'s source: Manual, Cancellation, Return')),
    InvoiceId: opt(doc(uuid(), 'The invoice a credit note credits')),
    InvoiceNumber: opt(str()),
    Available: opt(doc(num(), 'Credit of the note not applied nor refunded yet')),
    RefundStatus: opt(strN()),
    AppliedTo: opt(doc(arr(obj({ InvoiceId: uuid(), InvoiceNumber: str(), Amount: num(), AppliedAt: str() })), 'The invoices the credit note was applied to, each a CreditNote payment')),
  }),
);
