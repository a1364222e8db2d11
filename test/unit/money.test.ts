import { Decimal } from 'decimal.js';
import { fixedMoney, formatMoney, moneyNumber } from '../../src/domain/money.js';

/** The reference: every amount through Decimal, rounded half-up to the currency's minor unit. */
const reference = (v: string | number, digits: number) => new Decimal(v).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP).toFixed(digits);

describe('money rounding of numeric texts without a Decimal', () => {
  const cases: [string | number, string][] = [
    ['12.5000', 'USD'],
    ['12.5050', 'USD'],
    ['12.005', 'USD'],
    ['0.0000', 'USD'],
    ['0', 'USD'],
    ['7', 'USD'],
    ['1234567.1', 'USD'],
    ['19.9999', 'USD'],
    ['9.995', 'USD'],
    ['0.995', 'USD'],
    ['0.0049', 'USD'],
    ['99.5', 'JPY'],
    ['99.4999', 'JPY'],
    ['999.9995', 'BHD'],
    ['-3.2500', 'USD'],
    ['-0.005', 'USD'],
    ['007.50', 'USD'],
    ['1e3', 'USD'],
    ['.5', 'USD'],
    [' 2.00', 'USD'],
    [12.345, 'USD'],
    ['500.0000', 'JPY'],
    ['500.5000', 'JPY'],
    ['1.2345', 'BHD'],
    ['1.2340', 'BHD'],
  ];
  it.each(cases)('%p in %s equals the Decimal result', (v, currency) => {
    const digits = currency === 'JPY' ? 0 : currency === 'BHD' ? 3 : 2;
    let expected: string;
    try {
      expected = reference(v, digits);
    } catch {
      expect(() => fixedMoney(v, currency)).toThrow();
      return;
    }
    expect(fixedMoney(v, currency)).toBe(expected);
    expect(moneyNumber(v, currency)).toBe(Number(expected));
  });

  it('agrees with Decimal on generated numeric texts as PostgreSQL sends them', () => {
    for (let i = 0; i < 5000; i++) {
      const whole = Math.floor(Math.random() * 100000);
      const frac = String(Math.floor(Math.random() * 10000)).padStart(4, '0');
      const text = `${whole}.${i % 3 === 0 ? frac.slice(0, 2) + '00' : frac}`;
      for (const [currency, digits] of [
        ['USD', 2],
        ['JPY', 0],
        ['BHD', 3],
      ] as const)
        expect(fixedMoney(text, currency)).toBe(reference(text, digits));
    }
  });

  it('formats the rounded amount', () => {
    expect(formatMoney('1234.5000', 'USD')).toBe('$1,234.50');
    expect(formatMoney('1234.5050', 'USD')).toBe('$1,234.51');
    expect(formatMoney('500.0000', 'JPY')).toBe('¥500');
  });
});
