import { creditPosition, fitsCredit } from '../../src/domain/credit/limits';
import { dueDateFor, termErrors, termLabel } from '../../src/domain/credit/terms';

describe('payment terms', () => {
  const d = new Date('2026-01-15T10:30:00Z');
  test('Net N is N days after the invoice date, keeping the time of day', () => {
    expect(dueDateFor(d, { type: 'Net', days: 30 }).toISOString()).toBe('2026-02-14T10:30:00.000Z');
  });
  test('due on receipt is the invoice date', () => {
    expect(dueDateFor(d, { type: 'DueOnReceipt', days: 0 }).toISOString()).toBe(d.toISOString());
  });
  test('end of month + N counts from the last day of the month (February, leap years, December)', () => {
    expect(dueDateFor(d, { type: 'EndOfMonth', days: 10 }).toISOString()).toBe('2026-02-10T10:30:00.000Z');
    expect(dueDateFor(new Date('2028-02-03T00:00:00Z'), { type: 'EndOfMonth', days: 0 }).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(dueDateFor(new Date('2026-12-31T23:00:00Z'), { type: 'EndOfMonth', days: 1 }).toISOString()).toBe('2027-01-01T23:00:00.000Z');
  });
  test('validation and labels', () => {
    expect(termErrors({ type: 'Net', days: 30 })).toEqual({});
    expect(Object.keys(termErrors({ type: 'Weekly', days: 7 }))).toEqual(['Type']);
    expect(Object.keys(termErrors({ type: 'DueOnReceipt', days: 3 }))).toEqual(['Days']);
    expect(Object.keys(termErrors({ type: 'Net', days: 400 }))).toEqual(['Days']);
    expect(termLabel({ type: 'EndOfMonth', days: 0 })).toBe('EOM');
  });
});

describe('credit position', () => {
  test('available credit is the limit minus the open balance, never below zero; a null limit allows nothing', () => {
    const p = creditPosition('100', '80.004', 'USD');
    expect(p.availableCredit.toFixed(2)).toBe('20.00');
    expect(fitsCredit(p, '20.00')).toBe(true);
    expect(fitsCredit(p, '20.01')).toBe(false);
    expect(creditPosition('100', '150', 'USD').availableCredit.toFixed(2)).toBe('0.00');
    expect(fitsCredit(creditPosition(null, '0', 'USD'), '0.01')).toBe(false);
  });
});

import { DEFAULT_DUNNING, dunningSchedule } from '../../src/domain/credit/dunning';

describe('dunning schedule', () => {
  const day = DEFAULT_DUNNING.dayMs;
  const due = Date.parse('2026-03-01T12:00:00Z');
  test('an invoice issued long before its due date: due-7, due, +7, +14, then the hold at +30', () => {
    const s = dunningSchedule(due, due - 30 * day, DEFAULT_DUNNING);
    expect(s.map((x) => [x.key, (x.atMs - due) / day])).toEqual([
      ['due-7', -7],
      ['due', 0],
      ['due+7', 7],
      ['due+14', 14],
      ['hold', 30],
    ]);
  });
  test('a due-on-receipt invoice: the due reminder at once (due-7 is dropped), then the rest', () => {
    const s = dunningSchedule(due, due, DEFAULT_DUNNING);
    expect(s.map((x) => x.key)).toEqual(['due', 'due+7', 'due+14', 'hold']);
    expect(s[0].atMs).toBe(due);
  });
  test('reopened 40 days after the due date: the latest reminder and the hold, both at once', () => {
    const now = due + 40 * day;
    expect(dunningSchedule(due, now, DEFAULT_DUNNING)).toEqual([
      { key: 'due+14', kind: 'reminder', days: 14, atMs: now },
      { key: 'hold', kind: 'hold', days: 30, atMs: now },
    ]);
  });
});
