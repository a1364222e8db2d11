import { call, createMemberUser, createOrg, decodeToken, expectProblem, issueApiAccess, setPasswordToken, uniq, waitForMail, type OrgFixture } from './support/helpers';

const login = (org: OrgFixture, creds: { ClientId: string; ClientSecret: string }, orgCode = org.code) =>
  call('POST', '/api/auth/login', { body: { OrgCode: orgCode, ClientId: creds.ClientId, ClientSecret: creds.ClientSecret } });
const userLogin = (email: string, password: string) => call('POST', '/api/auth/token', { body: { Email: email, Password: password } });

describe('client-credential login', () => {
  let org: OrgFixture;
  let creds: { ClientId: string; ClientSecret: string; ApiKey: string };

  beforeAll(async () => {
    org = await createOrg();
    const res = await call('POST', '/api/organizations/api-access', { token: org.adminToken });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['ApiKey', 'ClientId', 'ClientSecret']);
    creds = res.body;
    for (const v of Object.values(creds)) expect(typeof v).toBe('string');
  });

  test('when logging in with OrgCode, ClientId and ClientSecret, then an api-key token valid for 86400 s is returned', async () => {
    const res = await login(org, creds);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['AccessToken', 'ExpiresIn', 'TokenType']);
    expect(res.body.TokenType).toBe('api-key');
    expect(res.body.ExpiresIn).toBe(86400);
    const claims = decodeToken(res.body.AccessToken);
    expect(claims.OrganizationId).toBe(org.organizationId);
    expect(claims).toEqual(expect.objectContaining({ CustomerNumber: null, PriceTier: null, CurrencyCode: null }));
    expect(claims.exp - claims.iat).toBe(86400);
  });

  test('when the ClientSecret is wrong, then 401', async () => {
    expectProblem(await login(org, { ...creds, ClientSecret: `${creds.ClientSecret}x` }), 401);
  });

  test('when the OrgCode belongs to another organization or does not exist, then 401', async () => {
    const other = await createOrg();
    expectProblem(await login(org, creds, other.code), 401);
    expectProblem(await login(org, creds, 'org_doesnotexist'), 401);
  });

  test('when the ClientId is unknown, then 401', async () => {
    expectProblem(await login(org, { ...creds, ClientId: 'cli_unknown' }), 401);
  });

  test('when a required field is missing, then 400 naming it', async () => {
    const res = await call('POST', '/api/auth/login', { body: { OrgCode: org.code } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['ClientId', 'ClientSecret']);
  });

  test('when the client token is sent as Bearer or as x-api-key, then both are accepted', async () => {
    const token = (await login(org, creds)).body.AccessToken;
    const bearer = await call('GET', '/api/organization', { token });
    expect(bearer.status).toBe(200);
    expect(bearer.body.Organization.OrganizationId).toBe(org.organizationId);
    const header = await call('GET', '/api/organization', { apiKey: token });
    expect(header.status).toBe(200);
    expect(header.body.Organization.OrganizationId).toBe(org.organizationId);
  });

  test('when the static ApiKey is sent in x-api-key, then GET /api/organization answers with the organization', async () => {
    const res = await call('GET', '/api/organization', { apiKey: creds.ApiKey });
    expect(res.status).toBe(200);
    expect(res.body.Organization.OrganizationId).toBe(org.organizationId);
  });

  test('when a static ApiKey is unknown, then 401', async () => {
    expectProblem(await call('GET', '/api/organization', { apiKey: `${creds.ApiKey}zz` }), 401);
  });
});

describe('user login', () => {
  test('when a user logs in with Email and Password, then an api-key token with the membership role is returned', async () => {
    const org = await createOrg();
    const res = await userLogin(org.adminEmail, org.adminPassword);
    expect(res.status).toBe(200);
    expect(res.body.TokenType).toBe('api-key');
    expect(res.body.ExpiresIn).toBe(86400);
    const claims = decodeToken(res.body.AccessToken);
    expect(claims).toEqual(expect.objectContaining({ OrganizationId: org.organizationId, role: 'Admin', CustomerNumber: null, PriceTier: null, CurrencyCode: null }));
    const viaHeader = await call('GET', '/api/users/profile', { apiKey: res.body.AccessToken });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.Email).toBe(org.adminEmail);
  });

  test('when the password is wrong or the e-mail unknown, then 401', async () => {
    const org = await createOrg();
    expectProblem(await userLogin(org.adminEmail, 'wrong password!'), 401);
    expectProblem(await userLogin(`${uniq('nobody')}@example.com`, 'whatever123'), 401);
  });

  test('when the Authorization header is not a Bearer token, then 401', async () => {
    const org = await createOrg();
    expectProblem(await call('GET', '/api/organization', { headers: { authorization: `Basic ${org.adminToken}` } }), 401);
  });
});

