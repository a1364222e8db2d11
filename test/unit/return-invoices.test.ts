import { Decimal } from 'decimal.js';
import { allocateCreditedFirst } from '../../src/domain/credit-notes/rules';
import { creditsForReturn, type CreditableInvoice } from '../../src/domain/returns/invoices';

// An order of 3 × A at 12.50 and 2 × B at 7.25 shipped in two shipments: INV-1 (2 × A, 25.00), INV-2 (1 × A, 2 × B, 27.00).
const inv1: CreditableInvoice = { invoiceId: 'i1', invoiceNumber: 'INV-000001', invoiceDate: '2026-11-01T10:00:00Z', lines: [{ sku: 'A', quantity: 2, price: '12.5' }], credited: [], creditable: '25' };
const inv2: CreditableInvoice = {
  invoiceId: 'i2',
  invoiceNumber: 'INV-000002',
  invoiceDate: '2026-11-03T10:00:00Z',
  lines: [
    { sku: 'A', quantity: 1, price: '12.5' },
    { sku: 'B', quantity: 2, price: '7.25' },
  ],
  credited: [],
  creditable: '27',
};

describe('which invoices a return credits', () => {
  test('units of the latest shipment are credited on its invoice', () => {
    expect(creditsForReturn([{ sku: 'a', quantity: 1 }, { sku: 'B', quantity: 2 }], [inv1, inv2], 'USD')).toEqual({
      credits: [{ invoiceId: 'i2', invoiceNumber: 'INV-000002', lines: [{ sku: 'A', quantity: 1 }, { sku: 'B', quantity: 2 }] }],
      unplaced: [],
    });
  });

  test('units the latest invoice no longer carries go to the older one', () => {
    const credited = { ...inv2, credited: [{ sku: 'A', quantity: 1 }], creditable: '14.5' };
    expect(creditsForReturn([{ sku: 'A', quantity: 2 }], [inv1, credited], 'USD').credits).toEqual([{ invoiceId: 'i1', invoiceNumber: 'INV-000001', lines: [{ sku: 'A', quantity: 2 }] }]);
    expect(creditsForReturn([{ sku: 'A', quantity: 2 }], [inv1, inv2], 'USD').credits).toEqual([
      { invoiceId: 'i2', invoiceNumber: 'INV-000002', lines: [{ sku: 'A', quantity: 1 }] },
      { invoiceId: 'i1', invoiceNumber: 'INV-000001', lines: [{ sku: 'A', quantity: 1 }] },
    ]);
  });

  test('never more than an invoice can still be credited; what none can take is unplaced', () => {
    // INV-2 was credited 20.00 by an amount-only note: 7.00 left, room for neither an A (12.50) nor a B (7.25).
    const capped = { ...inv2, creditable: '7' };
    expect(creditsForReturn([{ sku: 'B', quantity: 1 }], [inv1, capped], 'USD')).toEqual({ credits: [], unplaced: [{ sku: 'B', quantity: 1 }] });
    expect(creditsForReturn([{ sku: 'A', quantity: 3 }], [inv1, { ...inv2, creditable: '7' }], 'USD')).toEqual({
      credits: [{ invoiceId: 'i1', invoiceNumber: 'INV-000001', lines: [{ sku: 'A', quantity: 2 }] }],
      unplaced: [{ sku: 'A', quantity: 1 }],
    });
  });
});

describe('a return note is applied to its invoice first', () => {
  test('the credited invoice first, the rest oldest first', () => {
    const open = [
      { invoiceId: 'i1', invoiceNumber: 'INV-000001', dueDate: '2026-12-01', invoiceDate: '2026-11-01', balance: '25' },
      { invoiceId: 'i2', invoiceNumber: 'INV-000002', dueDate: '2026-12-03', invoiceDate: '2026-11-03', balance: '10' },
    ];
    expect(allocateCreditedFirst('12.5', open, 'i2', 'USD').map((a) => [a.invoiceId, a.amount.toFixed()])).toEqual([
      ['i2', '10'],
      ['i1', '2.5'],
    ]);
    expect(allocateCreditedFirst(new Decimal(5), open, 'i9', 'USD').map((a) => [a.invoiceId, a.amount.toFixed()])).toEqual([['i1', '5']]);
  });
});
