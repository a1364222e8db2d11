import { checkStatusTransition, parseOrderStatus } from '../../src/domain/orders/status';

describe('order status transitions', () => {
  test.each([
    ['Pending', 'Processing'],
    ['Processing', 'Shipped'],
    ['Shipped', 'Complete'],
    ['Pending', 'Cancelled'],
    ['Processing', 'Cancelled'],
    ['Pending', 'Pending'],
    ['pending', 'PROCESSING'],
  ])('when moving %s -> %s, then it is allowed', (from, to) => {
    expect(checkStatusTransition(from, to)).toBeNull();
  });

  test.each([
    ['Pending', 'Shipped'],
    ['Pending', 'Complete'],
    ['Processing', 'Pending'],
    ['Shipped', 'Cancelled'],
    ['Shipped', 'Processing'],
    ['Complete', 'Cancelled'],
    ['Complete', 'Pending'],
    ['Cancelled', 'Pending'],
    ['Cancelled', 'Processing'],
  ])('when moving %s -> %s, then it is refused with a message', (from, to) => {
    expect(checkStatusTransition(from, to)).toBe(`An order cannot move from ${from} to ${to}.`);
  });

  test('when the target status is unknown, then the message lists the statuses', () => {
    expect(checkStatusTransition('Pending', 'Lost')).toBe('orderStatus must be one of: Pending, Processing, Shipped, Complete, Cancelled, PendingApproval.');
  });

  test('when parsing a status case-insensitively, then the canonical name is returned', () => {
    expect(parseOrderStatus(' shipped ')).toBe('Shipped');
    expect(parseOrderStatus('nope')).toBeNull();
  });
});

describe('an order waiting for approval', () => {
  test('when an update moves an order out of or into PendingApproval, then it is refused (only its approval moves it)', () => {
    expect(checkStatusTransition('PendingApproval', 'Processing')).toMatch(/waiting for approval/);
    expect(checkStatusTransition('PendingApproval', 'Cancelled')).toMatch(/waiting for approval/);
    expect(checkStatusTransition('Pending', 'PendingApproval')).toMatch(/admission/);
    expect(checkStatusTransition('PendingApproval', 'PendingApproval')).toBeNull();
  });
});
