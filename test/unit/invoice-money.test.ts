import { balanceOf, checkPaymentAmount, checkRefundAmount, computeTotals, discountAmount, lineTotal, moneyFields } from '../../src/domain/invoices/money';
import { statusForAmounts } from '../../src/domain/invoices/state';

describe('invoice money', () => {
  const items = [
    { quantity: 1, price: '33.33' },
    { quantity: 1, price: '33.33' },
    { quantity: 1, price: '33.33' },
  ];

  test('when 3 lines of 33.33 get tax 7.25 and a 10 percent discount, then the total is exact', () => {
    const t = computeTotals({ currencyCode: 'USD', items, tax: '7.25', discount: { type: 'Percentage', value: 10 } });
    expect(t.subtotal.toFixed(2)).toBe('99.99');
    expect(t.discountAmount.toFixed(2)).toBe('10.00'); // 9.999 rounds half-up
    expect(t.tax.toFixed(2)).toBe('7.25');
    expect(t.total.toFixed(2)).toBe('97.24');
    expect(t.importedPaid.toFixed(2)).toBe('0.00');
  });

  test('when payments of 20.00 and the rest are recorded, then balances and statuses are exact', () => {
    const { total } = computeTotals({ currencyCode: 'USD', items, tax: '7.25', discount: { type: 'Percentage', value: 10 } });
    const after1 = balanceOf(total, '20.00', 'USD');
    expect(after1.toFixed(2)).toBe('77.24');
    expect(statusForAmounts(false, after1.isZero())).toBe('PartiallyPaid');
    expect(checkPaymentAmount('77.25', after1, 'USD')).toBe('amount must not exceed the balance of $77.24.');
    expect(checkPaymentAmount('77.24', after1, 'USD')).toBeNull();
    const after2 = balanceOf(total, '97.24', 'USD');
    expect(after2.toFixed(2)).toBe('0.00');
    expect(statusForAmounts(false, after2.isZero())).toBe('Paid');
  });

  test('when imported totals are given, then the total is overridden and the paid amount is total minus balance', () => {
    const t = computeTotals({ currencyCode: 'USD', items, tax: '7.25', importedInvoiceTotal: '150.10', importedBalance: '50.05' });
    expect(t.total.toFixed(2)).toBe('150.10');
    expect(t.importedPaid.toFixed(2)).toBe('100.05');
    expect(balanceOf(t.total, t.importedPaid, 'USD').toFixed(2)).toBe('50.05');
  });

  test('when only importedBalance is given, then the paid amount derives from the computed total', () => {
    const t = computeTotals({ currencyCode: 'USD', items: [{ quantity: 2, price: '10' }], importedBalance: '5' });
    expect(t.importedPaid.toFixed(2)).toBe('15.00');
  });

  test('when amounts have more digits than the currency, then they round half-up to the minor unit', () => {
    expect(lineTotal({ quantity: 3, price: '0.125' }, 'USD').toFixed()).toBe('0.38');
    expect(lineTotal({ quantity: 1, price: '100.5' }, 'JPY').toFixed()).toBe('101');
    expect(discountAmount('10.00', { type: 'Amount', value: '15' }, 'USD').toFixed(2)).toBe('10.00');
  });

  test('when a payment or refund amount is zero, negative or too precise, then it is refused', () => {
    expect(checkPaymentAmount('0', '10', 'USD')).toBe('amount must be greater than 0.');
    expect(checkPaymentAmount('-1', '10', 'USD')).toBe('amount must be greater than 0.');
    expect(checkPaymentAmount('1.001', '10', 'USD')).toBe('amount must have at most 2 decimal places for USD.');
    expect(checkRefundAmount('11', '10', 'USD')).toBe('amount must not exceed the refundable amount of $10.00.');
    expect(checkRefundAmount('10', '10', 'USD')).toBeNull();
  });

  test('when a response amount is built, then it has the number and the Formatted twin', () => {
    expect(moneyFields('total', '1234.5', 'USD')).toEqual({ total: 1234.5, totalFormatted: '$1,234.50' });
  });
});
