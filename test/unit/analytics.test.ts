import {
  compareRanked,
  fillMonths,
  monthSeries,
  monthToDateWindows,
  percentChange,
  previousWindow,
  rankTop,
  requestWindow,
  splitWindow,
  withinSpan,
} from '../../src/domain/analytics/index';

const t = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString();

describe('splitWindow', () => {
  test('when a range spans months, then raw edges, whole days and whole months are returned', () => {
    const s = splitWindow(requestWindow(t('2025-01-15T10:00:00Z'), t('2025-04-03T05:00:00Z')));
    expect(s.raw.map((w) => [iso(w.from), iso(w.to)])).toEqual([
      ['2025-01-15T10:00:00.000Z', '2025-01-16T00:00:00.000Z'],
      ['2025-04-03T00:00:00.000Z', '2025-04-03T05:00:00.001Z'],
    ]);
    expect(s.days).toEqual([
      { from: '2025-01-16', to: '2025-02-01' },
      { from: '2025-04-01', to: '2025-04-03' },
    ]);
    expect(s.months).toEqual([{ from: '2025-02-01', to: '2025-04-01' }]);
    expect(s.allDays).toEqual({ from: '2025-01-16', to: '2025-04-03' });
  });

  test('when a range is within one day, then it is all raw; aligned whole months need no raw rows', () => {
    expect(splitWindow(requestWindow(t('2025-01-15T10:00:00Z'), t('2025-01-15T11:00:00Z')))).toEqual({
      raw: [{ from: t('2025-01-15T10:00:00Z'), to: t('2025-01-15T11:00:00Z') + 1 }],
      days: [],
      months: [],
      allDays: null,
    });
    const s = splitWindow({ from: t('2025-01-01T00:00:00Z'), to: t('2025-03-01T00:00:00Z') });
    expect(s).toEqual({ raw: [], days: [], months: [{ from: '2025-01-01', to: '2025-03-01' }], allDays: { from: '2025-01-01', to: '2025-03-01' } });
  });

  test('when an inclusive end is the last millisecond of a day, then that day is whole', () => {
    const s = splitWindow(requestWindow(t('2025-01-10T00:00:00Z'), t('2025-01-12T23:59:59.999Z')));
    expect(s).toEqual({ raw: [], days: [{ from: '2025-01-10', to: '2025-01-13' }], months: [], allDays: { from: '2025-01-10', to: '2025-01-13' } });
  });
});

describe('months and windows', () => {
  test('when a series crosses a year, then every month is listed once and missing ones are zero', () => {
    const series = monthSeries(t('2024-11-30T23:00:00Z'), t('2025-02-01T00:00:00Z'));
    expect(series).toEqual(['2024-11-01', '2024-12-01', '2025-01-01', '2025-02-01']);
    expect(fillMonths(series, new Map([['2024-12-01', 5]]), 0).map((e) => e.value)).toEqual([0, 5, 0, 0]);
  });

  test('when month to date ends on a day the previous month lacks, then the previous window ends with that month', () => {
    const w = monthToDateWindows(t('2025-03-31T12:00:00Z'));
    expect([iso(w.current.from), iso(w.current.to)]).toEqual(['2025-03-01T00:00:00.000Z', '2025-03-31T12:00:00.001Z']);
    expect([iso(w.previous.from), iso(w.previous.to)]).toEqual(['2025-02-01T00:00:00.000Z', '2025-03-01T00:00:00.000Z']);
    const j = monthToDateWindows(t('2025-01-15T08:30:00Z'));
    expect([iso(j.previous.from), iso(j.previous.to)]).toEqual(['2024-12-01T00:00:00.000Z', '2024-12-15T08:30:00.001Z']);
    const leap = monthToDateWindows(t('2024-03-29T00:00:00Z'));
    expect(iso(leap.previous.to)).toBe('2024-02-29T00:00:00.001Z');
  });

  test('when the previous window is asked, then it has the same length and ends where the range starts', () => {
    expect(previousWindow({ from: 100, to: 250 })).toEqual({ from: -50, to: 100 });
  });

  test('when a span is checked, then 5 calendar years is the limit', () => {
    expect(withinSpan(t('2020-01-01T00:00:00Z'), t('2025-01-01T00:00:00Z'))).toBe(true);
    expect(withinSpan(t('2020-01-01T00:00:00Z'), t('2025-01-01T00:00:00.001Z'))).toBe(false);
  });
});

describe('percentChange and ranking', () => {
  test('when figures change, then the percent is half-up to 2 decimals and null from zero', () => {
    expect(percentChange(1, 3)).toBe(-66.67);
    expect(percentChange(2, 3)).toBe(-33.33);
    expect(percentChange(1, 8)).toBe(-87.5);
    expect(percentChange(3, 2)).toBe(50);
    expect(percentChange('1.0001', '0.8')).toBe(25.01); // 25.0125 -> 25.01
    expect(percentChange('1.00012', '0.8')).toBe(25.02); // 25.015 -> 25.02 (half-up)
    expect(percentChange(5, 0)).toBeNull();
    expect(percentChange(0, 0)).toBeNull();
  });

  test('when revenues tie, then keys ascend in code-point order with null last', () => {
    const rows = [
      { key: 'b', revenue: '10' },
      { key: null, revenue: '10' },
      { key: 'B', revenue: '10' },
      { key: 'a', revenue: '9.99' },
      { key: 'c', revenue: '10.001' },
    ];
    expect(rankTop(rows, 10).map((r) => r.key)).toEqual(['c', 'B', 'b', null, 'a']);
    expect(rankTop(rows, 2).map((r) => r.key)).toEqual(['c', 'B']);
    expect(compareRanked({ key: 'x', revenue: 1 }, { key: 'x', revenue: 1 })).toBe(0);
  });
});
