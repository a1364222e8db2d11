import { creditAdmission, spendingAdmission } from '../../src/domain/orders/admission';
import { AppError } from '../../src/errors';

const facts = { creditLimit: '250', limitCurrency: 'USD', openBalance: '0', holdInvoiceNumbers: [] as string[] };
const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  return null;
};

describe('credit admission', () => {
  test('when nothing is owed, then a 200.00 order fits a 250.00 limit', () => {
    expect(refusal(() => creditAdmission(facts, '200', 'USD'))).toBeNull();
  });
  test('when the order exceeds the available credit, then 402 naming the figures', () => {
    const e = refusal(() => creditAdmission({ ...facts, creditLimit: '70', openBalance: '50' }, '25', 'USD'))!;
    expect(e.status).toBe(402);
    expect(e.message).toBe('Available credit is $20.00 (limit $70.00, open balance $50.00); this order is $25.00.');
  });
  test('when the order is in another currency than the limit, then 400 naming currencyCode', () => {
    const e = refusal(() => creditAdmission(facts, '10', 'EUR'))!;
    expect(e.status).toBe(400);
    expect(Object.keys(e.errors ?? {})).toEqual(['currencyCode']);
  });
  test('when on credit hold, then 409; without a limit, then 402', () => {
    expect(refusal(() => creditAdmission({ ...facts, holdInvoiceNumbers: ['INV-1'] }, '1', 'USD'))!.status).toBe(409);
    expect(refusal(() => creditAdmission({ ...facts, creditLimit: null }, '1', 'USD'))!.status).toBe(402);
  });
});

describe('spending admission', () => {
  const buyer = { limits: { orderLimit: '150', monthlyLimit: null }, spentThisMonth: '0' };
  test('when the principal is not a limited buyer, then no approval', () => {
    expect(spendingAdmission('1000', null)).toEqual({ needsApproval: false });
  });
  test('when above the per-order limit, then an approval, unless one was given for exactly this total', () => {
    expect(spendingAdmission('1000', buyer).needsApproval).toBe(true);
    expect(spendingAdmission('1000', buyer, '1000')).toEqual({ needsApproval: false });
    expect(spendingAdmission('1000', buyer, '999').needsApproval).toBe(true);
  });
});
