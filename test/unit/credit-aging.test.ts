import { AGING_BUCKETS, agingBucket, agingSummary, daysPastDue } from '../../src/domain/credit/aging';

describe('aging buckets', () => {
  test.each([
    [-5, 'current'],
    [0, 'current'],
    [1, '1-30'],
    [30, '1-30'],
    [31, '31-60'],
    [60, '31-60'],
    [61, '61-90'],
    [90, '61-90'],
    [91, '90+'],
    [400, '90+'],
  ])('%i days past due is %s', (days, bucket) => {
    expect(agingBucket(days)).toBe(bucket);
  });
});

describe('days past due', () => {
  test('counts whole UTC days from the due day to the as-of day, whatever the time of day', () => {
    expect(daysPastDue('2026-03-01T23:59:59Z', '2026-03-01')).toBe(0);
    expect(daysPastDue('2026-03-01T00:00:00Z', '2026-03-02')).toBe(1);
    expect(daysPastDue('2026-03-01T23:59:59Z', '2026-03-02')).toBe(1);
    expect(daysPastDue(new Date('2026-01-30T12:00:00Z'), '2026-03-01')).toBe(30);
    expect(daysPastDue('2026-01-30T12:00:00Z', '2026-03-02')).toBe(31);
    // Leap day and year end.
    expect(daysPastDue('2028-02-28T00:00:00Z', '2028-03-01')).toBe(2);
    expect(daysPastDue('2026-12-31T00:00:00Z', '2027-01-01')).toBe(1);
  });
  test('an invoice not yet due is 0 days past due', () => {
    expect(daysPastDue('2026-04-01T00:00:00Z', '2026-03-01')).toBe(0);
  });
});

describe('aging summary', () => {
  test('sums balances exactly per bucket, every bucket present in order, amounts rounded to the minor unit once per invoice', () => {
    const { lines, total } = agingSummary(
      [
        { bucket: 'current', balance: '0.10' },
        { bucket: 'current', balance: '0.20' },
        { bucket: '31-60', balance: '1000000.005' },
        { bucket: '90+', balance: 33.33 },
      ],
      'USD',
    );
    expect(lines.map((l) => l.bucket)).toEqual([...AGING_BUCKETS]);
    expect(lines.map((l) => [l.count, l.amount.toFixed(2)])).toEqual([
      [2, '0.30'],
      [0, '0.00'],
      [1, '1000000.01'],
      [0, '0.00'],
      [1, '33.33'],
    ]);
    expect(total.toFixed(2)).toBe('1000033.64');
  });
  test('a currency without minor units rounds to whole amounts', () => {
    expect(agingSummary([{ bucket: '1-30', balance: '100.5' }], 'JPY').total.toFixed()).toBe('101');
  });
});
