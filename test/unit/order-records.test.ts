/** The order's story as records (pure; GET /api/orders/{id}/timeline `Records`): each kind a record of its own, oldest first, cancellations and credit notes with their money. */
import { orderRecords } from '../../src/domain/ops/order-records';

const order = { id: 'o1', orderNumber: 'SO-000001', orderStatus: 'Cancelled', currencyCode: 'USD', total: '120', paymentMethod: 'OnAccount', createdAt: '2026-05-01T10:00:00Z' };

describe('order records', () => {
  test('checkout, invoice, cancellation and credit notes are records of their own, oldest first, with lines, reason, refund, credit note and applications', () => {
    const records = orderRecords({
      order,
      invoices: [{ id: 'i1', invoiceNumber: 'INV-000001', status: 'PartiallyPaid', currencyCode: 'USD', total: '120', createdAt: '2026-05-01T10:00:00Z' }],
      shipments: [],
      returns: [],
      cancellations: [
        {
          id: 'c1',
          wholeOrder: true,
          reason: 'Project cancelled',
          currencyCode: 'USD',
          amount: '120',
          uncreditedAmount: '30',
          refundKey: null,
          refundStatus: null,
          creditNoteId: 'n2',
          createdAt: '2026-05-03T09:00:00Z',
          lines: [{ sku: 'A', quantity: 2, amount: '80' }, { sku: 'B', quantity: 1, amount: '40' }],
        },
      ],
      creditNotes: [
        { id: 'n2', creditNoteNumber: 'CN-000002', source: 'Cancellation', sourceId: 'c1', reason: 'Order SO-000001 cancelled', currencyCode: 'USD', amount: '90', amountApplied: '90', amountRefunded: '0', refundStatus: null, invoiceId: 'i1', invoiceNumber: 'INV-000001', createdAt: '2026-05-03T09:00:00Z', applications: [{ invoiceId: 'i1', invoiceNumber: 'INV-000001', amount: '90', appliedAt: '2026-05-03T09:00:00.000Z' }] },
        { id: 'n1', creditNoteNumber: 'CN-000001', source: 'Manual', sourceId: null, reason: 'Rebate', currencyCode: 'USD', amount: '30', amountApplied: '0', amountRefunded: '0', refundStatus: null, invoiceId: 'i1', invoiceNumber: 'INV-000001', createdAt: '2026-05-02T09:00:00Z', applications: [] },
      ],
    });
    expect(records.map((r) => `${r.Kind} ${r.Number}`)).toEqual(['Checkout SO-000001', 'Invoice INV-000001', 'CreditNote CN-000001', 'Cancellation SO-000001', 'CreditNote CN-000002']);
    expect(records[3]).toMatchObject({
      Id: 'c1',
      Status: 'WholeOrder',
      WholeOrder: true,
      Amount: 120,
      Reason: 'Project cancelled',
      Lines: [{ Sku: 'A', Quantity: 2, Amount: 80 }, { Sku: 'B', Quantity: 1, Amount: 40 }],
      Refund: null,
      CreditNoteId: 'n2',
      CreditNoteNumber: 'CN-000002',
      UncreditedAmount: 30,
    });
    expect(records[2]).toMatchObject({ Status: 'Open', Amount: 30, Available: 30, Source: 'Manual', AppliedTo: [] });
    expect(records[4]).toMatchObject({ Status: 'Applied', Amount: 90, Available: 0, InvoiceNumber: 'INV-000001', AppliedTo: [{ InvoiceId: 'i1', InvoiceNumber: 'INV-000001', Amount: 90 }] });
  });

  test('a card cancellation shows its refund (the amount less what was not credited); shipments and returns carry their lines', () => {
    const records = orderRecords({
      order: { ...order, orderStatus: 'Processing', paymentMethod: 'Card' },
      invoices: [],
      shipments: [{ id: 's1', shipmentNumber: 'SH-1', status: 'Shipped', carrier: 'UPS', trackingNumber: '1Z', shippedAt: '2026-05-02T00:00:00Z', lines: [{ sku: 'A', quantity: 1 }] }],
      returns: [{ id: 'r1', rmaNumber: 'RMA-000001', status: 'Requested', currencyCode: 'USD', amount: '40', refundMethod: null, creditNoteId: null, createdAt: '2026-05-04T00:00:00Z', lines: [{ sku: 'A', quantity: 1, amount: '40', reason: 'Broken' }] }],
      cancellations: [{ id: 'c1', wholeOrder: false, reason: 'Too many', currencyCode: 'USD', amount: '40', uncreditedAmount: '15', refundKey: 'order-cancel-c1', refundStatus: 'Refunded', creditNoteId: null, createdAt: '2026-05-03T00:00:00Z', lines: [{ sku: 'B', quantity: 1, amount: '40' }] }],
      creditNotes: [],
    });
    expect(records.map((r) => r.Kind)).toEqual(['Checkout', 'Shipment', 'Cancellation', 'Return']);
    expect(records[1]).toMatchObject({ Carrier: 'UPS', TrackingNumber: '1Z', Amount: null, Lines: [{ Sku: 'A', Quantity: 1, Amount: null }] });
    expect(records[2]).toMatchObject({ Status: 'Partial', Refund: { Status: 'Refunded', Amount: 25, IdempotencyKey: 'order-cancel-c1' }, CreditNoteNumber: null });
    expect(records[3]).toMatchObject({ Number: 'RMA-000001', Amount: 40, Lines: [{ Sku: 'A', Quantity: 1, Amount: 40, Reason: 'Broken' }] });
  });
});
