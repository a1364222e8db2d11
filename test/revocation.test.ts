import { call, createMemberUser, createOrg, repToken, uniq, type OrgFixture } from './support/helpers';

describe('user tokens lose access as soon as the role behind them does', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  test('when an admin role is removed, then that admin’s existing token is 401 at once', async () => {
    const member = await createMemberUser(org);
    expect((await call('POST', '/api/organizations/users/admins', { token: org.adminToken, body: { Email: member.email } })).status).toBe(200);
    const login = await call('POST', '/api/auth/token', { body: { Email: member.email, Password: 'member password 1' } });
    expect(login.status).toBe(200);
    const adminToken = login.body.AccessToken;
    expect((await call('GET', '/api/organization', { token: adminToken })).status).toBe(200);
    expect((await call('DELETE', '/api/organizations/users/admins', { token: org.adminToken, body: { UserId: member.userId } })).status).toBe(200);
    const after = await call('GET', '/api/organization', { token: adminToken });
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/administrator role was removed/);
  });

  test('when a sales rep is deactivated, then the rep’s token is 401; after activation it works again', async () => {
    const repNumber = uniq('R');
    const token = await repToken(org, repNumber);
    expect((await call('GET', '/api/salesreps/organizations', { token })).status).toBe(200);
    const list = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: org.adminToken });
    const rep = (list.body as { repNumber: string; organizationSalesRepId: string }[]).find((r) => r.repNumber === repNumber)!;
    expect((await call('POST', '/api/organizations/salesreps/deactivate', { token: org.adminToken, body: { organizationSalesRepId: rep.organizationSalesRepId } })).status).toBe(200);
    expect((await call('GET', '/api/salesreps/organizations', { token })).status).toBe(401);
    expect((await call('POST', '/api/organizations/salesreps/activate', { token: org.adminToken, body: { organizationSalesRepId: rep.organizationSalesRepId } })).status).toBe(200);
    expect((await call('GET', '/api/salesreps/organizations', { token })).status).toBe(200);
  });

  test('when a sales rep is removed, then the rep’s token is 401', async () => {
    const repNumber = uniq('R');
    const token = await repToken(org, repNumber);
    const list = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: org.adminToken });
    const rep = (list.body as { repNumber: string; organizationSalesRepId: string }[]).find((r) => r.repNumber === repNumber)!;
    expect((await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: rep.organizationSalesRepId } })).status).toBe(200);
    expect((await call('GET', '/api/salesreps/organizations', { token })).status).toBe(401);
  });
});
