import { entryErrors, inForce, upcomingBoundaries, validityErrors } from '../../src/domain/pricing/price-lists';

const t = (iso: string) => new Date(iso);
const list = { status: 'Active', validFrom: t('2027-01-01T00:00:00Z'), validTo: t('2027-07-01T00:00:00Z') };

describe('price list validity', () => {
  test('in force from validFrom inclusive until validTo exclusive, exactly at the millisecond', () => {
    expect(inForce(list, t('2026-12-31T23:59:59.999Z'))).toBe(false);
    expect(inForce(list, t('2027-01-01T00:00:00.000Z'))).toBe(true);
    expect(inForce(list, t('2027-06-30T23:59:59.999Z'))).toBe(true);
    expect(inForce(list, t('2027-07-01T00:00:00.000Z'))).toBe(false);
  });
  test('open ends, and only Active lists', () => {
    expect(inForce({ status: 'Active', validFrom: null, validTo: null }, t('2000-01-01T00:00:00Z'))).toBe(true);
    expect(inForce({ ...list, status: 'Draft' }, t('2027-02-01T00:00:00Z'))).toBe(false);
    expect(inForce({ ...list, status: 'Archived' }, t('2027-02-01T00:00:00Z'))).toBe(false);
  });
  test('validTo must be after validFrom', () => {
    expect(validityErrors({ validFrom: list.validFrom, validTo: list.validFrom })).toHaveProperty('validTo');
    expect(validityErrors(list)).toEqual({});
    expect(validityErrors({ validFrom: null, validTo: list.validTo })).toEqual({});
  });
  test('upcoming boundaries are those still ahead', () => {
    expect(upcomingBoundaries(list, t('2026-06-01T00:00:00Z'))).toEqual({ activatesAt: list.validFrom, expiresAt: list.validTo });
    expect(upcomingBoundaries(list, t('2027-01-01T00:00:00Z'))).toEqual({ activatesAt: null, expiresAt: list.validTo });
  });
});

describe('price list entries', () => {
  test('a SKU given twice, an empty price list, a negative price and a duplicate break are each named', () => {
    const errors = entryErrors([
      { sku: 'A', prices: [{ price: 1 }] },
      { sku: 'a', prices: [] },
      { sku: 'B', prices: [{ price: -1, atQuantity: 1 }] },
      { sku: 'C', prices: [{ price: 1, atQuantity: 5 }, { price: 2, atQuantity: 5 }] },
    ]);
    expect(Object.keys(errors).sort()).toEqual(['entries[1].prices', 'entries[1].sku', 'entries[2].prices[0].price', 'entries[3].prices[1]']);
  });
});
