import { entryErrors, inForce, scheduleStep, upcomingBoundaries, validityErrors } from '../../src/domain/pricing/price-lists';

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

describe('price list schedule steps', () => {
  const facts = { ...list, activeSince: t('2026-06-01T00:00:00Z'), activatedAt: null as Date | null };
  test('before validFrom nothing is due and the timer wakes at validFrom; at validFrom the activation is validFrom, then the timer wakes at validTo', () => {
    expect(scheduleStep(facts, t('2026-12-31T23:59:59.999Z'))).toEqual({ event: null, next: list.validFrom });
    // A worker back late still announces the boundary's instant.
    expect(scheduleStep(facts, t('2027-01-01T00:05:00Z'))).toEqual({ event: { type: 'activated', activatedAt: list.validFrom }, next: list.validTo });
    expect(scheduleStep({ ...facts, activatedAt: list.validFrom }, t('2027-01-01T00:05:00Z'))).toEqual({ event: null, next: list.validTo });
  });
  test('at validTo the announced period expires at validTo, once; nothing is left after', () => {
    const on = { ...facts, activatedAt: list.validFrom };
    expect(scheduleStep(on, t('2027-07-01T00:00:01Z'))).toEqual({ event: { type: 'expired', activatedAt: list.validFrom, expiredAt: list.validTo, reason: 'ValidityEnded' }, next: null });
    expect(scheduleStep(facts, t('2027-07-01T00:00:01Z'))).toEqual({ event: null, next: null });
  });
  test('made Active inside its validity: activated at that moment; archived or moved ahead while in force: expired now with the reason', () => {
    const now = t('2027-02-01T10:00:00Z');
    expect(scheduleStep({ ...facts, activeSince: now }, now).event).toEqual({ type: 'activated', activatedAt: now });
    const on = { ...facts, activatedAt: list.validFrom };
    expect(scheduleStep({ ...on, status: 'Archived', activeSince: null }, now)).toEqual({ event: { type: 'expired', activatedAt: list.validFrom, expiredAt: now, reason: 'StatusChanged' }, next: null });
    const later = t('2027-03-01T00:00:00Z');
    expect(scheduleStep({ ...on, validFrom: later }, now)).toEqual({ event: { type: 'expired', activatedAt: list.validFrom, expiredAt: now, reason: 'Rescheduled' }, next: later });
  });
  test('a Draft list has no timer', () => {
    expect(scheduleStep({ ...facts, status: 'Draft', activeSince: null }, t('2026-01-01T00:00:00Z'))).toEqual({ event: null, next: null });
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
