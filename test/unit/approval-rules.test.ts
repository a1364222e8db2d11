import { approvalLevels, approvalRefusal, checkSpending, monthStart } from '../../src/domain/approvals/rules';

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
