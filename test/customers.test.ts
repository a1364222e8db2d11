import { call, createMemberUser, createOrg, repToken, uniq, type OrgFixture } from './support/helpers';
import { ensurePriceTier, matrixFixtures } from './support/matrix-fixtures';

const CUSTOMER_KEYS = [
  'active',
  'addresses',
  'companyEmail',
  'companyFax',
  'companyName',
  'companyPhone',
  'contacts',
  'customerAttributes',
  'customerNumber',
  'externalId',
  'organizationId',
  'pricing',
  'repNumber',
  'terms',
].sort();

let org: OrgFixture;
let other: OrgFixture;

const put = (body: unknown, token = org.adminToken) => call('PUT', '/api/customers', { token, body });
const full = (over: Record<string, unknown> = {}) => {
  const n = uniq('C');
  return {
    customerNumber: n,
    externalId: `ext-${n}`,
    companyName: `Company ${n}`,
    companyEmail: `${n.toLowerCase()}@example.com`,
    companyPhone: '+1 555 0100',
    companyFax: '+1 555 0101',
    pricing: 'Retail',
    active: true,
    repNumber: 'R1',
    terms: 'NET30',
    addresses: [
      { externalId: 'a1', line1: '1 Main St', line2: 'Suite 2', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US', addressType: 'Billing', phone: '555', isPrimary: true },
      { line1: '9 Dock Rd', city: 'Springfield', country: 'US', addressType: 'Shipping', isPrimary: true },
    ],
    contacts: [{ externalId: 'c1', title: 'Buyer', firstName: 'Bo', lastName: 'Buyer', email: 'bo@example.com', phone: '1', fax: '2', isPrimary: true, contactType: 'Purchasing' }],
    customerAttributes: { segment: 'gold' },
    ...over,
  };
};
const list = (qs: string, token = org.adminToken) => call('GET', `/api/customers${qs}`, { token });

beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
  await Promise.all([ensurePriceTier(org, 'Retail', 'USD'), ensurePriceTier(org, 'Wholesale', 'EUR'), ensurePriceTier(other, 'Retail', 'USD')]);
});

describe('PUT /api/customers (upsert)', () => {
  test('when a new customer is put, then 201 returns exactly the SPEC fields', async () => {
    const body = full();
    const res = await put(body);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(CUSTOMER_KEYS);
    expect(res.body).toEqual({ ...body, organizationId: org.organizationId, addresses: [body.addresses[0], { ...body.addresses[1], externalId: null, line2: null, state: null, postalCode: null, phone: null }] });
  });

  test('when the same externalId is put again with another name, then the one customer is updated (200)', async () => {
    const body = full();
    expect((await put(body)).status).toBe(201);
    const again = await put({ ...body, companyName: 'Renamed Inc' });
    expect(again.status).toBe(200);
    expect(again.body.companyName).toBe('Renamed Inc');
    const found = await list(`?filters=${encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: body.customerNumber }]))}`);
    expect(found.body.totalRecords).toBe(1);
  });

  test('when the same externalId comes with a new customerNumber, then the customer is renumbered, not duplicated', async () => {
    const body = full();
    await put(body);
    const newNumber = uniq('N');
    const res = await put({ ...body, customerNumber: newNumber });
    expect(res.status).toBe(200);
    expect(res.body.customerNumber).toBe(newNumber);
    expect((await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken })).status).toBe(404);
  });

  test('when the same customerNumber is put without externalId, then it updates and keeps omitted fields', async () => {
    const body = full();
    await put(body);
    const res = await put({ customerNumber: body.customerNumber, companyName: 'By Number', companyEmail: body.companyEmail, pricing: 'Retail' });
    expect(res.status).toBe(200);
    expect(res.body.companyName).toBe('By Number');
    expect(res.body.externalId).toBe(body.externalId);
    expect(res.body.terms).toBe('NET30');
    expect(res.body.addresses).toHaveLength(2);
  });

  test('when an existing customerNumber comes with a different externalId, then 409', async () => {
    const body = full();
    await put(body);
    const res = await put({ ...body, externalId: 'another-external-id' });
    expect(res.status).toBe(409);
    expect(res.body.status).toBe(409);
  });

  test('when several fields are bad, then one 400 names every one of them', async () => {
    const res = await put({ customerNumber: '', companyEmail: 'not-an-email', pricing: 'Retail', active: 'yes', addresses: [{ addressType: 'Home' }], customerAttributes: { a: 1 } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(expect.arrayContaining(['customerNumber', 'companyName', 'companyEmail', 'active', 'addresses[0].addressType', 'customerAttributes']));
  });

  test('when pricing names no tier of the organization, then 400 names pricing', async () => {
    const res = await put(full({ pricing: 'Platinum' }));
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['pricing']);
  });

  test('when pricing differs only in case, then the tier name is stored as configured', async () => {
    const res = await put(full({ pricing: 'wholesale' }));
    expect(res.status).toBe(201);
    expect(res.body.pricing).toBe('Wholesale');
  });

  test('when two billing addresses and two contacts are primary, then 400 names both', async () => {
    const body = full();
    const res = await put({
      ...body,
      addresses: [...body.addresses, { line1: '2 Main', addressType: 'Billing', isPrimary: true }],
      contacts: [...body.contacts, { firstName: 'Al', isPrimary: true }],
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['addresses[2].isPrimary', 'contacts[1].isPrimary']);
  });

  test('when a Customer-role token puts a customer, then 403', async () => {
    const member = await createMemberUser(org);
    expect((await put(full(), member.token)).status).toBe(403);
  });

  test('when no token is given, then 401', async () => {
    expect((await call('PUT', '/api/customers', { body: full() })).status).toBe(401);
  });
});

