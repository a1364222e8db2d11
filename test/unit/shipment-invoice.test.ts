import { shipmentInvoice, type ShippedOrderLine } from '../../src/domain/invoices/per-shipment.js';

const order = { subtotal: '100.00', discountAmount: '10.00', tax: '9.00', total: '99.00' };
const line = (sku: string, price: string, quantity: number, shippedBefore: number, shippedNow: number, cancelledQuantity = 0): ShippedOrderLine => ({
  sku,
  productName: sku,
  price,
  quantity,
  cancelledQuantity,
  shippedBefore,
  shippedNow,
});

describe('shipmentInvoice', () => {
  it('invoices the shipped units at the line price, discount and tax pro rata', () => {
    const a = shipmentInvoice([line('A', '10.00', 7, 0, 3), line('B', '15.00', 2, 0, 0)], order, [], 0, 'USD');
    expect(a.items).toEqual([{ sku: 'A', productName: 'A', quantity: 3, price: '10' }]);
    expect(a.subtotal.toFixed(2)).toBe('30.00');
    expect(a.discountAmount.toFixed(2)).toBe('3.00');
    expect(a.tax.toFixed(2)).toBe('2.70');
    expect(a.total.toFixed(2)).toBe('29.70');
    expect(a.last).toBe(false);
  });

  it('gives the last shipment the remainders, so the invoices add up to the order total', () => {
    const odd = { subtotal: '30.00', discountAmount: '0', tax: '1.00', total: '31.00' };
    const first = shipmentInvoice([line('A', '10.00', 3, 0, 1)], odd, [], 0, 'USD');
    expect(first.tax.toFixed(2)).toBe('0.33');
    expect(first.total.toFixed(2)).toBe('10.33');
    const second = shipmentInvoice([line('A', '10.00', 3, 1, 1)], odd, [first], 0, 'USD');
    const third = shipmentInvoice([line('A', '10.00', 3, 2, 1)], odd, [first, second], 0, 'USD');
    expect(third.last).toBe(true);
    expect(third.total.toFixed(2)).toBe('10.34');
    expect(first.total.plus(second.total).plus(third.total).toFixed(2)).toBe('31.00');
    expect(first.tax.plus(second.tax).plus(third.tax).toFixed(2)).toBe('1.00');
  });

  it('leaves cancelled units out of the last remainder', () => {
    const o = { subtotal: '30.00', discountAmount: '0', tax: '0', total: '30.00' };
    const first = shipmentInvoice([line('A', '10.00', 3, 0, 1)], o, [], 0, 'USD');
    const last = shipmentInvoice([line('A', '10.00', 3, 1, 1, 1)], o, [first], '10.00', 'USD');
    expect(last.last).toBe(true);
    expect(last.total.toFixed(2)).toBe('10.00');
  });
});
