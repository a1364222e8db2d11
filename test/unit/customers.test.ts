import { mergeCustomer, missingForCreate, planUpsert, primaryErrors, type CustomerFields } from '../../src/domain/customers/rules';
import { upsertCustomer, updateCustomer, type CustomerStore } from '../../src/domain/customers/upsert';

describe('customer primaries', () => {
  test('when one address per type and one contact are primary, then there are no errors', () => {
    expect(
      primaryErrors(
        [
          { addressType: 'Billing', isPrimary: true },
          { addressType: 'Shipping', isPrimary: true },
          { addressType: 'Shipping', isPrimary: false },
        ],
        [{ isPrimary: true }, { isPrimary: false }],
      ),
    ).toEqual({});
  });

  test('when two billing addresses and two contacts are primary, then both extra entries are named', () => {
    const errors = primaryErrors(
      [
        { addressType: 'Billing', isPrimary: true },
        { addressType: 'Shipping', isPrimary: true },
        { addressType: 'Billing', isPrimary: true },
      ],
      [{ isPrimary: true }, { isPrimary: true }],
    );
    expect(Object.keys(errors).sort()).toEqual(['addresses[2].isPrimary', 'contacts[1].isPrimary']);
    expect(errors['addresses[2].isPrimary'][0]).toContain('Billing');
  });

  test('when addresses and contacts are omitted, then there are no errors', () => {
    expect(primaryErrors(undefined, undefined)).toEqual({});
  });
});

describe('customer merge', () => {
  const current: CustomerFields = {
    customerNumber: 'C1',
    externalId: 'X1',
    companyName: 'Acme',
    companyEmail: 'a@acme.test',
    companyPhone: '555',
    companyFax: null,
    pricing: 'Retail',
    active: true,
    repNumber: 'R1',
    terms: 'NET30',
    addresses: [{ addressType: 'Billing', line1: '1 Main' }],
    contacts: [],
    customerAttributes: { a: '1' },
  };

  test('when only some fields are included, then omitted fields keep their values', () => {
    const merged = mergeCustomer(current, { companyName: 'Acme 2', companyPhone: null });
    expect(merged).toEqual({ ...current, companyName: 'Acme 2', companyPhone: null });
  });

  test('when there is no current record, then defaults apply (active true, empty lists)', () => {
    const merged = mergeCustomer(null, { customerNumber: 'N', companyName: 'N', companyEmail: 'n@x.test', pricing: 'Retail' });
    expect(merged.active).toBe(true);
    expect(merged.addresses).toEqual([]);
    expect(merged.customerAttributes).toEqual({});
    expect(merged.externalId).toBeNull();
  });

  test('when required create fields are missing, then each is named', () => {
    expect(Object.keys(missingForCreate({ companyName: 'x' })).sort()).toEqual(['companyEmail', 'customerNumber', 'pricing']);
  });
});

describe('upsert plan', () => {
  const a = { id: 'a', customerNumber: 'C1', externalId: 'X1' };
  const b = { id: 'b', customerNumber: 'C2', externalId: null };

  test('when the externalId matches, then that customer is updated', () => {
    expect(planUpsert({ customerNumber: 'C9', externalId: 'X1' }, a, null)).toEqual({ kind: 'update', id: 'a' });
  });
  test('when the externalId matches but the number belongs to another customer, then it is a conflict', () => {
    expect(planUpsert({ customerNumber: 'C2', externalId: 'X1' }, a, b).kind).toBe('conflict');
  });
  test('when only the number matches and that customer has no externalId, then it is updated', () => {
    expect(planUpsert({ customerNumber: 'C2', externalId: 'X2' }, null, b)).toEqual({ kind: 'update', id: 'b' });
  });
  test('when the number matches a customer with a different externalId, then it is a conflict', () => {
    expect(planUpsert({ customerNumber: 'C1', externalId: 'X2' }, null, a).kind).toBe('conflict');
  });
  test('when nothing matches, then a customer is created', () => {
    expect(planUpsert({ customerNumber: 'C3', externalId: 'X3' }, null, null)).toEqual({ kind: 'create' });
  });
});

type Row = CustomerFields & { id: string };
function memoryStore(): CustomerStore<Row> & { rows: Row[] } {
  const rows: Row[] = [];
  let n = 0;
  return {
    rows,
    findByExternalId: async (x) => rows.find((r) => r.externalId === x) ?? null,
    findByNumber: async (x) => rows.find((r) => r.customerNumber === x) ?? null,
    tierName: async (name) => (['Retail', 'Wholesale'].find((t) => t.toLowerCase() === name.toLowerCase()) ?? null),
    fields: ({ id: _id, ...f }) => f,
    create: async (f) => {
      const row = { id: `id${++n}`, ...f };
      rows.push(row);
      return row;
    },
    update: async (row, f) => Object.assign(row, f),
  };
}

describe('upsertCustomer over a store', () => {
  const base = { customerNumber: 'C1', companyName: 'Acme', companyEmail: 'a@acme.test', pricing: 'retail' };

  test('when the same externalId is upserted twice, then one customer exists, updated, with the canonical tier name', async () => {
    const store = memoryStore();
    const first = await upsertCustomer(store, { ...base, externalId: 'X1' });
    const second = await upsertCustomer(store, { ...base, externalId: 'X1', companyName: 'Acme 2' });
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(store.rows).toHaveLength(1);
    expect(store.rows[0].companyName).toBe('Acme 2');
    expect(store.rows[0].pricing).toBe('Retail');
  });

  test('when the pricing tier is unknown and two primaries are given, then one 400 names both fields', async () => {
    const store = memoryStore();
    await expect(upsertCustomer(store, { ...base, pricing: 'Gold', contacts: [{ isPrimary: true }, { isPrimary: true }] })).rejects.toMatchObject({
      status: 400,
      errors: { pricing: expect.any(Array), 'contacts[1].isPrimary': expect.any(Array) },
    });
    expect(store.rows).toHaveLength(0);
  });

  test('when a partial update renames to a taken number, then it is a 409', async () => {
    const store = memoryStore();
    await upsertCustomer(store, base);
    const { customer } = await upsertCustomer(store, { ...base, customerNumber: 'C2' });
    await expect(updateCustomer(store, customer, { customerNumber: 'C1' })).rejects.toMatchObject({ status: 409 });
  });

  test('when a guard refuses the existing customer, then nothing changes', async () => {
    const store = memoryStore();
    await upsertCustomer(store, { ...base, repNumber: 'R1' });
    const guard = () => {
      throw new Error('not yours');
    };
    await expect(upsertCustomer(store, { ...base, companyName: 'Changed' }, { guard })).rejects.toThrow('not yours');
    expect(store.rows[0].companyName).toBe('Acme');
  });
});