describe('GET, PUT partial, activate, DELETE /api/customers/{customerNumber}', () => {
  test('when a customer is read, then it has every SPEC field', async () => {
    const body = full();
    await put(body);
    const res = await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(CUSTOMER_KEYS);
    expect(res.body.customerAttributes).toEqual({ segment: 'gold' });
  });

  test('when another organization asks for the customer, then 404 for read, update, activate and delete', async () => {
    const n = await matrixFixtures.customerNumber(org);
    for (const [method, path, body] of [
      ['GET', `/api/customers/${n}`, undefined],
      ['PUT', `/api/customers/${n}`, { companyName: 'X' }],
      ['POST', `/api/customers/${n}/activate`, undefined],
      ['DELETE', `/api/customers/${n}`, undefined],
    ] as const) {
      const res = await call(method, path, { token: other.adminToken, body });
      expect(res.status).toBe(404);
    }
    expect((await call('GET', `/api/customers/${n}`, { token: org.adminToken })).status).toBe(200);
  });

  test('when a partial update includes some fields, then they overwrite and omitted ones keep their values', async () => {
    const body = full();
    await put(body);
    const res = await call('PUT', `/api/customers/${body.customerNumber}`, { token: org.adminToken, body: { companyPhone: null, terms: 'NET60', active: false } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ companyPhone: null, terms: 'NET60', active: false, companyName: body.companyName, companyFax: body.companyFax, pricing: 'Retail', externalId: body.externalId });
    expect(res.body.addresses).toHaveLength(2);
    expect(res.body.contacts).toHaveLength(1);
    expect(res.body.customerAttributes).toEqual({ segment: 'gold' });
    const again = await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken });
    expect(again.body).toEqual(res.body);
  });

  test('when a partial update sends addresses, then the list is replaced', async () => {
    const body = full();
    await put(body);
    const res = await call('PUT', `/api/customers/${body.customerNumber}`, { token: org.adminToken, body: { addresses: [{ line1: 'Only', addressType: 'Shipping', isPrimary: true }] } });
    expect(res.status).toBe(200);
    expect(res.body.addresses).toEqual([{ externalId: null, line1: 'Only', line2: null, city: null, state: null, postalCode: null, country: null, addressType: 'Shipping', phone: null, isPrimary: true }]);
  });

  test('when a partial update renames to an existing number, then 409; to an unknown tier, then 400', async () => {
    const a = full();
    const b = full();
    await put(a);
    await put(b);
    expect((await call('PUT', `/api/customers/${a.customerNumber}`, { token: org.adminToken, body: { customerNumber: b.customerNumber } })).status).toBe(409);
    const bad = await call('PUT', `/api/customers/${a.customerNumber}`, {
      token: org.adminToken,
      body: { pricing: 'Nope', contacts: [{ isPrimary: true }, { isPrimary: true }] },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['contacts[1].isPrimary', 'pricing']);
  });

  test('when a deactivated customer is activated, then 204 and active is true', async () => {
    const body = full({ active: false });
    expect((await put(body)).body.active).toBe(false);
    const res = await call('POST', `/api/customers/${body.customerNumber}/activate`, { token: org.adminToken });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken })).body.active).toBe(true);
  });

  test('when a customer is deleted, then 204 and nothing of it remains (a new one with the same number starts empty)', async () => {
    const body = full();
    await put(body);
    const del = await call('DELETE', `/api/customers/${body.customerNumber}`, { token: org.adminToken });
    expect(del.status).toBe(204);
    expect((await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken })).status).toBe(404);
    expect((await call('DELETE', `/api/customers/${body.customerNumber}`, { token: org.adminToken })).status).toBe(404);
    const recreated = await put({ customerNumber: body.customerNumber, companyName: 'Fresh', companyEmail: 'f@example.com', pricing: 'Retail' });
    expect(recreated.status).toBe(201);
    expect(recreated.body).toMatchObject({ addresses: [], contacts: [], customerAttributes: {}, externalId: null, terms: null });
    const ext = await put({ ...body, customerNumber: uniq('D') });
    expect(ext.status).toBe(201);
  });

  test('when a sales rep token deletes a customer, then 403', async () => {
    const n = await matrixFixtures.customerNumber(org);
    const rep = await repToken(org, 'R1');
    expect((await call('DELETE', `/api/customers/${n}`, { token: rep })).status).toBe(403);
  });
});

