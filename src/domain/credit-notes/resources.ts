/** Response schemas of the credit note operations (docs/returns.md "Credit notes"); views type their result with `Out<typeof creditNote>`. */
import { arr, bool, component, dateTime, doc, int, num, numN, obj, objN, oneOf, oneOfN, str, strN, uuid, uuidN, type Out } from '../contract.js';
import { genericPage } from '../resources.js';

export const CREDIT_NOTE_STATUSES = ['Open', 'PartiallyApplied', 'Applied'] as const;
export type CreditNoteStatus = (typeof CREDIT_NOTE_STATUSES)[number];
export const CREDIT_NOTE_SOURCES = ['Manual', 'Cancellation', 'Return'] as const;

const creditNoteLine = component('CreditNoteLine', obj({ sku: str(), productName: strN(), quantity: int(), price: num(), amount: num() }));
const creditNoteApplication = component(
  'CreditNoteApplication',
  obj({
    invoiceId: uuid(),
    invoiceNumber: str(),
    paymentId: doc(uuid(), 'The payment (method CreditNote) recorded on that invoice'),
    amount: num(),
    appliedAt: dateTime(),
  }),
);

export const creditNote = component(
  'CreditNote',
  obj({
    creditNoteId: uuid(),
    creditNoteNumber: doc(str(), 'Gapless per organization', 'CN-000001'),
    status: doc(oneOf(CREDIT_NOTE_STATUSES), 'Open: nothing applied; PartiallyApplied: some credit still available; Applied: all applied'),
    invoiceId: doc(uuid(), 'The credited invoice'),
    invoiceNumber: str(),
    orderId: uuidN(),
    orderNumber: strN(),
    customerNumber: str(),
    currencyCode: str(),
    amount: num(),
    amountFormatted: str(),
    amountApplied: doc(num(), 'Applied to invoices (CreditNote payments)'),
    amountRefunded: doc(num(), 'Paid back to the card (a cancelled card order\'s note)'),
    refundStatus: doc(oneOfN(['Pending', 'Refunded'] as const), 'The card refund of a cancelled card order\'s note; null: none'),
    available: doc(num(), 'amount - amountApplied - amountRefunded: credit the customer still has'),
    availableFormatted: str(),
    merchandiseAmount: doc(num(), 'The credited lines\' amount (0 for an amount-only credit)'),
    reason: str(),
    lines: doc(arr(creditNoteLine), 'Credited invoice lines; empty for an amount-only credit'),
    applications: doc(arr(creditNoteApplication), 'Applications to open invoices, oldest first'),
    source: doc(oneOf(CREDIT_NOTE_SOURCES), 'Manual: POST /api/credit-notes; Cancellation: an order cancellation; Return: a received return (RMA)'),
    pdf: doc(str(), 'Path of the PDF'),
    createdAt: dateTime(),
    updatedAt: dateTime(),
  }),
);
export type CreditNoteOut = Out<typeof creditNote>;
export const creditNotePage = genericPage('CreditNotePage', creditNote);

export const orderCancellation = component(
  'OrderCancellation',
  obj({
    cancellationId: uuid(),
    orderId: uuid(),
    orderNumber: str(),
    orderStatus: doc(str(), 'The order\'s status after the cancellation (Cancelled when nothing is left)'),
    wholeOrder: bool(),
    reason: str(),
    currencyCode: str(),
    amount: doc(num(), 'Cancelled units x line price; the order total less earlier cancellations when the whole order is now cancelled'),
    amountFormatted: str(),
    lines: arr(obj({ sku: str(), productName: strN(), quantity: int(), price: num(), amount: num() })),
    refund: doc(
      objN({ status: oneOf(['Pending', 'Refunded'] as const), amount: num(), idempotencyKey: doc(str(), 'The provider refund key and workflow id', 'order-cancel-…') }),
      'The card refund of a card order; null: nothing to refund',
    ),
    creditNoteId: doc(uuidN(), 'The credit note issued for the order\'s invoice (on account: applied; card: reserved for the refund)'),
    creditNoteNumber: doc(strN(), 'That credit note\'s number (CN-000001); null: no note'),
    creditNoteAmount: doc(
      numN(),
      'That credit note\'s amount: the cancelled amount, capped at what the invoice can still absorb (its total less refunds and earlier credit notes); null: no note (no issued invoice, or nothing left to credit)',
    ),
    uncreditedAmount: doc(
      num(),
      'What of `amount` was neither credited nor refunded because the order\'s invoice had already been refunded or credited that much (a manual credit note, for example): amount - creditNoteAmount. 0 when the whole amount was credited (or the order has no issued invoice)',
    ),
    createdAt: dateTime(),
  }),
);
