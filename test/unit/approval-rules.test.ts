import { approvalLevels, approvalRefusal, approverLimitRefusal, checkSpending, monthStart } from '../../src/domain/approvals/rules';
import { enteredStatusSchema } from '../../src/domain/orders/schemas';

describe('spending limits', () => {
  test('when the total exceeds the per-order limit, then an approval is needed', () => {
    expect(checkSpending(200, 0, { orderLimit: 150, monthlyLimit: null })).toEqual({ needsApproval: true, reason: 'the total 200.00 exceeds the per-order limit 150.00' });
    expect(checkSpending(150, 0, { orderLimit: 150, monthlyLimit: null })).toEqual({ needsApproval: false });
  });
  test('when the total exceeds what is left of the monthly limit, then an approval is needed; nothing left counts as zero', () => {
    expect(checkSpending(100, 200, { orderLimit: null, monthlyLimit: 250 })).toEqual({ needsApproval: true, reason: 'the total 100.00 exceeds the remaining monthly limit 50.00' });
    expect(checkSpending(50, 200, { orderLimit: null, monthlyLimit: 250 })).toEqual({ needsApproval: false });
    expect(checkSpending(1, 300, { orderLimit: null, monthlyLimit: 250 })).toMatchObject({ reason: expect.stringContaining('limit 0.00') });
  });
  test('when there are no limits, then never', () => {
    expect(checkSpending(1e9, 1e9, { orderLimit: null, monthlyLimit: null })).toEqual({ needsApproval: false });
  });
});

test('when the chain is built, then Approvers by their own limit (unlimited last, never the requester), then the admins', () => {
  const levels = approvalLevels(
    'buyer',
    [
      { userId: 'max', email: 'max@x', orderLimit: null },
      { userId: 'ann', email: 'ann@x', orderLimit: '1000' },
      { userId: 'buyer', email: 'b@x', orderLimit: '10' },
      { userId: 'amy', email: 'amy@x', orderLimit: 1000 },
    ],
    [{ userId: 'admin', email: 'admin@x' }],
  );
  expect(levels.map((l) => [l.level, l.kind, l.userIds])).toEqual([
    [1, 'Approvers', ['ann', 'amy']],
    [2, 'Approvers', ['max']],
    [3, 'Admins', ['admin']],
  ]);
  expect(approvalLevels('b', [], [{ userId: 'admin', email: 'a@x' }])).toEqual([{ level: 1, kind: 'Admins', userIds: ['admin'], emails: ['a@x'] }]);
});

test('when a decided request is decided again, then refused', () => {
  expect(approvalRefusal('Pending', 'approve')).toBeNull();
  expect(approvalRefusal('Approved', 'approve')).toBe('The approval is Approved; only a Pending approval can be approved.');
  expect(approvalRefusal('Expired', 'reject')).toBe('The approval is Expired; only a Pending approval can be rejected.');
});

test('when the month starts, then at 00:00 UTC on the first', () => {
  expect(monthStart(new Date('2026-11-24T20:00:00Z')).toISOString()).toBe('2026-11-01T00:00:00.000Z');
});

describe('an Approver approves within its own limit', () => {
  test('when the total is above its orderLimit, then refused naming orderLimit; at or below it, or without a limit, allowed', () => {
    expect(approverLimitRefusal(1100, 1000, 'USD')).toMatchObject({ errors: { orderLimit: [expect.stringContaining('1000.00 USD')] }, message: expect.stringContaining('1100.00 USD') });
    expect(approverLimitRefusal(1000, 1000, 'USD')).toBeNull();
    expect(approverLimitRefusal(1e9, null, 'USD')).toBeNull();
  });
});

test('when an order is entered, then any status but PendingApproval (in any case) is taken', async () => {
  await expect(enteredStatusSchema.validate('Processing')).resolves.toBe('Processing');
  await expect(enteredStatusSchema.validate('PendingApproval')).rejects.toThrow(/only by the admission/);
  await expect(enteredStatusSchema.validate(' pendingapproval ')).rejects.toThrow(/only by the admission/);
});

test('when a request is no longer Pending, then withdrawing it is refused', () => {
  expect(approvalRefusal('Pending', 'withdraw')).toBeNull();
  expect(approvalRefusal('Approved', 'withdraw')).toBe('The approval is Approved; only a Pending approval can be withdrawn.');
});
