/** The commission rule engine (pure): conditions, precedence, wildcards, discount spread, rounding, clawbacks, plan checks. */
import {
  choosePlan,
  clawbacksFor,
  computeEntries,
  computeEntry,
  financeMove,
  matchesPattern,
  periodsOverlap,
  planProblems,
  rateFor,
  ruleMatches,
  spreadDiscount,
  type LineFacts,
  type PlanRules,
  type Rule,
} from '../../src/domain/commissions/index';

const line = (over: Partial<LineFacts> = {}): LineFacts => ({ sku: 'ABC-1', productName: 'Thing', customerNumber: 'C-1', lineAmount: '100.00', ...over });
const rule = (match: Rule['Match'], over: Partial<Rule> = {}): Rule => ({ Priority: 1, Name: 'R', Rate: '0.1', Match: match, ...over });

describe('wildcard patterns', () => {
  test.each([
    ['WID-*', 'WID-100', true],
    ['wid-*', 'WID-100', true],
    ['WID-*', 'XWID-100', false],
    ['WID-?', 'WID-1', true],
    ['WID-?', 'WID-12', false],
    ['*', '', true],
    ['A.B', 'AxB', false],
    ['A.B', 'A.B', true],
    ['(x)+', '(x)+', true],
    ['*gadget*', 'Mega Gadget Pro', true],
  ])('when %s is matched against %s, then %s', (p, v, want) => {
    expect(matchesPattern(p, v)).toBe(want);
  });
});

describe('rule conditions', () => {
  test.each<[string, Rule['Match'], Partial<LineFacts>, boolean]>([
    ['empty match always matches', {}, {}, true],
    ['null match always matches', null, {}, true],
    ['SKU pattern hit', { SkuPatterns: ['ABC-*'] }, {}, true],
    ['SKU pattern miss', { SkuPatterns: ['XYZ-*'] }, {}, false],
    ['any of several SKU patterns', { SkuPatterns: ['XYZ-*', 'abc-?'] }, {}, true],
    ['product name pattern hit', { ProductNamePatterns: ['th*'] }, {}, true],
    ['product name pattern miss', { ProductNamePatterns: ['other'] }, {}, false],
    ['product name missing never matches a pattern needing characters', { ProductNamePatterns: ['?*'] }, { productName: null }, false],
    ['customer number hit (case-insensitive)', { CustomerNumbers: ['c-1'] }, {}, true],
    ['customer number miss', { CustomerNumbers: ['C-2'] }, {}, false],
    ['min line amount inclusive', { MinLineAmount: '100.00' }, {}, true],
    ['min line amount above', { MinLineAmount: '100.01' }, {}, false],
    ['max line amount inclusive', { MaxLineAmount: '100' }, {}, true],
    ['max line amount below', { MaxLineAmount: '99.99' }, {}, false],
    ['all conditions must hold', { SkuPatterns: ['ABC-*'], CustomerNumbers: ['C-2'] }, {}, false],
    ['all conditions hold', { SkuPatterns: ['ABC-*'], CustomerNumbers: ['C-1'], MinLineAmount: 50, MaxLineAmount: 150 }, {}, true],
  ])('when %s, then the rule matches is as expected', (_name, match, over, want) => {
    expect(ruleMatches(rule(match), line(over))).toBe(want);
  });
});

const plan = (over: Partial<PlanRules> = {}): PlanRules => ({
  id: 'p1',
  DefaultRate: '0.05',
  EffectiveStartDate: '2026-01-01T00:00:00Z',
  EffectiveEndDate: null,
  Active: true,
  Rules: [
    { Priority: 20, Name: 'Big', Rate: '0.08', Match: { MinLineAmount: '1000' } },
    { Priority: 10, Name: 'Widgets', Rate: '0.1', Match: { SkuPatterns: ['WID-*'] } },
  ],
  CustomerOverrides: [
    { CustomerNumber: 'VIP', EffectiveStartDate: '2026-02-01T00:00:00Z', EffectiveEndDate: '2026-02-28T23:59:59Z', Rules: [{ Priority: 1, Name: 'VIP widgets', Rate: '0.2', Match: { SkuPatterns: ['WID-*'] } }] },
  ],
  ...over,
});

