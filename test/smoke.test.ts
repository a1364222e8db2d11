import { API, call, createOrg } from './support/helpers';

describe('stack smoke', () => {
  test('when the API is up, then /health answers ok', async () => {
    const res = await fetch(`${API}/health`);
    expect(res.status).toBe(200);
  });

  test('when an organization is created, then its admin can log in and read it', async () => {
    const org = await createOrg();
    const res = await call('GET', '/api/organization', { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(res.body.Organization.OrganizationId).toBe(org.organizationId);
  });
});
