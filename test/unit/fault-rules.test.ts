import { parseFaultRules } from '../support/fault-injection';

describe('FAULT_INJECTION rules (test-only worker hook)', () => {
  test('when rules are listed, then each names an activity type and a hold time', () => {
    expect(parseFaultRules('hang-after:chargeProfile:4000, hang-after:voidCharge:10')).toEqual([
      { activityType: 'chargeProfile', hangAfterMs: 4000 },
      { activityType: 'voidCharge', hangAfterMs: 10 },
    ]);
  });

  test('when a rule names a text, then it holds only activities whose first argument contains it', () => {
    expect(parseFaultRules('hang-after:deliverEmail:120000:dunning-')).toEqual([
      { activityType: 'deliverEmail', hangAfterMs: 120000, argContains: 'dunning-' },
    ]);
  });

  test('when a rule is malformed, then parsing fails instead of silently injecting nothing', () => {
    expect(() => parseFaultRules('hang-after:chargeProfile')).toThrow('FAULT_INJECTION: cannot parse "hang-after:chargeProfile"');
    expect(() => parseFaultRules('crash:chargeProfile:10')).toThrow(/expected hang-after/);
  });

  test('when the variable is empty, then there are no rules', () => {
    expect(parseFaultRules(' ')).toEqual([]);
  });
});
