import { INVOICE_STATUSES, transition, type InvoiceEvent, type InvoiceStatus } from '../../src/domain/invoices/state';

const ev = {
  issue: { type: 'issue' } as InvoiceEvent,
  payPart: { type: 'payment', balanceAfterIsZero: false } as InvoiceEvent,
  payFull: { type: 'payment', balanceAfterIsZero: true } as InvoiceEvent,
  refundPart: { type: 'refund', paidAfterIsZero: false } as InvoiceEvent,
  refundAll: { type: 'refund', paidAfterIsZero: true } as InvoiceEvent,
  void: { type: 'void' } as InvoiceEvent,
  cancel: { type: 'cancel' } as InvoiceEvent,
  editAll: { type: 'edit', fields: ['items', 'notes'] } as InvoiceEvent,
  editNotes: { type: 'edit', fields: ['notes', 'poNumber'] } as InvoiceEvent,
  discount: { type: 'discount' } as InvoiceEvent,
};
type Name = keyof typeof ev;

/** Every (state, event) pair: the expected next state, or null when refused. */
const table: Record<InvoiceStatus, Record<Name, InvoiceStatus | null>> = {
  Draft: { issue: 'Issued', payPart: null, payFull: null, refundPart: null, refundAll: null, void: 'Voided', cancel: 'Cancelled', editAll: 'Draft', editNotes: 'Draft', discount: 'Draft' },
  Issued: { issue: null, payPart: 'PartiallyPaid', payFull: 'Paid', refundPart: 'PartiallyPaid', refundAll: 'Issued', void: 'Voided', cancel: 'Cancelled', editAll: null, editNotes: 'Issued', discount: null },
  PartiallyPaid: { issue: null, payPart: 'PartiallyPaid', payFull: 'Paid', refundPart: 'PartiallyPaid', refundAll: 'Issued', void: null, cancel: 'Cancelled', editAll: null, editNotes: 'PartiallyPaid', discount: null },
  Paid: { issue: null, payPart: null, payFull: null, refundPart: 'PartiallyPaid', refundAll: 'Issued', void: null, cancel: 'Cancelled', editAll: null, editNotes: 'Paid', discount: null },
  Voided: { issue: null, payPart: null, payFull: null, refundPart: null, refundAll: null, void: null, cancel: null, editAll: null, editNotes: null, discount: null },
  Cancelled: { issue: null, payPart: null, payFull: null, refundPart: null, refundAll: null, void: null, cancel: null, editAll: null, editNotes: null, discount: null },
};

const cases = INVOICE_STATUSES.flatMap((from) => (Object.keys(ev) as Name[]).map((name) => [from, name, table[from][name]] as const));

describe('invoice state machine', () => {
  test.each(cases)('when %s receives %s, then the result is %s (null = refused with a reason)', (from, name, expected) => {
    const r = transition(from, ev[name]);
    if (expected === null) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason.length).toBeGreaterThan(10);
    } else {
      expect(r).toEqual({ ok: true, to: expected });
    }
  });

  test('when an issued, paid, voided or cancelled invoice is issued again, then the reason says why', () => {
    expect(transition('Issued', ev.issue)).toEqual({ ok: false, reason: 'The invoice is already issued.' });
    expect(transition('Paid', ev.issue)).toEqual({ ok: false, reason: 'The invoice is Paid; only a Draft invoice can be issued.' });
    expect(transition('Voided', ev.issue)).toEqual({ ok: false, reason: 'The invoice is Voided; a voided invoice cannot be changed.' });
    expect(transition('Cancelled', ev.issue)).toEqual({ ok: false, reason: 'The invoice is Cancelled; a cancelled invoice cannot be changed.' });
  });

  test('when a PartiallyPaid invoice is voided, then the reason names the allowed states', () => {
    expect(transition('PartiallyPaid', ev.void)).toEqual({ ok: false, reason: 'The invoice is PartiallyPaid; only a Draft or Issued invoice can be voided.' });
  });
});