describe('credential rotation', () => {
  test('when api-access is called again, then the old ApiKey, old client token and old user tokens are 401 while the new ones work', async () => {
    const org = await createOrg();
    const first = await issueApiAccess(org);
    // Issuing credentials bumps the credential version: the admin logs in again.
    const adminToken = (await userLogin(org.adminEmail, org.adminPassword)).body.AccessToken;
    const oldClientToken = (await login(org, first)).body.AccessToken;
    expect((await call('GET', '/api/organization', { apiKey: first.ApiKey })).status).toBe(200);
    expect((await call('GET', '/api/organization', { token: oldClientToken })).status).toBe(200);
    expect((await call('GET', '/api/organization', { token: adminToken })).status).toBe(200);

    const rotated = await call('POST', '/api/organizations/api-access', { token: adminToken });
    expect(rotated.status).toBe(201);
    const second = rotated.body;
    expect(second.ClientId).not.toBe(first.ClientId);
    expect(second.ApiKey).not.toBe(first.ApiKey);

    expectProblem(await call('GET', '/api/organization', { apiKey: first.ApiKey }), 401);
    expectProblem(await call('GET', '/api/organization', { token: oldClientToken }), 401);
    expectProblem(await call('GET', '/api/organization', { token: adminToken }), 401);
    expectProblem(await call('GET', '/api/organization', { apiKey: adminToken }), 401);
    expectProblem(await login(org, first), 401);

    expect((await call('GET', '/api/organization', { apiKey: second.ApiKey })).status).toBe(200);
    const newClient = await login(org, second);
    expect(newClient.status).toBe(200);
    expect((await call('GET', '/api/organization', { token: newClient.body.AccessToken })).status).toBe(200);
    const newAdmin = await userLogin(org.adminEmail, org.adminPassword);
    expect(newAdmin.status).toBe(200);
    expect((await call('GET', '/api/organization', { token: newAdmin.body.AccessToken })).status).toBe(200);
  });
});

describe('POST /api/auth/access', () => {
  let org: OrgFixture;
  let member: { userId: string; email: string; token: string };
  beforeAll(async () => {
    org = await createOrg();
    member = await createMemberUser(org);
  });

  test('when asked for a member by organization code, then the commerce context is all null', async () => {
    const res = await call('POST', '/api/auth/access', { token: org.adminToken, body: { OrganizationId: org.code, UserId: member.userId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ CustomerNumber: null, PriceTier: null, CurrencyCode: null });
  });

  test('when asked by internal organization id, then the same context is returned', async () => {
    const res = await call('POST', '/api/auth/access', { token: org.adminToken, body: { OrganizationId: org.organizationId, UserId: member.userId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ CustomerNumber: null, PriceTier: null, CurrencyCode: null });
  });

  test('when a member asks for their own context, then 200', async () => {
    const res = await call('POST', '/api/auth/access', { token: member.token, body: { OrganizationId: org.code, UserId: member.userId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ CustomerNumber: null, PriceTier: null, CurrencyCode: null });
  });

  test('when UserId is missing or malformed, then 400 naming UserId', async () => {
    const missing = await call('POST', '/api/auth/access', { token: org.adminToken, body: { OrganizationId: org.code } });
    expectProblem(missing, 400);
    expect(Object.keys(missing.body.errors)).toEqual(['UserId']);
    const malformed = await call('POST', '/api/auth/access', { token: org.adminToken, body: { OrganizationId: org.code, UserId: 'not-a-uuid' } });
    expectProblem(malformed, 400);
    expect(Object.keys(malformed.body.errors)).toEqual(['UserId']);
    const both = await call('POST', '/api/auth/access', { token: org.adminToken, body: {} });
    expectProblem(both, 400);
    expect(Object.keys(both.body.errors).sort()).toEqual(['OrganizationId', 'UserId']);
  });

  test("when the OrganizationId is another organization's, then 403", async () => {
    const other = await createOrg();
    expectProblem(await call('POST', '/api/auth/access', { token: org.adminToken, body: { OrganizationId: other.organizationId, UserId: other.adminUserId } }), 403);
    expectProblem(await call('POST', '/api/auth/access', { token: org.adminToken, body: { OrganizationId: other.code, UserId: other.adminUserId } }), 403);
  });

  test('when no token is sent, then 401', async () => {
    expectProblem(await call('POST', '/api/auth/access', { body: { OrganizationId: org.code, UserId: member.userId } }), 401);
  });
});

describe('set-password flow', () => {
  test('when a user is created without a password, then the invitation link sets a password once and login works', async () => {
    const org = await createOrg();
    const email = `${uniq('invitee')}@example.com`;
    const created = await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'Ivy', LastName: 'Invitee', Email: email } });
    expect(created.status).toBe(201);
    expectProblem(await userLogin(email, 'a brand new password'), 401);

    const mail = await waitForMail(email, (m) => /token=/.test(m.text));
    expect(mail.subject).toContain(org.name);
    const token = setPasswordToken(mail);

    const weak = await call('POST', '/api/auth/set-password', { body: { Token: token, Password: 'short' } });
    expectProblem(weak, 400);
    expect(Object.keys(weak.body.errors)).toEqual(['Password']);

    const set = await call('POST', '/api/auth/set-password', { body: { Token: token, Password: 'a brand new password' } });
    expect(set.status).toBe(204);
    expect(set.text).toBe('');

    const res = await userLogin(email, 'a brand new password');
    expect(res.status).toBe(200);
    expect(decodeToken(res.body.AccessToken).role).toBe('Customer');

    const reuse = await call('POST', '/api/auth/set-password', { body: { Token: token, Password: 'another password 2' } });
    expectProblem(reuse, 400);
    expect(Object.keys(reuse.body.errors)).toEqual(['Token']);
    expect((await userLogin(email, 'a brand new password')).status).toBe(200);
  });

  test('when the token is unknown, then 400 naming Token', async () => {
    const res = await call('POST', '/api/auth/set-password', { body: { Token: 'not-a-real-token', Password: 'good password 1' } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['Token']);
  });
});
