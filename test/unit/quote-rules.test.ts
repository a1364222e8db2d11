import { checkQuoteLines, offerTotals, quoteMove, reminderAt } from '../../src/domain/quotes/rules';

describe('quote moves', () => {
  test('when the seller offers on a request or counter, then Quoted; on an open offer, refused', () => {
    expect(quoteMove('Requested', 'offer')).toEqual({ ok: true, to: 'Quoted' });
    expect(quoteMove('Countered', 'offer')).toEqual({ ok: true, to: 'Quoted' });
    expect(quoteMove('Quoted', 'offer')).toMatchObject({ ok: false, reason: expect.stringContaining('The quote is Quoted') });
  });
  test('when an accepted quote is accepted again, then refused', () => {
    expect(quoteMove('Quoted', 'accept')).toEqual({ ok: true, to: 'Accepted' });
    expect(quoteMove('Accepted', 'accept')).toEqual({ ok: false, reason: 'The quote is Accepted; only a Quoted quote can be accepted.' });
  });
  test('when the offer has passed expiresAt, then accept and counter are refused even before the expiry ran', () => {
    expect(quoteMove('Quoted', 'accept', { expiresAtMs: 1000, nowMs: 1000 })).toEqual({ ok: false, reason: 'The offer has expired.' });
    expect(quoteMove('Quoted', 'counter', { expiresAtMs: 1000, nowMs: 999 })).toEqual({ ok: true, to: 'Countered' });
  });
  test('when a buyer rejects, then only an offer; when a seller rejects, then only what waits for it', () => {
    expect(quoteMove('Quoted', 'reject', { side: 'buyer' }).ok).toBe(true);
    expect(quoteMove('Requested', 'reject', { side: 'buyer' }).ok).toBe(false);
    expect(quoteMove('Countered', 'reject', { side: 'seller' }).ok).toBe(true);
    expect(quoteMove('Quoted', 'reject', { side: 'seller' }).ok).toBe(false);
    expect(quoteMove('Expired', 'reject').ok).toBe(false);
  });
});

describe('offer money', () => {
  test('when a discount applies, then each net unit price is rounded half-up and the total is the sum of net lines', () => {
    const t = offerTotals(
      [
        { sku: 'A', quantity: 20, unitPrice: '7.30' },
        { sku: 'B', quantity: 2, unitPrice: 23.5 },
      ],
      'USD',
      5,
    );
    expect(t.lines.map((l) => [l.netUnitPrice.toFixed(2), l.lineTotal.toFixed(2)])).toEqual([
      ['6.94', '138.80'],
      ['22.33', '44.66'],
    ]);
    expect(t.subtotal.toFixed(2)).toBe('193.00');
    expect(t.total.toFixed(2)).toBe('183.46');
    expect(t.discountAmount.toFixed(2)).toBe('9.54');
  });
  test('when the currency has no minor unit, then net prices are whole', () => {
    expect(offerTotals([{ sku: 'A', quantity: 3, unitPrice: 1005 }], 'JPY', 10).lines[0].netUnitPrice.toFixed()).toBe('905');
  });
  test('when a discount is outside 0..100, then it is refused', () => {
    expect(() => offerTotals([], 'USD', 101)).toThrow(RangeError);
  });
});

test('when the reminder window is longer than the offer, then the reminder is due at once; without room, none', () => {
  expect(reminderAt(10_000, 3_000, 0)).toBe(7_000);
  expect(reminderAt(10_000, 30_000, 500)).toBe(500);
  expect(reminderAt(10_000, 3_000, 10_000)).toBeNull();
  expect(reminderAt(10_000, 0, 0)).toBeNull();
});

test('when lines repeat a SKU, have no quantity or a negative price, then each is named', () => {
  expect(checkQuoteLines([])).toEqual({ items: ['A quote needs at least one line.'] });
  expect(
    checkQuoteLines([
      { sku: 'A', quantity: 1 },
      { sku: 'a', quantity: 0, targetPrice: -1 },
    ]),
  ).toEqual({ 'items[1].sku': ['a appears more than once.'], 'items[1].quantity': ['quantity must be a whole number of at least 1.'], 'items[1].targetPrice': ['targetPrice must not be negative.'] });
});
