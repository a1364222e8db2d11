import { API, SANDBOX_API, call, createOrg, expectProblem } from './support/helpers';

describe('sandbox isolation', () => {
  test('when an organization is created in the sandbox, then its token and its admin login fail on production', async () => {
    const org = await createOrg({ base: SANDBOX_API });
    const inSandbox = await call('GET', '/api/organization', { base: SANDBOX_API, token: org.adminToken });
    expect(inSandbox.status).toBe(200);
    expect(inSandbox.body.Organization.OrganizationId).toBe(org.organizationId);
    expectProblem(await call('GET', '/api/organization', { base: API, token: org.adminToken }), 401);
    expectProblem(await call('POST', '/api/auth/token', { base: API, body: { Email: org.adminEmail, Password: org.adminPassword } }), 401);
    const exists = await call('GET', `/api/users/exists?Email=${encodeURIComponent(org.adminEmail)}`, { base: API });
    expect(exists.body).toEqual({ UserExists: false });
  });

  test('when an organization is created in production, then its token and its admin login fail in the sandbox', async () => {
    const org = await createOrg({ base: API });
    expectProblem(await call('GET', '/api/organization', { base: SANDBOX_API, token: org.adminToken }), 401);
    expectProblem(await call('POST', '/api/auth/token', { base: SANDBOX_API, body: { Email: org.adminEmail, Password: org.adminPassword } }), 401);
  });

  test('when the same organization name is used in both environments, then both creations succeed', async () => {
    const prod = await createOrg({ base: API });
    const sandbox = await createOrg({ base: SANDBOX_API, name: prod.name });
    expect(sandbox.name).toBe(prod.name);
    expect(sandbox.organizationId).not.toBe(prod.organizationId);
  });
});
