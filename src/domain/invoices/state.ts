/**
 * Invoice state machine (pure; SPEC "Invoice states"). Every move of an invoice's status goes
 * through `transition`, which either returns the next status or a reason the move is refused
 * (the API answers that reason as a 400).
 *
 * Decisions where SPEC is silent (docs/invoices.md):
 * - cancel is allowed from every state except the irreversible Voided and Cancelled ones,
 *   including Paid (the record and its payments are kept; refunds are a separate operation).
 * - refunds apply to an Issued, PartiallyPaid or Paid invoice with money paid; the status
 *   follows the remaining paid amount (nothing paid -> Issued, balance left -> PartiallyPaid).
 * - edits: every field while Draft; notes and poNumber while Issued, PartiallyPaid or Paid;
 *   nothing after Voided or Cancelled.
 */
export const INVOICE_STATUSES = ['Draft', 'Issued', 'PartiallyPaid', 'Paid', 'Voided', 'Cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export const FINAL_STATUSES: readonly InvoiceStatus[] = ['Voided', 'Cancelled'];

export type InvoiceEvent =
  | { type: 'issue' }
  | { type: 'payment'; balanceAfterIsZero: boolean }
  | { type: 'refund'; paidAfterIsZero: boolean }
  | { type: 'void' }
  | { type: 'cancel' }
  | { type: 'edit'; fields: readonly string[] }
  | { type: 'discount' };

export type TransitionResult = { ok: true; to: InvoiceStatus } | { ok: false; reason: string };

/** Fields that stay editable after Draft (until Voided or Cancelled). */
export const EDITABLE_AFTER_DRAFT: readonly string[] = ['notes', 'poNumber'];

const refuse = (reason: string): TransitionResult => ({ ok: false, reason });
const to = (s: InvoiceStatus): TransitionResult => ({ ok: true, to: s });

export function isInvoiceStatus(s: unknown): s is InvoiceStatus {
  return typeof s === 'string' && (INVOICE_STATUSES as readonly string[]).includes(s);
}

export function transition(from: InvoiceStatus, event: InvoiceEvent): TransitionResult {
  if (FINAL_STATUSES.includes(from)) {
    return refuse(`The invoice is ${from}; a ${from.toLowerCase()} invoice cannot be changed.`);
  }
  switch (event.type) {
    case 'issue':
      if (from === 'Draft') return to('Issued');
      return refuse(from === 'Issued' ? 'The invoice is already issued.' : `The invoice is ${from}; only a Draft invoice can be issued.`);
    case 'payment':
      if (from === 'Draft') return refuse('The invoice is Draft; issue it before recording payments.');
      if (from === 'Paid') return refuse('The invoice is already Paid; it has no balance left.');
      return to(event.balanceAfterIsZero ? 'Paid' : 'PartiallyPaid');
    case 'refund':
      if (from === 'Draft') return refuse('The invoice is Draft; it has no payments to refund.');
      return to(event.paidAfterIsZero ? 'Issued' : 'PartiallyPaid');
    case 'void':
      if (from === 'Draft' || from === 'Issued') return to('Voided');
      return refuse(`The invoice is ${from}; only a Draft or Issued invoice can be voided.`);
    case 'cancel':
      return to('Cancelled');
    case 'edit': {
      if (from === 'Draft') return to(from);
      const locked = event.fields.filter((f) => !EDITABLE_AFTER_DRAFT.includes(f));
      if (locked.length) return refuse(`The invoice is ${from}; only ${EDITABLE_AFTER_DRAFT.join(' and ')} can be changed after Draft (not ${locked.join(', ')}).`);
      return to(from);
    }
    case 'discount':
      if (from === 'Draft') return to(from);
      return refuse(`The invoice is ${from}; a discount can only be applied to a Draft invoice.`);
  }
}

/** The status after a payment or refund given the resulting amounts, for a payable invoice. */
export function statusForAmounts(amountPaidIsZero: boolean, balanceIsZero: boolean): InvoiceStatus {
  if (balanceIsZero && !amountPaidIsZero) return 'Paid';
  return amountPaidIsZero ? 'Issued' : 'PartiallyPaid';
}
