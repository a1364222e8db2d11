import { detectCardType, isExpired, luhnValid, maskCardNumber } from '../../src/domain/payments/cards.js';
import { checkTestCard as checkCard, expirationMMYY, formatCents, parseAmountCents, TEST_CARDS } from '../../scripts/provider-sandbox/cards.js';
import { canonicalCallbackString, signCallback, verifyCallbackSignature, withSignature } from '../../src/domain/payments/callback-signature.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const future = { expMonth: 12, expYear: 2030, cvv: '123' };

describe('provider sandbox card rules', () => {
  test('when a test card number is checked, then it passes Luhn', () => {
    for (const n of Object.values(TEST_CARDS)) expect(luhnValid(n)).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
  });

  test('when a card number has a known prefix, then its type is detected', () => {
    expect(detectCardType('4111111111111111')).toBe('Visa');
    expect(detectCardType('5555555555554444')).toBe('Mastercard');
    expect(detectCardType('2221000000000009')).toBe('Mastercard');
    expect(detectCardType('378282246310005')).toBe('AmericanExpress');
    expect(detectCardType('6011111111111117')).toBe('Discover');
    expect(detectCardType('9111111111111111')).toBeNull();
  });

  test('when a card is masked, then only the last four digits remain', () => {
    expect(maskCardNumber('4111111111111111')).toBe('XXXX1111');
    expect(maskCardNumber('378282246310005')).toBe('XXXX0005');
  });

  test('when an approving test card is checked, then it is approved with type and mask', () => {
    expect(checkCard({ number: TEST_CARDS.approveVisa, ...future }, NOW)).toEqual({
      outcome: 'approved',
      cardType: 'Visa',
      lastFour: '1111',
      maskedCardNumber: 'XXXX1111',
      expMonth: 12,
      expYear: 2030,
    });
    expect(checkCard({ number: TEST_CARDS.approveMastercard, ...future }, NOW).outcome).toBe('approved');
    expect(checkCard({ number: TEST_CARDS.approveAmex, ...future, cvv: '1234' }, NOW)).toMatchObject({ outcome: 'approved', cardType: 'AmericanExpress' });
    expect(checkCard({ number: TEST_CARDS.approveDiscover, ...future }, NOW)).toMatchObject({ outcome: 'approved', cardType: 'Discover' });
  });

  test('when a failing test card is checked, then its fixed outcome is returned', () => {
    expect(checkCard({ number: TEST_CARDS.decline, ...future }, NOW).outcome).toBe('declined');
    expect(checkCard({ number: TEST_CARDS.insufficientFunds, ...future }, NOW).outcome).toBe('insufficient_funds');
    expect(checkCard({ number: TEST_CARDS.expired, ...future }, NOW).outcome).toBe('expired');
  });

  test('when the expiry is in the past, then any card is expired; the expiry month itself is still valid', () => {
    expect(checkCard({ number: TEST_CARDS.approveVisa, expMonth: 5, expYear: 2026, cvv: '123' }, NOW).outcome).toBe('expired');
    expect(checkCard({ number: TEST_CARDS.approveVisa, expMonth: 6, expYear: 2026, cvv: '123' }, NOW).outcome).toBe('approved');
    expect(checkCard({ number: TEST_CARDS.approveVisa, expMonth: '06', expYear: '26', cvv: '123' }, NOW)).toMatchObject({ outcome: 'approved', expYear: 2026 });
    expect(isExpired(6, 2026, new Date('2026-07-01T00:00:00Z'))).toBe(true);
  });

  test('when the number, expiry or cvv is malformed, then the card is invalid', () => {
    expect(checkCard({ number: '4111111111111112', ...future }, NOW).outcome).toBe('invalid');
    expect(checkCard({ number: 'abcd', ...future }, NOW).outcome).toBe('invalid');
    expect(checkCard({ number: TEST_CARDS.approveVisa, expMonth: 13, expYear: 2030, cvv: '123' }, NOW).outcome).toBe('invalid');
    expect(checkCard({ number: TEST_CARDS.approveVisa, ...future, cvv: '12' }, NOW).outcome).toBe('invalid');
    expect(checkCard({ number: TEST_CARDS.approveAmex, ...future, cvv: '123' }, NOW).outcome).toBe('invalid');
  });

  test('when an expiry is formatted, then it is MMYY', () => {
    expect(expirationMMYY(3, 2031)).toBe('0331');
  });

  test('when amounts are parsed, then they become exact cents', () => {
    expect(parseAmountCents('12')).toBe(1200n);
    expect(parseAmountCents('12.5')).toBe(1250n);
    expect(parseAmountCents(10.1)).toBe(1010n);
    expect(parseAmountCents('0.00')).toBe(0n);
    expect(parseAmountCents('1.234')).toBeNull();
    expect(parseAmountCents('-1')).toBeNull();
    expect(parseAmountCents('abc')).toBeNull();
    expect(formatCents(100005n)).toBe('1000.05');
  });
});

describe('hosted callback signature', () => {
  const secret = 'callback-secret';
  const fields = { TransactionSetupID: 'abc', Result: 'Approved', Amount: '10.00', ApprovalCode: 'A1B2C3' };

  test('when fields are canonicalized, then they are sorted by name without Signature', () => {
    expect(canonicalCallbackString({ ...fields, Signature: 'x' })).toBe('Amount=10.00&ApprovalCode=A1B2C3&Result=Approved&TransactionSetupID=abc');
  });

  test('when a callback is signed, then the signature verifies with the same secret only', () => {
    const signed = withSignature(fields, secret);
    expect(signed.Signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signed.Signature).toBe(signCallback(fields, secret));
    expect(verifyCallbackSignature(signed, secret)).toBe(true);
    expect(verifyCallbackSignature(signed, 'other-secret')).toBe(false);
  });

  test('when a field is tampered with or the signature is missing, then verification fails', () => {
    const signed = withSignature(fields, secret);
    expect(verifyCallbackSignature({ ...signed, Amount: '1.00' }, secret)).toBe(false);
    expect(verifyCallbackSignature({ ...signed, Extra: '1' }, secret)).toBe(false);
    expect(verifyCallbackSignature(fields, secret)).toBe(false);
    expect(verifyCallbackSignature({ ...signed, Signature: 'zz' }, secret)).toBe(false);
  });
});
