/** Credit note and cancellation rules (pure): creditable amount, priced lines, allocation oldest first or chosen, the cancellation plan. */
import { allocateChosen, allocateOldestFirst, capCredit, creditableAmount, priceLines } from '../../src/domain/credit-notes/rules';
import { planCancellation } from '../../src/domain/orders/cancellation';

const inv = (invoiceId: string, due: string, balance: number, dated = '2026-01-01') => ({ invoiceId, invoiceNumber: `INV-${invoiceId}`, dueDate: `${due}T00:00:00Z`, invoiceDate: `${dated}T00:00:00Z`, balance });

describe('credit notes', () => {
  test('creditable = total - refunded - credited, never below 0', () => {
    expect(creditableAmount('200', '30', '50.5', 'USD').toFixed()).toBe('119.5');
    expect(creditableAmount('10', '10', '5', 'USD').toFixed()).toBe('0');
  });

  test('a cancellation\'s credit is capped at what the invoice can still absorb; the rest is uncredited', () => {
    const text = (r: ReturnType<typeof capCredit>) => [r.credit.toFixed(), r.uncredited.toFixed()];
    expect(text(capCredit('100', '100', 'USD'))).toEqual(['100', '0']);
    expect(text(capCredit('100', '250', 'USD'))).toEqual(['100', '0']);
    expect(text(capCredit('100', '70', 'USD'))).toEqual(['70', '30']);
    expect(text(capCredit('100', '0', 'USD'))).toEqual(['0', '100']);
    expect(text(capCredit('100', '-5', 'USD'))).toEqual(['0', '100']);
    expect(text(capCredit('10.005', '3.333', 'USD'))).toEqual(['3.33', '6.68']);
    expect(text(capCredit('500', '120', 'JPY'))).toEqual(['120', '380']);
  });

  test('lines are priced from the invoice and never above the quantity left; errors name each line', () => {
    const lines = [{ sku: 'A', productName: 'A', quantity: 3, price: '33.333' }, { sku: 'B', quantity: 1, price: '5' }];
    const ok = priceLines(lines, [{ sku: 'a', quantity: 1 }], [{ sku: 'A', quantity: 2 }, { sku: 'b', quantity: 1 }], 'USD');
    expect(ok.errors).toEqual({});
    expect(ok.lines.map((l) => [l.sku, l.quantity, l.amount])).toEqual([['A', 2, '66.67'], ['B', 1, '5']]);
    expect(ok.total.toFixed()).toBe('71.67');
    const bad = priceLines(lines, [{ sku: 'A', quantity: 2 }], [{ sku: 'A', quantity: 1 }, { sku: 'A', quantity: 1 }, { sku: 'Z', quantity: 1 }], 'USD');
    expect(Object.keys(bad.errors)).toEqual(['lines[1].quantity', 'lines[2].sku']);
  });

  test('oldest due first, then oldest dated, then number; each up to its balance; the rest stays', () => {
    const a = allocateOldestFirst('100', [inv('3', '2026-03-01', 50), inv('1', '2026-02-01', 30), inv('2', '2026-02-01', 40, '2025-12-01')], 'USD');
    expect(a.map((x) => [x.invoiceId, x.amount.toFixed()])).toEqual([['2', '40'], ['1', '30'], ['3', '30']]);
    expect(allocateOldestFirst('10', [], 'USD')).toEqual([]);
    expect(allocateOldestFirst('500', [inv('1', '2026-01-01', 30)], 'USD').map((x) => x.amount.toFixed())).toEqual(['30']);
  });

  test('chosen: unknown invoice, over its balance, over the credit left are errors naming the entry', () => {
    const open = [inv('1', '2026-01-01', 30), inv('2', '2026-01-02', 100)];
    const r = allocateChosen('50', open, [{ invoiceId: '1', amount: 20 }, { invoiceId: '1', amount: 20 }, { invoiceId: '2', amount: 40 }, { invoiceId: 'x', amount: 1 }], 'USD');
    expect(r.errors).toEqual({ 'applyTo[1].amount': [expect.stringContaining('balance')], 'applyTo[2].amount': [expect.stringContaining('available')], 'applyTo[3].invoiceId': [expect.any(String)] });
    expect(r.allocations.map((x) => x.amount.toFixed())).toEqual(['20']);
  });
});

describe('cancellation plan', () => {
  const lines = [
    { id: 'l1', sku: 'A', productName: 'A', quantity: 3, cancelledQuantity: 0, shippedQuantity: 0, price: '20' },
    { id: 'l2', sku: 'B', productName: 'B', quantity: 2, cancelledQuantity: 0, shippedQuantity: 1, price: '10' },
  ];
  test('lines and quantities: units x price; shipped units are a 409 naming the line, more than ordered a 400', () => {
    const p = planCancellation(lines, [{ sku: 'a', quantity: 2 }], '90', '0', 'USD');
    expect(p.ok && [p.plan.amount.toFixed(), p.plan.wholeOrder, p.plan.lines.map((l) => l.quantity)]).toEqual(['40', false, [2]]);
    const shipped = planCancellation(lines, [{ sku: 'B', quantity: 2 }], '90', '0', 'USD');
    expect(shipped).toMatchObject({ ok: false, status: 409, errors: { 'lines[0].quantity': [expect.stringContaining('shipped 1')] } });
    expect(planCancellation(lines, [{ sku: 'A', quantity: 4 }], '90', '0', 'USD')).toMatchObject({ ok: false, status: 400 });
    expect(planCancellation(lines, [{ sku: 'Z', quantity: 1 }], '90', '0', 'USD')).toMatchObject({ ok: false, status: 400, errors: { 'lines[0].sku': expect.any(Array) } });
  });
  test('whole order: every open unit; the amount is the total less earlier cancellations when nothing is left', () => {
    const unshipped = lines.map((l) => ({ ...l, shippedQuantity: 0 }));
    const p = planCancellation(unshipped.map((l) => (l.id === 'l1' ? { ...l, cancelledQuantity: 2 } : l)), null, '95.5', '40', 'USD');
    expect(p.ok && [p.plan.amount.toFixed(), p.plan.merchandise.toFixed(), p.plan.wholeOrder]).toEqual(['55.5', '40', true]);
    // With a shipped unit the rest is cancelled but the order is not wholly cancelled.
    const q = planCancellation(lines, null, '95.5', '0', 'USD');
    expect(q.ok && [q.plan.amount.toFixed(), q.plan.wholeOrder]).toEqual(['70', false]);
    expect(planCancellation(lines.map((l) => ({ ...l, cancelledQuantity: l.quantity - l.shippedQuantity })), null, '1', '0', 'USD')).toMatchObject({ ok: false, status: 409 });
  });
});