describe('rate precedence', () => {
  test.each<[string, Partial<LineFacts>, string, string, string]>([
    ['override rule wins over plan rules', { sku: 'WID-1', customerNumber: 'VIP' }, '2026-02-10T00:00:00Z', 'VIP widgets', '0.2'],
    ['override not effective yet: plan rules', { sku: 'WID-1', customerNumber: 'VIP' }, '2026-01-10T00:00:00Z', 'Widgets', '0.1'],
    ['override ended: plan rules', { sku: 'WID-1', customerNumber: 'VIP' }, '2026-03-01T00:00:00Z', 'Widgets', '0.1'],
    ['override with no matching rule falls back to plan rules', { sku: 'BOLT', customerNumber: 'VIP', lineAmount: '2000' }, '2026-02-10T00:00:00Z', 'Big', '0.08'],
    ['lower priority number first (both match)', { sku: 'WID-1', lineAmount: '5000' }, '2026-02-10T00:00:00Z', 'Widgets', '0.1'],
    ['second rule when the first does not match', { sku: 'BOLT', lineAmount: '1000' }, '2026-02-10T00:00:00Z', 'Big', '0.08'],
    ['default when nothing matches', { sku: 'BOLT', lineAmount: '999.99' }, '2026-02-10T00:00:00Z', 'Default', '0.05'],
  ])('when %s, then rule and rate are chosen', (_name, over, date, ruleName, rate) => {
    const r = rateFor(plan(), line(over), date);
    expect(r.rule).toBe(ruleName);
    expect(r.rate.toFixed()).toBe(rate);
  });

  test('when plans are chosen by date, then only the active plan whose dates contain the day is used', () => {
    const a = plan({ id: 'a', EffectiveStartDate: '2026-01-01T00:00:00Z', EffectiveEndDate: '2026-06-30T23:59:59Z' });
    const b = plan({ id: 'b', EffectiveStartDate: '2026-07-01T00:00:00Z', EffectiveEndDate: null });
    const off = plan({ id: 'off', Active: false, EffectiveStartDate: '2025-01-01T00:00:00Z' });
    expect(choosePlan([a, b, off], '2026-03-01T00:00:00Z')?.id).toBe('a');
    expect(choosePlan([a, b, off], '2026-06-30T23:59:59Z')?.id).toBe('a');
    expect(choosePlan([a, b, off], '2026-07-01T00:00:00Z')?.id).toBe('b');
    expect(choosePlan([a, b, off], '2025-06-01T00:00:00Z')).toBeNull();
  });
});

describe('discount spread and rounding', () => {
  test.each<[string[], string, string[]]>([
    [['100', '200'], '10', ['3.33', '6.67']],
    [['10', '10', '10'], '10', ['3.33', '3.33', '3.34']],
    [['50', '0'], '5', ['5', '0']],
    [['100'], '0', ['0']],
    [['10', '20'], '100', ['10', '20']],
  ])('when %j share a discount of %s, then the shares are %j and add up exactly', (amounts, discount, want) => {
    const shares = spreadDiscount(amounts, discount, 'USD');
    expect(shares.map((s) => s.toFixed())).toEqual(want);
  });

  test('when an invoice is priced, then each line is rounded half-up on its own and the entry sums the lines', () => {
    const e = computeEntry(plan({ Rules: [], CustomerOverrides: [] }), {
      invoiceId: 'i',
      invoiceNumber: 'INV-1',
      customerNumber: 'C-1',
      invoiceDate: '2026-03-01T00:00:00Z',
      currencyCode: 'USD',
      items: [
        { sku: 'A', quantity: 1, price: '100' },
        { sku: 'B', quantity: 1, price: '200' },
        { sku: 'C', quantity: 3, price: '0.05' },
      ],
      discountAmount: '10',
    });
    // shares of 10.00 over 100 / 200 / 0.15: 3.33 (3.3317), 6.66 (6.6633), and the last line takes the remainder 0.01
    expect(e.lines.map((l) => [l.base.toFixed(2), l.commission.toFixed(2)])).toEqual([
      ['96.67', '4.83'],
      ['193.34', '9.67'],
      ['0.14', '0.01'],
    ]);
    expect(e.base.toFixed(2)).toBe('290.15');
    expect(e.commission.toFixed(2)).toBe('14.51');
  });

  test('when a yen invoice is priced, then rounding is to whole yen', () => {
    const e = computeEntry(plan({ Rules: [], CustomerOverrides: [], DefaultRate: '0.05' }), {
      invoiceId: 'i',
      invoiceNumber: 'INV-2',
      customerNumber: 'C-1',
      invoiceDate: '2026-03-01T00:00:00Z',
      currencyCode: 'JPY',
      items: [{ sku: 'A', quantity: 1, price: '1010' }],
      discountAmount: '0',
    });
    expect(e.commission.toFixed()).toBe('51');
  });
});

