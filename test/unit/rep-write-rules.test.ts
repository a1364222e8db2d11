/** Pure rules of issue 16 finding 6: what a sales rep may write on a customer and an invoice. */
import { salesRepCustomerRules } from '../../src/domain/customers/rep-rules';
import type { CustomerFields } from '../../src/domain/customers/rules';
import { adminOnlyChanges } from '../../src/domain/invoices/admin-fields';
import { AppError } from '../../src/errors';

const stored: CustomerFields = {
  customerNumber: 'C-1',
  externalId: null,
  companyName: 'Acme',
  companyEmail: 'a@acme.test',
  companyPhone: null,
  companyFax: null,
  pricing: 'Retail',
  active: true,
  repNumber: 'R1',
  terms: 'NET30',
  addresses: [],
  contacts: [],
  customerAttributes: {},
};

/** The AppError a rule throws, or null. */
function thrown(f: () => void): AppError | null {
  try {
    f();
    return null;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
}

describe('sales rep customer rules', () => {
  const rules = salesRepCustomerRules<unknown>('R1');

  test("when a rep writes another rep's customer, then 403", () => {
    expect(thrown(() => rules.guard!({}, { ...stored, repNumber: 'R2' }))?.status).toBe(403);
    expect(thrown(() => rules.guard!({}, stored))).toBeNull();
  });

  test('when a rep changes the tier or the terms, then 403 names each field', () => {
    const e = thrown(() => rules.guardFields!({ ...stored, pricing: 'Cheap', terms: 'NET365' }, stored));
    expect(e?.status).toBe(403);
    expect(Object.keys(e?.errors ?? {}).sort()).toEqual(['pricing', 'terms']);
  });

  test('when a rep sends the stored tier (any case) and terms back, then it is not a change', () => {
    expect(thrown(() => rules.guardFields!({ ...stored, pricing: 'retail', companyName: 'Acme Two' }, stored))).toBeNull();
  });

  test('when a rep creates a customer, then it names the tier but may not set terms', () => {
    expect(thrown(() => rules.guardFields!({ ...stored, terms: null }, null))).toBeNull();
    expect(Object.keys(thrown(() => rules.guardFields!(stored, null))?.errors ?? {})).toEqual(['terms']);
  });

  test('when a rep assigns a customer to another rep number, then 403', () => {
    expect(thrown(() => rules.guardFields!({ ...stored, repNumber: 'R2' }, stored))?.status).toBe(403);
  });
});

describe('Admin-only invoice fields', () => {
  test('when the input sets an imported total or balance on a new invoice, then each is named', () => {
    expect(Object.keys(adminOnlyChanges({ importedInvoiceTotal: 100, importedBalance: 0 }, null)).sort()).toEqual(['importedBalance', 'importedInvoiceTotal']);
  });

  test('when the input omits them, sends null for none, or sends the stored values back, then nothing is named', () => {
    expect(adminOnlyChanges({}, { importedBalance: '5.0000' })).toEqual({});
    expect(adminOnlyChanges({ importedInvoiceTotal: null, importedBalance: null }, null)).toEqual({});
    expect(adminOnlyChanges({ importedInvoiceTotal: 20, importedBalance: 5 }, { importedInvoiceTotal: '20.0000', importedBalance: '5.0000' })).toEqual({});
  });

  test('when the input clears or changes a stored balance, then it is named', () => {
    expect(Object.keys(adminOnlyChanges({ importedBalance: null }, { importedBalance: '5.0000' }))).toEqual(['importedBalance']);
    expect(Object.keys(adminOnlyChanges({ importedBalance: 0 }, { importedBalance: '5.0000' }))).toEqual(['importedBalance']);
  });
});
