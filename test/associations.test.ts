import { call, createMemberUser, createOrg, decodeToken, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { ensurePriceTier } from './support/matrix-fixtures';

let org: OrgFixture;
let other: OrgFixture;

async function customer(o: OrgFixture, pricing = 'Wholesale', customerNumber = uniq('C')): Promise<string> {
  const res = await call('PUT', '/api/customers', { token: o.adminToken, body: { customerNumber, companyName: `Co ${customerNumber}`, companyEmail: 'co@example.com', pricing } });
  if (res.status !== 201) throw new Error(res.text);
  return customerNumber;
}
const associate = (o: OrgFixture, body: unknown) => call('POST', '/api/organizations/users/associate-customer', { token: o.adminToken, body });
const login = (email: string) => call('POST', '/api/auth/token', { body: { Email: email, Password: 'member password 1' } });

beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
  await Promise.all([ensurePriceTier(org, 'Wholesale', 'EUR'), ensurePriceTier(other, 'Wholesale', 'GBP')]);
});

describe('associate-customer', () => {
  test('when a member is associated, then the association is returned and login and access carry the customer context', async () => {
    const user = await createMemberUser(org);
    const before = decodeToken(user.token);
    expect(before.CustomerNumber).toBeNull();
    const n = await customer(org);
    const res = await associate(org, { UserId: user.userId, CustomerNumber: n });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ Association: { UserId: user.userId, CustomerNumber: n, OrganizationId: org.organizationId } });

    const after = await login(user.email);
    expect(after.status).toBe(200);
    const claims = decodeToken(after.body.AccessToken);
    expect(claims).toMatchObject({ OrganizationId: org.organizationId, CustomerNumber: n, PriceTier: 'Wholesale', CurrencyCode: 'EUR', role: 'Customer' });

    const access = await call('POST', '/api/auth/access', { token: org.adminToken, body: { OrganizationId: org.organizationId, UserId: user.userId } });
    expect(access.status).toBe(200);
    expect(access.body).toEqual({ CustomerNumber: n, PriceTier: 'Wholesale', CurrencyCode: 'EUR' });

    const own = await call('GET', `/api/customers/${n}`, { token: after.body.AccessToken });
    expect(own.status).toBe(200);
    expect(own.body.customerNumber).toBe(n);
    const listed = await call('GET', '/api/customers', { token: after.body.AccessToken });
    expect(listed.body.data.map((c: { customerNumber: string }) => c.customerNumber)).toEqual([n]);
    const otherCustomer = await customer(org);
    expect((await call('GET', `/api/customers/${otherCustomer}`, { token: after.body.AccessToken })).status).toBe(404);
    expect((await call('PUT', `/api/customers/${n}`, { token: after.body.AccessToken, body: { terms: 'X' } })).status).toBe(403);
  });

  test('when a user is associated again, then the one association moves to the new customer', async () => {
    const user = await createMemberUser(org);
    const a = await customer(org);
    const b = await customer(org);
    expect((await associate(org, { UserId: user.userId, CustomerNumber: a })).status).toBe(200);
    expect((await associate(org, { UserId: user.userId, CustomerNumber: b })).status).toBe(200);
    const one = await call('GET', `/api/users/customer-association?UserId=${user.userId}`, { token: org.adminToken });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ UserId: user.userId, CustomerNumber: b, OrganizationId: org.organizationId });
    const page = await call('GET', `/api/organizations/users/associations?filters[0][field]=UserId&filters[0][operator]=equals&filters[0][value]=${user.userId}`, { token: org.adminToken });
    expect(page.body.TotalCount).toBe(1);
  });

  test('when the user is not a member and the customer is unknown, then 400 names both fields', async () => {
    const stranger = await createMemberUser(other);
    const res = await associate(org, { UserId: stranger.userId, CustomerNumber: 'no-such-customer' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['CustomerNumber', 'UserId']);
  });

  test('when the customer belongs to another organization, then 400 names CustomerNumber', async () => {
    const user = await createMemberUser(org);
    const foreign = await customer(other);
    const res = await associate(org, { UserId: user.userId, CustomerNumber: foreign });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['CustomerNumber']);
  });

  test('when fields are missing or malformed, then 400 names each', async () => {
    const res = await associate(org, { UserId: 'not-a-uuid' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['CustomerNumber', 'UserId']);
  });

  test('when a Customer-role token associates, then 403', async () => {
    const user = await createMemberUser(org);
    const res = await call('POST', '/api/organizations/users/associate-customer', { token: user.token, body: { UserId: user.userId, CustomerNumber: 'x' } });
    expect(res.status).toBe(403);
  });

  test('when the customer is deleted, then the association is gone and login no longer carries it', async () => {
    const user = await createMemberUser(org);
    const n = await customer(org);
    await associate(org, { UserId: user.userId, CustomerNumber: n });
    expect((await call('DELETE', `/api/customers/${n}`, { token: org.adminToken })).status).toBe(204);
    expect((await call('GET', `/api/users/customer-association?UserId=${user.userId}`, { token: org.adminToken })).status).toBe(404);
    expect(decodeToken((await login(user.email)).body.AccessToken).CustomerNumber).toBeNull();
  });
});