describe('compiled plans (a whole statement at once)', () => {
  // A seeded generator, so a failure names invoices that can be rebuilt.
  const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const many = plan({
    Rules: [
      { Priority: 20, Name: 'Big', Rate: '0.08', Match: { MinLineAmount: '1000' } },
      { Priority: 10, Name: 'Widgets', Rate: '0.1', Match: { SkuPatterns: ['WID-*', 'w?G-*'] } },
      { Priority: 15, Name: 'Gadgets', Rate: '0.0725', Match: { ProductNamePatterns: ['*gadget*'], MaxLineAmount: '250.5' } },
      { Priority: 5, Name: 'Key accounts', Rate: '0.125', Match: { CustomerNumbers: ['key-1', 'KEY-2'], SkuPatterns: ['*-9'] } },
    ],
    CustomerOverrides: [
      ...plan().CustomerOverrides,
      { CustomerNumber: 'vip', EffectiveStartDate: '2026-03-01T00:00:00Z', EffectiveEndDate: null, Rules: [{ Priority: 1, Name: 'VIP all', Rate: '0.15', Match: null }] },
    ],
  });

  test('when thousands of generated invoices are priced with compiled plans, then every entry equals the line-by-line engine', () => {
    const r = rng(42);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
    const invoices = Array.from({ length: 3000 }, (_, i) => {
      const currencyCode = pick(['USD', 'USD', 'JPY', 'BHD']);
      const items = Array.from({ length: 1 + Math.floor(r() * 4) }, () => ({
        sku: pick(['WID-1', 'WIG-22', 'BOLT-9', 'NUT', 'GAD-3']),
        productName: pick(['Mega Gadget Pro', 'Widget', null, 'bolt']),
        quantity: 1 + Math.floor(r() * 40),
        price: (r() * 900).toFixed(pick([0, 2, 4])),
      }));
      return {
        invoiceId: `i${i}`,
        invoiceNumber: `INV-${i}`,
        customerNumber: pick(['C-1', 'VIP', 'key-1', 'KEY-2', 'vip']),
        invoiceDate: pick(['2026-01-15T10:00:00Z', '2026-02-10T00:00:00Z', '2026-02-28T23:59:59Z', '2026-03-20T00:00:00Z']),
        currencyCode,
        items,
        discountAmount: pick(['0', '0.0000', '10', '33.33', '5000', '0.01']),
      };
    });
    const fast = computeEntries([many], invoices);
    const slow = invoices.map((inv) => computeEntry(many, inv));
    const view = (e: ReturnType<typeof computeEntry>) => ({
      ...e,
      base: e.base.toFixed(),
      commission: e.commission.toFixed(),
      lines: e.lines.map((l) => ({ ...l, base: l.base.toFixed(), rate: l.rate.toFixed(), commission: l.commission.toFixed() })),
    });
    expect(fast.map(view)).toEqual(slow.map(view));
    // Every rule and the default are exercised.
    expect(new Set(fast.flatMap((e) => e.lines.map((l) => l.rule)))).toEqual(new Set(['Big', 'Widgets', 'Gadgets', 'Key accounts', 'VIP widgets', 'VIP all', 'Default']));
  });

  test('when an invoice has no plan at its date, then it earns no entry', () => {
    const inv = { invoiceId: 'i', invoiceNumber: 'INV-1', customerNumber: 'C-1', invoiceDate: '2025-06-01T00:00:00Z', currencyCode: 'USD', items: [{ sku: 'A', quantity: 1, price: '10' }], discountAmount: '0' };
    expect(computeEntries([plan()], [inv])).toEqual([]);
  });
});

