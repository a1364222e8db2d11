import { dayOf, instantOf, isDateInput, toUtc } from '../../src/domain/dates';
import { dateInput, dayInput } from '../../src/domain/schemas';

describe('date inputs: one rule for every operation', () => {
  it('accepts a calendar date and a date-time with an offset, and nothing looser', () => {
    for (const ok of ['2025-01-31', '2025-01-31T00:00:00Z', '2025-01-31T02:00:00+02:00', '2025-01-31T10:15:30.123-0500']) expect(isDateInput(ok)).toBe(true);
    for (const bad of ['2025-02-30', '2025-1-31', '31/01/2025', '2025-01-31T00:00:00', '2025-01-31 garbage', '2025-01-31T25:00:00Z', '']) expect(isDateInput(bad)).toBe(false);
  });

  it('a bare date is its UTC day: first instant as a start, last instant as an inclusive end', () => {
    expect(toUtc(instantOf('2025-01-31', 'start'))).toBe('2025-01-31T00:00:00.000Z');
    expect(toUtc(instantOf('2025-01-31', 'end'))).toBe('2025-01-31T23:59:59.999Z');
    expect(toUtc(instantOf('2025-01-31T02:00:00+02:00', 'end'))).toBe('2025-01-31T00:00:00.000Z');
    expect(instantOf('2025-02-30')).toBeNaN();
  });

  it('a day field takes a date-time only when it names one UTC day clearly', () => {
    expect(dayOf('2025-01-31')).toBe('2025-01-31');
    expect(dayOf('2025-01-31T00:00:00Z')).toBe('2025-01-31');
    expect(dayOf('2025-02-01T02:00:00+02:00')).toBe('2025-02-01');
    expect(dayOf('2025-01-31T15:00:00Z')).toBeUndefined();
  });

  it('the yup builders validate and normalise the same way', async () => {
    await expect(dateInput().validate('2025-01-31')).resolves.toBe('2025-01-31');
    await expect(dateInput().validate('2025-01-31T00:00:00Z')).resolves.toBe('2025-01-31T00:00:00Z');
    await expect(dateInput().validate('01/31/2025')).rejects.toThrow(/must be a date \(2025-01-31\) or an ISO 8601 date-time/);
    await expect(dayInput().validate('2025-01-31T00:00:00Z', { strict: true })).resolves.toBe('2025-01-31T00:00:00Z');
    await expect(dayInput().validate('2025-01-31T12:00:00Z')).rejects.toThrow(/midnight UTC/);
  });
});
