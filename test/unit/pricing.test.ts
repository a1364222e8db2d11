import { formatMoney, minorUnitDigits, moneyNumber, presentPrice, roundMoney } from '../../src/domain/money';
import { resolveUnitPrice, validatePriceEntries } from '../../src/domain/pricing/price-breaks';

const entries = [
  { tier: 'Retail', price: '10.00', atQuantity: 1 },
  { tier: 'Retail', price: '9.50', atQuantity: 10 },
  { tier: 'Retail', price: '8.9999', atQuantity: 100 },
  { tier: 'Wholesale', price: '7.25', atQuantity: 1 },
];

describe('pricing: quantity breaks', () => {
  test('when the quantity is below the first break, then the base price applies', () => {
    expect(resolveUnitPrice(entries, 'Retail', 1)?.toString()).toBe('10');
    expect(resolveUnitPrice(entries, 'Retail', 9)?.toString()).toBe('10');
  });
  test('when the quantity reaches a break, then the highest break at or below it applies', () => {
    expect(resolveUnitPrice(entries, 'Retail', 10)?.toString()).toBe('9.5');
    expect(resolveUnitPrice(entries, 'Retail', 99)?.toString()).toBe('9.5');
    expect(resolveUnitPrice(entries, 'Retail', 1000)?.toString()).toBe('8.9999');
  });
  test('when the tier differs in case, then it still matches; another tier never leaks in', () => {
    expect(resolveUnitPrice(entries, 'wholesale', 50)?.toString()).toBe('7.25');
    expect(resolveUnitPrice(entries, 'Unknown', 5)).toBeNull();
  });
  test('when the only break is above the quantity, then there is no price', () => {
    expect(resolveUnitPrice([{ tier: 'A', price: '1', atQuantity: 5 }], 'A', 4)).toBeNull();
  });
  test('when the quantity is not a whole number of at least 1, then it throws', () => {
    expect(() => resolveUnitPrice(entries, 'Retail', 0)).toThrow(RangeError);
    expect(() => resolveUnitPrice(entries, 'Retail', 1.5)).toThrow(RangeError);
  });
});

describe('pricing: money', () => {
  test('when rounding, then half-up to the minor unit of the currency', () => {
    expect(roundMoney('8.995', 'USD').toFixed(2)).toBe('9.00');
    expect(roundMoney('8.9949', 'USD').toFixed(2)).toBe('8.99');
    expect(roundMoney('0.125', 'USD').toFixed(2)).toBe('0.13');
    expect(roundMoney('1234.5', 'JPY').toFixed(0)).toBe('1235');
    expect(roundMoney('1.2345', 'BHD').toFixed(3)).toBe('1.235');
  });
  test('when summing decimals, then there is no float error', () => {
    expect(moneyNumber(roundMoney('0.1', 'USD').plus('0.2'), 'USD')).toBe(0.3);
  });
  test('when formatting, then Intl en-US currency style is used on the rounded amount', () => {
    expect(formatMoney('1234.5', 'USD')).toBe('$1,234.50');
    expect(formatMoney('8.9999', 'USD')).toBe('$9.00');
    expect(formatMoney('1234.5', 'JPY')).toBe('¥1,235');
    expect(formatMoney('10', 'EUR')).toBe('€10.00');
    expect(presentPrice('9.505', 'USD')).toEqual({ price: 9.51, priceFormatted: '$9.51' });
  });
  test('when asking for minor units, then ISO 4217 digits are known', () => {
    expect(minorUnitDigits('USD')).toBe(2);
    expect(minorUnitDigits('JPY')).toBe(0);
    expect(minorUnitDigits('KWD')).toBe(3);
  });
});

describe('pricing: price entries', () => {
  test('when price entries repeat a tier and quantity or have bad amounts, then each is reported', () => {
    const errors = validatePriceEntries([
      { tier: 'A', price: '1', atQuantity: 1 },
      { tier: 'a', price: '2', atQuantity: 1 },
      { tier: 'A', price: '-1', atQuantity: 0 },
      { tier: 'A', price: '1.23456', atQuantity: 5 },
    ]);
    expect(Object.keys(errors).sort()).toEqual(['prices[1]', 'prices[2].atQuantity', 'prices[2].price', 'prices[3].price']);
  });
});
