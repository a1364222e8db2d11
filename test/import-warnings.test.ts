/**
 * Issue 38 item 8 (docs/imports.md "Unknown fields and columns"): a JSON API body with a field no
 * operation knows is a 400, but an import keeps importing such records without the field and
 * lists each unknown field of the records, and each unknown CSV column, once on the job
 * (`warnings`), for every kind.
 */
import { call, createOrg, uniq, type OrgFixture } from './support/helpers';
import { counts, runFile, runJson } from './support/import-helpers';
import { ensurePriceTier } from './support/matrix-fixtures';

jest.setTimeout(180_000);

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
  await ensurePriceTier(org, 'Retail', 'USD');
});
const A = () => ({ base: org.base, token: org.adminToken });

const KINDS = ['products', 'prices', 'customers', 'user-customer-links', 'orders', 'invoices'];

describe('unknown fields of imported records', () => {
  test('when customer records carry a misspelt compnyPhone and an unknown address field, then the customers are imported and each field is listed once as a warning', async () => {
    const c = uniq('CW');
    const records = [1, 2, 3].map((i) => ({
      customerNumber: `${c}-${i}`,
      companyName: `Warned ${i}`,
      companyEmail: `warned${i}@example.com`,
      pricing: 'Retail',
      ...(i > 1 ? { compnyPhone: '555-0100' } : {}),
      addresses: [{ addressType: 'Billing', city: 'Springfield', country: 'US' }, { addressType: 'Shipping', city: 'Shelbyville', country: 'US', postCode: '62701' }],
    }));
    const job = await runJson(org, { kind: 'customers', records });
    expect(counts(job)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 3, updated: 0, unchanged: 0, failed: 0 });
    expect(job.warnings).toEqual([
      { field: 'addresses[].postCode', message: expect.stringContaining('not a field of customers records'), count: 3, firstRecord: 1 },
      { field: 'compnyPhone', message: 'compnyPhone is not a field of customers records; it was ignored.', count: 2, firstRecord: 2 },
    ]);
    const stored = await call('GET', `/api/customers/${c}-2`, A());
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ companyName: 'Warned 2', companyEmail: 'warned2@example.com' });
    expect(stored.text).not.toContain('555-0100');
    expect(stored.body.addresses).toHaveLength(2);
    // The job's list and the single read agree.
    const listed = await call('GET', '/api/imports?kind=customers', A());
    expect(listed.body.Data.find((j: any) => j.jobId === job.jobId).warnings).toEqual(job.warnings);
  });

  test('when a products CSV has an unknown compnyPhone column and a misspelt colour column, then the rows are imported and each column is listed once as a warning', async () => {
    const p = uniq('PW');
    const csv = [
      'sku,name,compnyPhone,price:Retail,colour,attr:color',
      `${p}-1,One,555-0100,10.00,,red`,
      `${p}-2,Two,555-0101,11.00,,blue`,
      `${p}-3,Three,,12.00,,`,
    ].join('\n');
    const job = await runFile(org, { kind: 'products' }, 'products.csv', csv);
    expect(counts(job)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 3, updated: 0, unchanged: 0, failed: 0 });
    expect(job.warnings).toEqual([
      { field: 'compnyPhone', message: 'compnyPhone is not a column of products imports; its cells were ignored.', count: 2, firstRecord: 1 },
      { field: 'colour', message: 'colour is not a column of products imports; its cells were ignored.', count: 0, firstRecord: null },
    ]);
    const one = await call('GET', `/api/products/${p}-1`, A());
    expect(one.body).toMatchObject({ name: 'One', productAttributes: { color: 'red' } });
    expect(one.body.prices).toEqual([expect.objectContaining({ tier: 'Retail', price: 10, atQuantity: 1 })]);
    expect(one.text).not.toContain('555-0100');
    // The same columns with known names only: no warnings.
    const clean = await runFile(org, { kind: 'products' }, 'products.csv', ['sku,name', `${p}-1,One`].join('\n'));
    expect(clean.warnings).toEqual([]);
  });

  test.each(KINDS)('%s: when JSON records and a CSV carry a field the kind does not know, then the job lists it once (validate mode, nothing written)', async (kind) => {
    const json = await runJson(org, { kind, mode: 'validate', records: [{ matrixProbe: 1 }, { matrixProbe: 2 }, {}] });
    expect(json.warnings).toEqual([{ field: 'matrixProbe', message: `matrixProbe is not a field of ${kind} records; it was ignored.`, count: 2, firstRecord: 1 }]);
    const csv = await runFile(org, { kind, mode: 'validate' }, `${kind}.csv`, ['matrixColumn,anotherColumn', 'x,', ',', 'y,'].join('\n'));
    expect(csv.warnings).toEqual([
      { field: 'matrixColumn', message: `matrixColumn is not a column of ${kind} imports; its cells were ignored.`, count: 2, firstRecord: 1 },
      { field: 'anotherColumn', message: `anotherColumn is not a column of ${kind} imports; its cells were ignored.`, count: 0, firstRecord: null },
    ]);
  });
});
