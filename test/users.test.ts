import { call, createMemberUser, createOrg, decodeToken, expectProblem, issueApiAccess, uniq, waitForMail, type OrgFixture } from './support/helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/users', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  test('when a new user is created, then 201 with the profile in PascalCase', async () => {
    const email = `${uniq('New.User')}@Example.com`;
    const res = await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'Nora', LastName: 'New', Email: email, Password: 'nora password', PhoneNumber: '+1 555 0101' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['Email', 'FirstName', 'LastName', 'PhoneNumber', 'UserId']);
    expect(res.body).toEqual({ UserId: expect.stringMatching(UUID), FirstName: 'Nora', LastName: 'New', Email: email.toLowerCase(), PhoneNumber: '+1 555 0101' });
    const login = await call('POST', '/api/auth/token', { body: { Email: email, Password: 'nora password' } });
    expect(login.status).toBe(200);
    expect(decodeToken(login.body.AccessToken)).toEqual(expect.objectContaining({ OrganizationId: org.organizationId, role: 'Customer' }));
  });

  test('when the e-mail already has an account, then 200 echoing the submitted names, the Password is ignored and the membership waits for the owner to accept', async () => {
    const other = await createOrg();
    const existing = await createMemberUser(other);
    const res = await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'Changed', LastName: 'Name', Email: existing.email.toUpperCase(), Password: 'a different password' } });
    expect(res.status).toBe(200);
    // Another organization's profile is never shown: the answer echoes what was submitted.
    expect(res.body).toEqual({ UserId: existing.userId, FirstName: 'Changed', LastName: 'Name', Email: existing.email, PhoneNumber: null });
    expectProblem(await call('POST', '/api/auth/token', { body: { Email: existing.email, Password: 'a different password', OrgCode: org.code } }), 401);
    // Pending: signing in to this organization waits for acceptance; the other one is the only choice.
    expectProblem(await call('POST', '/api/auth/token', { body: { Email: existing.email, Password: 'member password 1', OrgCode: org.code } }), 401);
    const only = await call('POST', '/api/auth/token', { body: { Email: existing.email, Password: 'member password 1' } });
    expect(decodeToken(only.body.AccessToken).OrganizationId).toBe(other.organizationId);
    const mail = await waitForMail(existing.email, (m) => m.subject === `Join ${org.name}?`);
    const token = /accept-membership\?token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
    // Accepting sets a new password; the one from before no longer opens anything.
    expect((await call('POST', '/api/users/memberships/accept', { body: { Token: token, Password: 'accepted password 1' } })).status).toBe(200);
    expectProblem(await call('POST', '/api/auth/token', { body: { Email: existing.email, Password: 'member password 1', OrgCode: other.code } }), 401);
    // Now in two organizations: login needs OrgCode.
    const ambiguous = await call('POST', '/api/auth/token', { body: { Email: existing.email, Password: 'accepted password 1' } });
    expectProblem(ambiguous, 400);
    expect(Object.keys(ambiguous.body.errors)).toEqual(['OrgCode']);
    const here = await call('POST', '/api/auth/token', { body: { Email: existing.email, Password: 'accepted password 1', OrgCode: org.code } });
    expect(here.status).toBe(200);
    expect(decodeToken(here.body.AccessToken).OrganizationId).toBe(org.organizationId);
    const there = await call('POST', '/api/auth/token', { body: { Email: existing.email, Password: 'accepted password 1', OrgCode: other.organizationId } });
    expect(there.status).toBe(200);
    expect(decodeToken(there.body.AccessToken).OrganizationId).toBe(other.organizationId);
    // Adding the same user again is idempotent.
    expect((await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'x', LastName: 'y', Email: existing.email } })).status).toBe(200);
  });

  test('when required fields are missing, then 400 naming all of them', async () => {
    const res = await call('POST', '/api/users', { token: org.adminToken, body: { PhoneNumber: '1' } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['Email', 'FirstName', 'LastName']);
  });

  test('when fields have the wrong types or formats, then 400 naming them (never 500)', async () => {
    const res = await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 5, LastName: ['x'], Email: 'nope', Password: 'short' } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['Email', 'FirstName', 'LastName', 'Password']);
    const obj = await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'a', LastName: 'b', Email: { $ne: null } } });
    expectProblem(obj, 400);
    expect(Object.keys(obj.body.errors)).toEqual(['Email']);
  });

  test('when the body is not JSON, then 400 problem details', async () => {
    expectProblem(await call('POST', '/api/users', { token: org.adminToken, rawBody: '{bad' }), 400);
  });

  test('when a Customer creates a user, then 403', async () => {
    const member = await createMemberUser(org);
    expectProblem(await call('POST', '/api/users', { token: member.token, body: { FirstName: 'a', LastName: 'b', Email: `${uniq('x')}@example.com` } }), 403);
  });
});