describe('association lookups and list', () => {
  let lo: OrgFixture;
  const users: { userId: string; email: string; number: string }[] = [];
  beforeAll(async () => {
    lo = await createOrg();
    await ensurePriceTier(lo, 'Wholesale', 'EUR');
    for (const number of ['N-3', 'N-1', 'N-2']) {
      const u = await createMemberUser(lo);
      await customer(lo, 'Wholesale', number);
      const res = await associate(lo, { UserId: u.userId, CustomerNumber: number });
      expect(res.status).toBe(200);
      users.push({ userId: u.userId, email: u.email, number });
    }
  });
  const get = (qs: string, token = lo.adminToken) => call('GET', `/api/organizations/users/associations${qs}`, { token });

  test('when listed with defaults, then the generic envelope is sorted by UserId', async () => {
    const res = await get('');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['Data', 'PageNumber', 'PageSize', 'TotalCount']);
    expect(res.body).toMatchObject({ TotalCount: 3, PageNumber: 1, PageSize: 25 });
    expect(res.body.Data.map((a: { UserId: string }) => a.UserId)).toEqual(users.map((u) => u.userId).sort());
    expect(res.body.Data[0]).toEqual({ UserId: expect.any(String), CustomerNumber: expect.any(String), OrganizationId: lo.organizationId });
  });

  test('when paged and sorted by CustomerNumber desc, then the page holds the right rows', async () => {
    const res = await get('?page=2&size=2&sort=CustomerNumber&direction=desc');
    expect(res.body).toMatchObject({ TotalCount: 3, PageNumber: 2, PageSize: 2 });
    expect(res.body.Data.map((a: { CustomerNumber: string }) => a.CustomerNumber)).toEqual(['N-1']);
  });

  test('when filtered by CustomerNumber with gte (JSON and bracket forms), then only matches return', async () => {
    const json = await get(`?sort=CustomerNumber&filters=${encodeURIComponent(JSON.stringify([{ field: 'CustomerNumber', operator: 'gte', value: 'N-2' }]))}`);
    expect(json.body.Data.map((a: { CustomerNumber: string }) => a.CustomerNumber)).toEqual(['N-2', 'N-3']);
    const bracket = await get('?sort=CustomerNumber&filters[0][field]=CustomerNumber&filters[0][operator]=lt&filters[0][value]=N-2');
    expect(bracket.body.Data.map((a: { CustomerNumber: string }) => a.CustomerNumber)).toEqual(['N-1']);
  });

  test('when paging or filters are invalid, then 400 names each', async () => {
    const res = await get('?size=0&sort=Email&filters[0][field]=UserId&filters[0][operator]=equals&filters[0][value]=nope');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['filters[0].value', 'size', 'sort']);
  });

  test('when another organization lists, then it sees none of these', async () => {
    expect((await call('GET', '/api/organizations/users/associations', { token: other.adminToken })).body.TotalCount).toBe(0);
    expect((await call('GET', `/api/users/customer-association?UserId=${users[1].userId}`, { token: other.adminToken })).status).toBe(404);
    expect((await call('GET', `/api/users/customer-associations?UserId=${users[1].userId}`, { token: other.adminToken })).body).toEqual([]);
  });

  test('when a user is associated in two organizations, then customer-associations lists both once the user accepted the second; before that each organization sees only its own', async () => {
    const u = users[0];
    const add = await call('POST', '/api/users', { token: other.adminToken, body: { FirstName: 'Uma', LastName: 'User', Email: u.email } });
    expect(add.status).toBe(200);
    const foreign = await customer(other);
    expect((await associate(other, { UserId: u.userId, CustomerNumber: foreign })).status).toBe(200);
    const pendingThere = await call('GET', `/api/users/customer-associations?UserId=${u.userId}`, { token: other.adminToken });
    expect(pendingThere.body).toEqual([{ UserId: u.userId, CustomerNumber: foreign, OrganizationId: other.organizationId }]);
    const pendingHere = await call('GET', `/api/users/customer-associations?UserId=${u.userId}`, { token: lo.adminToken });
    expect(pendingHere.body).toEqual([{ UserId: u.userId, CustomerNumber: u.number, OrganizationId: lo.organizationId }]);
    const mail = await waitForMail(u.email, (m) => m.subject === `Join ${other.name}?`);
    const token = /accept-membership\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    expect((await call('POST', '/api/users/memberships/accept', { body: { Token: token, Password: 'member password 1' } })).status).toBe(200);
    const res = await call('GET', `/api/users/customer-associations?UserId=${u.userId}`, { token: lo.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body).toEqual(
      expect.arrayContaining([
        { UserId: u.userId, CustomerNumber: u.number, OrganizationId: lo.organizationId },
        { UserId: u.userId, CustomerNumber: foreign, OrganizationId: other.organizationId },
      ]),
    );
    const here = await call('GET', `/api/users/customer-association?UserId=${u.userId}`, { token: other.adminToken });
    expect(here.body).toEqual({ UserId: u.userId, CustomerNumber: foreign, OrganizationId: other.organizationId });
  });

  test('when UserId is missing or malformed, then 400; when the user has no association, then 404', async () => {
    expect((await call('GET', '/api/users/customer-association', { token: lo.adminToken })).status).toBe(400);
    expect((await call('GET', '/api/users/customer-associations?UserId=bad', { token: lo.adminToken })).status).toBe(400);
    expect((await call('GET', `/api/users/customer-association?UserId=${lo.adminUserId}`, { token: lo.adminToken })).status).toBe(404);
  });
});