describe('GET /api/customers (list)', () => {
  let lo: OrgFixture;
  const numbers: string[] = [];
  beforeAll(async () => {
    lo = await createOrg();
    await ensurePriceTier(lo, 'Retail');
    await ensurePriceTier(lo, 'Wholesale');
    const rows = [
      { customerNumber: 'A-001', companyName: 'Charlie Corp', companyEmail: 'c@charlie.test', pricing: 'Retail', repNumber: 'R1', active: true },
      { customerNumber: 'A-002', companyName: 'Alpha Ltd', companyEmail: 'a@alpha.test', pricing: 'Wholesale', repNumber: 'R2', active: false },
      { customerNumber: 'A-003', companyName: 'Bravo Inc', companyEmail: 'b@bravo.test', pricing: 'Retail', repNumber: 'R1', active: true, terms: 'NET30' },
    ];
    for (const r of rows) {
      const res = await call('PUT', '/api/customers', { token: lo.adminToken, body: r });
      expect(res.status).toBe(201);
      numbers.push(r.customerNumber);
    }
  });
  const get = (qs: string, token = lo.adminToken) => call('GET', `/api/customers${qs}`, { token });
  const names = (res: { body: { data: { customerNumber: string }[] } }) => res.body.data.map((c) => c.customerNumber);

  test('when listed without parameters, then the envelope is paged and sorted by name', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['currentPage', 'data', 'totalPages', 'totalRecords']);
    expect(res.body).toMatchObject({ totalRecords: 3, currentPage: 1, totalPages: 1 });
    expect(names(res)).toEqual(['A-002', 'A-003', 'A-001']);
    expect(Object.keys(res.body.data[0]).sort()).toEqual(CUSTOMER_KEYS);
  });

  test('when paged and sorted by CustomerNumber desc, then pages follow', async () => {
    const res = await get('?pageNumber=2&pageSize=2&sortOn=CustomerNumber&sortDirection=desc');
    expect(res.body).toMatchObject({ totalRecords: 3, currentPage: 2, totalPages: 2 });
    expect(names(res)).toEqual(['A-001']);
    expect(names(await get('?sortOn=CompanyEmail'))).toEqual(['A-002', 'A-003', 'A-001']);
    expect(names(await get('?sortOn=Status&sortDirection=desc'))[2]).toBe('A-002');
  });

  test('when filtered with a JSON filters array, then only matches return', async () => {
    const f = encodeURIComponent(JSON.stringify([{ field: 'companyName', operator: 'contains', value: 'ha' }]));
    expect(names(await get(`?filters=${f}`))).toEqual(['A-002', 'A-001']);
    const gt = encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'gt', value: 'A-001' }, { field: 'pricing', operator: 'equals', value: 'retail' }]));
    expect(names(await get(`?filters=${gt}`))).toEqual(['A-003']);
  });

  test('when filtered in qs bracket form, then the same rules apply', async () => {
    const res = await get('?filters[0][field]=active&filters[0][operator]=equals&filters[0][value]=false');
    expect(names(res)).toEqual(['A-002']);
    const lte = await get('?filters[0][field]=customerNumber&filters[0][operator]=lte&filters[0][value]=A-002&filters[1][field]=repNumber&filters[1][operator]=equals&filters[1][value]=R1');
    expect(names(lte)).toEqual(['A-001']);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await get(`?filters[0][field]=createdAt&filters[0][operator]=lt&filters[0][value]=${future}`)).body.totalRecords).toBe(3);
    expect((await get(`?filters[0][field]=createdAt&filters[0][operator]=gte&filters[0][value]=${future}`)).body.totalRecords).toBe(0);
  });

  test('when search and active are given, then they narrow the list', async () => {
    expect(names(await get('?search=bravo'))).toEqual(['A-003']);
    expect(names(await get('?search=a-00&active=true'))).toEqual(['A-003', 'A-001']);
    expect(names(await get('?search=alpha.test'))).toEqual(['A-002']);
  });

  test('when filters, sort, paging or active are invalid, then 400 names each', async () => {
    const res = await get(`?filters=${encodeURIComponent(JSON.stringify([{ field: 'secret', operator: 'equals', value: 'x' }, { field: 'companyName', operator: 'bogus', value: 'x' }]))}&sortOn=Nope&pageSize=501`);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['filters[0].field', 'filters[1].operator', 'pageSize', 'sortOn']);
    expect((await get('?active=maybe')).status).toBe(400);
    expect((await get('?filters=not-json')).status).toBe(400);
    expect((await get('?filters[0][field]=createdAt&filters[0][operator]=gt&filters[0][value]=yesterday')).status).toBe(400);
  });

  test('when a sales rep token lists and reads, then only customers with its rep number are visible', async () => {
    const rep = await repToken(lo, 'R1');
    const res = await get('', rep);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['A-003', 'A-001']);
    expect(res.body.totalRecords).toBe(2);
    expect((await call('GET', '/api/customers/A-002', { token: rep })).status).toBe(404);
    expect((await call('PUT', '/api/customers/A-002', { token: rep, body: { terms: 'X' } })).status).toBe(404);
    expect((await call('PUT', '/api/customers/A-001', { token: rep, body: { companyPhone: '555-0150' } })).status).toBe(200);
    expect((await call('PUT', '/api/customers/A-001', { token: rep, body: { repNumber: 'R2' } })).status).toBe(403);
    expect((await call('PUT', '/api/customers', { token: rep, body: { customerNumber: 'A-002', companyName: 'Alpha Ltd', companyEmail: 'a@alpha.test', pricing: 'Retail' } })).status).toBe(403);
  });

  test('when a sales rep creates a customer without repNumber, then it is assigned to the rep', async () => {
    const rep = await repToken(lo, 'R9');
    const res = await call('PUT', '/api/customers', { token: rep, body: { customerNumber: 'R9-1', companyName: 'Zulu', companyEmail: 'z@zulu.test', pricing: 'Retail' } });
    expect(res.status).toBe(201);
    expect(res.body.repNumber).toBe('R9');
    expect(names(await get('', rep))).toEqual(['R9-1']);
    await call('DELETE', '/api/customers/R9-1', { token: lo.adminToken });
  });

  test('when another organization lists, then none of these customers appear', async () => {
    const res = await call('GET', '/api/customers?search=A-00', { token: other.adminToken });
    expect(res.status).toBe(200);
    expect(res.body.totalRecords).toBe(0);
  });
});

describe('price tiers used by customers', () => {
  test('when a tier is renamed, then its customers follow; when deleted while used, then 400', async () => {
    const o = await createOrg();
    await ensurePriceTier(o, 'Old');
    const n = uniq('P');
    await call('PUT', '/api/customers', { token: o.adminToken, body: { customerNumber: n, companyName: 'T', companyEmail: 't@example.com', pricing: 'Old' } });
    const rename = await call('PUT', '/api/organizations/price-tiers', { token: o.adminToken, body: { CurrentName: 'Old', NewName: 'New', CurrencyCode: 'USD' } });
    expect(rename.status).toBe(200);
    expect((await call('GET', `/api/customers/${n}`, { token: o.adminToken })).body.pricing).toBe('New');
    const del = await call('DELETE', '/api/organizations/price-tiers', { token: o.adminToken, body: { Name: 'New' } });
    expect(del.status).toBe(400);
    expect(del.body.errors.Name[0]).toContain('1 customer');
    expect((await call('DELETE', `/api/customers/${n}`, { token: o.adminToken })).status).toBe(204);
    expect((await call('DELETE', '/api/organizations/price-tiers', { token: o.adminToken, body: { Name: 'New' } })).status).toBe(200);
  });
});