describe('GET /api/users/profile', () => {
  test('when a member reads the profile, then their profile; an Admin reads their own', async () => {
    const org = await createOrg();
    const member = await createMemberUser(org);
    const res = await call('GET', '/api/users/profile', { token: member.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ UserId: member.userId, FirstName: 'Uma', LastName: 'User', Email: member.email, PhoneNumber: null });
    const admin = await call('GET', '/api/users/profile', { token: org.adminToken });
    expect(admin.status).toBe(200);
    expect(admin.body.Email).toBe(org.adminEmail);
  });

  test('when the token is a client token or static API key (no user), then 404; without a token, then 401', async () => {
    const org = await createOrg();
    const creds = await issueApiAccess(org);
    const client = await call('POST', '/api/auth/login', { body: { OrgCode: org.code, ClientId: creds.ClientId, ClientSecret: creds.ClientSecret } });
    expectProblem(await call('GET', '/api/users/profile', { token: client.body.AccessToken }), 404);
    expectProblem(await call('GET', '/api/users/profile', { apiKey: creds.ApiKey }), 404);
    expectProblem(await call('GET', '/api/users/profile'), 401);
  });
});

describe('GET /api/users/exists', () => {
  test('when the e-mail is registered (any case), then {UserExists: true}; otherwise false', async () => {
    const org = await createOrg();
    const yes = await call('GET', `/api/users/exists?Email=${encodeURIComponent(org.adminEmail.toUpperCase())}`);
    expect(yes.status).toBe(200);
    expect(yes.body).toEqual({ UserExists: true });
    const no = await call('GET', `/api/users/exists?Email=${encodeURIComponent(`${uniq('nobody')}@example.com`)}`);
    expect(no.status).toBe(200);
    expect(no.body).toEqual({ UserExists: false });
  });

  test('when Email is missing or invalid, then 400 naming Email', async () => {
    const missing = await call('GET', '/api/users/exists');
    expectProblem(missing, 400);
    expect(Object.keys(missing.body.errors)).toEqual(['Email']);
    const invalid = await call('GET', '/api/users/exists?Email=not-an-email');
    expectProblem(invalid, 400);
    expect(Object.keys(invalid.body.errors)).toEqual(['Email']);
    expectProblem(await call('GET', '/api/users/exists?Email[a]=b'), 400);
  });
});

describe('GET /api/users/organizations', () => {
  test('when an admin belongs to two organizations, then both are listed as {OrganizationId, Name, Slug}', async () => {
    const first = await createOrg();
    const secondName = uniq('Second Org ');
    const second = await call('POST', '/api/organizations', {
      body: { Organization: { Name: secondName }, User: { FirstName: 'Ada', LastName: 'Admin', Email: first.adminEmail } },
    });
    expect(second.status).toBe(201);
    const login = await call('POST', '/api/auth/token', { body: { Email: first.adminEmail, Password: first.adminPassword, OrgCode: first.code } });
    expect(login.status).toBe(200);
    const res = await call('GET', '/api/users/organizations', { token: login.body.AccessToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['Organizations']);
    const byId = Object.fromEntries(res.body.Organizations.map((o: { OrganizationId: string }) => [o.OrganizationId, o]));
    expect(res.body.Organizations).toHaveLength(2);
    expect(byId[first.organizationId]).toEqual({ OrganizationId: first.organizationId, Name: first.name, Slug: expect.any(String) });
    expect(byId[second.body.OrganizationId]).toEqual({ OrganizationId: second.body.OrganizationId, Name: secondName, Slug: second.body.Slug });
  });

  test('when a Customer asks, then 403', async () => {
    const org = await createOrg();
    const member = await createMemberUser(org);
    expectProblem(await call('GET', '/api/users/organizations', { token: member.token }), 403);
  });
});