describe('clawbacks', () => {
  const entry = (over: Partial<Parameters<typeof clawbacksFor>[0][number]> = {}) => ({
    entryId: 'e1',
    invoiceId: 'i1',
    invoiceNumber: 'INV-1',
    commission: '15.00',
    invoiceTotal: '100.00',
    currencyCode: 'USD',
    invoiceStatus: 'Paid',
    refunds: [] as { refundId: string; amount: string; createdAt: string }[],
    ...over,
  });
  test('when an invoice is voided, then the whole commission is clawed back once', () => {
    const got = clawbacksFor([entry({ invoiceStatus: 'Voided' })], []);
    expect(got.map((c) => [c.cause, c.amount.toFixed(2)])).toEqual([['void', '-15.00']]);
    expect(clawbacksFor([entry({ invoiceStatus: 'Voided' })], [{ entryId: 'e1', cause: 'void', amount: '-15' }])).toEqual([]);
  });
  test('when refunded and later cancelled, then refund share first and the rest on cancel, never more than the commission', () => {
    const refunds = [{ refundId: 'r1', amount: '33.33', createdAt: '2026-04-01T00:00:00Z' }];
    const first = clawbacksFor([entry({ refunds })], []);
    expect(first.map((c) => [c.cause, c.amount.toFixed(2)])).toEqual([['refund:r1', '-5.00']]);
    const later = clawbacksFor([entry({ refunds, invoiceStatus: 'Cancelled' })], [{ entryId: 'e1', cause: 'refund:r1', amount: '-5.00' }]);
    expect(later.map((c) => [c.cause, c.amount.toFixed(2)])).toEqual([['cancel', '-10.00']]);
  });
  test('when the commission is zero, then nothing is clawed back', () => {
    expect(clawbacksFor([entry({ commission: '0', invoiceStatus: 'Voided' })], [])).toEqual([]);
  });
});

describe('statement moves and periods', () => {
  test.each([
    ['Draft', 'approve', 'Approved'],
    ['Draft', 'reject', 'Rejected'],
    ['Draft', 'recalculate', 'Draft'],
    ['Approved', 'markPaid', 'Paid'],
  ] as const)('when %s is %s-ed, then it becomes %s', (from, action, to) => {
    expect(financeMove(from, action)).toEqual({ ok: true, to });
  });
  test.each([
    ['Generating', 'approve'],
    ['Approved', 'approve'],
    ['Approved', 'recalculate'],
    ['Paid', 'markPaid'],
    ['Rejected', 'approve'],
    ['Draft', 'markPaid'],
  ] as const)('when %s is %s-ed, then it is refused', (from, action) => {
    expect(financeMove(from, action).ok).toBe(false);
  });
  test('when periods share a day, then they overlap (both ends inclusive)', () => {
    expect(periodsOverlap('2026-03-01', '2026-03-31', '2026-03-31', '2026-04-30')).toBe(true);
    expect(periodsOverlap('2026-03-01', '2026-03-31', '2026-04-01', '2026-04-30')).toBe(false);
  });
});

describe('plan checks', () => {
  const base = { DefaultRate: 0.05, EffectiveStartDate: '2026-01-01T00:00:00Z', EffectiveEndDate: null, Rules: [], CustomerOverrides: [] };
  test('when the plan is valid, then there are no problems', () => {
    expect(planProblems(base)).toEqual({});
  });
  test('when rates, priorities, dates, patterns and amounts are wrong, then every field is named', () => {
    const errors = planProblems({
      ...base,
      DefaultRate: 1.01,
      EffectiveEndDate: '2025-12-31T00:00:00Z',
      Rules: [
        { Priority: 1, Name: 'a', Rate: -0.1, Match: { SkuPatterns: [''], MinLineAmount: 10, MaxLineAmount: 5 } },
        { Priority: 1, Name: 'b', Rate: 0.1234567 },
      ],
      CustomerOverrides: [
        { CustomerNumber: 'C', EffectiveStartDate: '2026-01-01T00:00:00Z', EffectiveEndDate: null, Rules: [] },
        { CustomerNumber: 'c', EffectiveStartDate: '2026-05-01T00:00:00Z', EffectiveEndDate: null, Rules: [] },
      ],
    });
    expect(Object.keys(errors).sort()).toEqual(
      [
        'CustomerOverrides[1].EffectiveStartDate',
        'DefaultRate',
        'EffectiveEndDate',
        'Rules[0].Match.MaxLineAmount',
        'Rules[0].Match.SkuPatterns[0]',
        'Rules[0].Rate',
        'Rules[1].Priority',
        'Rules[1].Rate',
      ].sort(),
    );
  });
});
