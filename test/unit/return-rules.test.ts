/** Return (RMA) rules (src/domain/returns/rules.ts; docs/returns.md "Returns"). */
import { planReturn, refundMethodOf, withinReturnWindow } from '../../src/domain/returns/rules';

const lines = [
  { id: 'a', sku: 'WIDGET', productName: 'Widget', shippedQuantity: 3, returnedQuantity: 1, price: '20.005' },
  { id: 'b', sku: 'GADGET', productName: 'Gadget', shippedQuantity: 2, returnedQuantity: 2, price: '10' },
  { id: 'c', sku: 'NOTYET', productName: 'Later', shippedQuantity: 0, returnedQuantity: 0, price: '5' },
];

test('when units shipped and not returned yet are asked back, then the plan prices them per line (rounded) with the reason', () => {
  const p = planReturn(lines, [{ sku: 'widget', quantity: 2, reason: 'Broken' }], 'USD');
  expect(p).toEqual({ ok: true, amount: expect.anything(), lines: [{ orderItemId: 'a', sku: 'WIDGET', productName: 'Widget', quantity: 2, price: '20.005', amount: '40.01', reason: 'Broken' }] });
  if (p.ok) expect(p.amount.toFixed()).toBe('40.01');
});

test('when more than shipped less returned is asked, then 400 names the line; a line fully returned is 409; an unknown sku names lines[i].sku', () => {
  expect(planReturn(lines, [{ sku: 'WIDGET', quantity: 1, reason: 'x' }, { sku: 'WIDGET', quantity: 2, reason: 'x' }], 'USD')).toMatchObject({ ok: false, status: 400, errors: { 'lines[1].quantity': [expect.stringContaining('At most 2')] } });
  expect(planReturn(lines, [{ sku: 'GADGET', quantity: 1, reason: 'x' }], 'USD')).toMatchObject({ ok: false, status: 409, errors: { 'lines[0].quantity': [expect.any(String)] } });
  expect(planReturn(lines, [{ sku: 'NOTYET', quantity: 1, reason: 'x' }], 'USD')).toMatchObject({ ok: false, status: 400 });
  expect(planReturn(lines, [{ sku: 'NOPE', quantity: 1, reason: 'x' }], 'USD')).toMatchObject({ ok: false, status: 400, errors: { 'lines[0].sku': [expect.any(String)] } });
});

test('the return window includes its last moment; the refund method follows staff, then policy, and needs a card charge', () => {
  const shipped = new Date('2026-11-01T10:00:00Z');
  expect(withinReturnWindow(shipped, 30, new Date('2026-12-01T10:00:00Z'))).toBe(true);
  expect(withinReturnWindow(shipped, 30, new Date('2026-12-01T10:00:01Z'))).toBe(false);
  expect(withinReturnWindow(shipped, 0, new Date('2026-11-01T10:00:01Z'))).toBe(false);
  expect(refundMethodOf('card', null, true)).toBe('card');
  expect(refundMethodOf('card', null, false)).toBe('credit');
  expect(refundMethodOf('card', 'credit', true)).toBe('credit');
  expect(refundMethodOf('credit', 'card', true)).toBe('card');
  expect(refundMethodOf('credit', undefined, true)).toBe('credit');
});
