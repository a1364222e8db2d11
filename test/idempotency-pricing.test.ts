/**
 * Idempotency-Key on the pricing create operations (issue 40 item 7): `POST /api/price-lists` and
 * `POST /api/catalogs` replay the first answer for the same key and body (one record created), and
 * answer 409 problem details for the same key with another body.
 */
import { call, createOrg, uniq, type OrgFixture } from './support/helpers';

jest.setTimeout(120_000);

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});

const byName = (name: string) => `filters=${encodeURIComponent(JSON.stringify([{ field: 'name', operator: 'equals', value: name }]))}`;

const CASES = [
  { what: 'price list', path: '/api/price-lists', id: 'priceListId', body: (name: string) => ({ name, currencyCode: 'USD', priority: 10 }) },
  { what: 'catalog', path: '/api/catalogs', id: 'catalogId', body: (name: string) => ({ name }) },
];

describe.each(CASES)('Idempotency-Key on creating a $what', ({ path, id, body }) => {
  test('when the same key and body are sent twice, then the first answer is replayed and one record exists', async () => {
    const key = uniq('key-');
    const name = uniq('Idem ');
    const opts = { token: org.adminToken, body: body(name), headers: { 'Idempotency-Key': key } };
    const first = await call('POST', path, opts);
    const second = await call('POST', path, opts);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(first.headers.get('location')).toBe(`${path}/${first.body[id]}`);
    const list = await call('GET', `${path}?${byName(name)}`, { token: org.adminToken });
    expect(list.status).toBe(200);
    expect(list.body.totalRecords).toBe(1);
  });

  test('when the same key comes with another body, then 409 problem details and nothing more is created', async () => {
    const key = uniq('key-');
    const first = await call('POST', path, { token: org.adminToken, body: body(uniq('Idem ')), headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    const otherName = uniq('Idem ');
    const second = await call('POST', path, { token: org.adminToken, body: body(otherName), headers: { 'Idempotency-Key': key } });
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect((await call('GET', `${path}?${byName(otherName)}`, { token: org.adminToken })).body.totalRecords).toBe(0);
  });
});
