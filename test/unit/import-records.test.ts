import { csvRowToRecord, errorCsv, recordKey, toRecordErrors } from '../../src/domain/imports/records';

describe('csvRowToRecord', () => {
  test('when cells are empty, then the fields are absent; dotted names nest and numeric segments index arrays', () => {
    expect(
      csvRowToRecord('customers', {
        customerNumber: 'C1',
        companyPhone: '',
        'billingAddress.city': 'Springfield',
        'addresses.0.city': 'A',
        'addresses.0.addressType': 'Billing',
        'addresses.1.city': 'B',
      }),
    ).toEqual({ customerNumber: 'C1', billingAddress: { city: 'Springfield' }, addresses: [{ city: 'A', addressType: 'Billing' }, { city: 'B' }] });
  });

  test('when price:<Tier> and price:<Tier>@<qty> columns are given, then they become prices entries at quantity 1 and qty', () => {
    expect(csvRowToRecord('products', { sku: 'S', 'price:Retail': '10.00', 'price:Retail@10': '9.50', 'price:Gold': '' })).toEqual({
      sku: 'S',
      prices: [
        { tier: 'Retail', price: '10.00', atQuantity: '1' },
        { tier: 'Retail', price: '9.50', atQuantity: '10' },
      ],
    });
  });

  test('when attr:<name> columns are given, then they become productAttributes for products and customerAttributes for customers', () => {
    expect(csvRowToRecord('products', { sku: 'S', 'attr:color': 'red' })).toEqual({ sku: 'S', productAttributes: { color: 'red' } });
    expect(csvRowToRecord('customers', { customerNumber: 'C', 'attr:segment': 'gold' })).toEqual({ customerNumber: 'C', customerAttributes: { segment: 'gold' } });
  });

  test('when a failed record holds a formula, then its cell in the error CSV is neutralised', () => {
    const csv = errorCsv(['sku', 'name'], [{ record: 1, source: { sku: '=HYPERLINK("http://evil.test","fix")', name: '@x' }, errors: toRecordErrors({ sku: ['bad.'] }) }]);
    expect(csv).toBe('sku,name,error_field,error_message\r\n"\'=HYPERLINK(""http://evil.test"",""fix"")",\'@x,sku,bad.\r\n');
  });
});

describe('record keys and error CSV', () => {
  test('when a record has an externalId, then it is the key; otherwise the natural key of the kind', () => {
    expect(recordKey('products', { sku: 'S', externalId: 'E' })).toBe('E');
    expect(recordKey('products', { sku: 'S' })).toBe('S');
    expect(recordKey('customers', { customerNumber: 'C' })).toBe('C');
    expect(recordKey('orders', { orderNumber: 'SO-1' })).toBe('SO-1');
    expect(recordKey('products', 'not an object')).toBeNull();
  });

  test('when a price-lists record is keyed, then the key names its list, SKU and break (quantity 1 when absent)', () => {
    expect(recordKey('price-lists', { priceList: 'Contract', sku: 'W-1', atQuantity: 10, price: 4 })).toBe('Contract:W-1@10');
    expect(recordKey('price-lists', { priceList: 'Contract', sku: 'W-1', price: 5 })).toBe('Contract:W-1@1');
    expect(recordKey('price-lists', { sku: 'W-1' })).toBeNull();
  });

  test('when failed records are written as CSV, then the original columns come first with error_field and error_message, quoted per RFC 4180', () => {
    const csv = errorCsv(['sku', 'name'], [{ record: 2, source: { sku: 'S,1', name: 'say "hi"' }, errors: toRecordErrors({ name: ['too long.'], sku: ['bad.'] }) }]);
    expect(csv).toBe('sku,name,error_field,error_message\r\n"S,1","say ""hi""",name; sku,name: too long.; sku: bad.\r\n');
  });

  test('when a failed record holds a formula, then its cell in the error CSV is neutralised', () => {
    const csv = errorCsv(['sku', 'name'], [{ record: 1, source: { sku: '=HYPERLINK("http://evil.test","fix")', name: '@x' }, errors: toRecordErrors({ sku: ['bad.'] }) }]);
    expect(csv).toBe('sku,name,error_field,error_message\r\n"\'=HYPERLINK(""http://evil.test"",""fix"")",\'@x,sku,bad.\r\n');
  });
});
