import { MAX_IMPORT_WARNINGS, WarningTally } from '../../src/domain/imports/records';
import { unknownColumns, unknownFields } from '../../src/services/imports/unknown-fields';

describe('unknown fields of import records', () => {
  test('when a record carries a misspelt field, a nested one and read-only fields of the resource, then only the unknown ones are named, array indices folded', () => {
    const record = {
      customerNumber: 'C-1',
      compnyPhone: '555',
      organizationId: '00000000-0000-4000-8000-000000000000',
      addresses: [{ city: 'A' }, { city: 'B', postCode: '1' }, { postCode: '2' }],
    };
    expect(unknownFields('customers', record).sort()).toEqual(['addresses[].postCode', 'compnyPhone']);
    expect(unknownFields('customers', 'not an object')).toEqual([]);
    expect(unknownFields('user-customer-links', { UserId: 'x', CustomerNumber: 'C', note: 'n' })).toEqual(['note']);
  });

  test('when a CSV header is read, then dotted, price: and attr: columns the kind maps are known and the rest are listed', () => {
    expect(unknownColumns('products', ['sku', 'name', 'price:Retail@10', 'attr:color', 'compnyPhone', 'colour', ''])).toEqual(['compnyPhone', 'colour']);
    expect(unknownColumns('customers', ['customerNumber', 'addresses.0.city', 'addresses.0.postCode', 'attr:segment', 'price:Retail'])).toEqual(['addresses.0.postCode', 'price:Retail']);
  });
});

describe('WarningTally', () => {
  test('when the same field is seen on many records, then it is listed once with its count and first record, in the order first seen', () => {
    const t = new WarningTally('products');
    t.column('colour');
    t.add('compnyPhone', 3, true);
    t.add('compnyPhone', 1, true);
    t.add('weight2', 2);
    expect(t.list()).toEqual([
      { field: 'colour', message: 'colour is not a column of products imports; its cells were ignored.', count: 0, firstRecord: null },
      { field: 'compnyPhone', message: 'compnyPhone is not a column of products imports; its cells were ignored.', count: 2, firstRecord: 1 },
      { field: 'weight2', message: 'weight2 is not a field of products records; it was ignored.', count: 1, firstRecord: 2 },
    ]);
  });

  test('when an input carries more distinct unknown fields than the bound, then only the first are listed', () => {
    const t = new WarningTally('orders');
    for (let i = 0; i < MAX_IMPORT_WARNINGS + 50; i++) t.add(`f${i}`, i + 1);
    t.add('f0', 500);
    expect(t.list()).toHaveLength(MAX_IMPORT_WARNINGS);
    expect(t.list()[0]).toMatchObject({ field: 'f0', count: 2, firstRecord: 1 });
  });
});
