import { call, createMemberUser, createOrg, expectProblem, inspectorUrl, uniq, waitForMail, type OrgFixture } from './support/helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const orgBody = (name: string, email = `${uniq('founder')}@example.com`) => ({
  Organization: { Name: name, BillingAddress1: '1 Main St', BillingAddress2: 'Suite 2', BillingCity: 'Springfield', BillingStateProvince: 'IL', BillingPostalCode: '62701', BillingCountry: 'US', PhoneNumber: '+1 555 0100', Email: 'billing@example.com', Website: 'https://example.com' },
  User: { FirstName: 'Fay', LastName: 'Founder', Email: email, Password: 'founder password' },
});

describe('POST /api/organizations', () => {
  test('when an organization is created, then 201 with exactly OrganizationId, IdentityOrganizationId, Name, Slug', async () => {
    const name = uniq('Acme Trading ');
    const res = await call('POST', '/api/organizations', { body: orgBody(name) });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['IdentityOrganizationId', 'Name', 'OrganizationId', 'Slug']);
    expect(res.body.OrganizationId).toMatch(UUID);
    expect(res.body.Name).toBe(name);
    expect(res.body.Slug).toBe(name.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
    expect(typeof res.body.IdentityOrganizationId).toBe('string');
    expect(res.body.IdentityOrganizationId).not.toBe(res.body.OrganizationId);
  });

  test('when the name already exists (any case), then 400 naming the field', async () => {
    const name = uniq('Dup Org ');
    expect((await call('POST', '/api/organizations', { body: orgBody(name) })).status).toBe(201);
    const res = await call('POST', '/api/organizations', { body: orgBody(name.toUpperCase()) });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['Organization.Name']);
  });

  test('when several required fields are missing, then 400 naming all of them', async () => {
    const res = await call('POST', '/api/organizations', { body: { Organization: {}, User: { FirstName: 'x' } } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['Organization.Name', 'User.Email', 'User.LastName']);
    for (const msgs of Object.values(res.body.errors)) expect(msgs).toEqual([expect.any(String)]);
  });

  test('when Organization and User are missing entirely, then 400 naming both', async () => {
    const res = await call('POST', '/api/organizations', { body: {} });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['Organization', 'User']);
  });

  test('when a field has the wrong type, then 400 naming it (not 500)', async () => {
    const res = await call('POST', '/api/organizations', { body: { ...orgBody('x'), Organization: { Name: 5 } } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['Organization.Name']);
  });

  test('when values are malformed (country, e-mail, website, short password), then 400 naming each', async () => {
    const body = orgBody(uniq('Bad Org '));
    const res = await call('POST', '/api/organizations', {
      body: { Organization: { ...body.Organization, BillingCountry: 'usa', Email: 'nope', Website: 'not a url' }, User: { ...body.User, Email: 'bad', Password: 'short' } },
    });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['Organization.BillingCountry', 'Organization.Email', 'Organization.Website', 'User.Email', 'User.Password']);
  });

  test('when the body is not valid JSON, then 400 problem details (not 500)', async () => {
    const res = await call('POST', '/api/organizations', { rawBody: '{bad' });
    expectProblem(res, 400);
    expect(res.body.type).toMatch(/^https?:\/\//);
  });

  test('when the body is a JSON array, null or a string, then 400', async () => {
    for (const raw of ['[]', 'null', '"text"', '42']) expectProblem(await call('POST', '/api/organizations', { rawBody: raw }), 400);
  });
});

describe('GET /api/organization', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  test('when an admin reads the organization, then Organization, Subscriptions and Entitlements come back in PascalCase', async () => {
    const res = await call('GET', '/api/organization', { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['Entitlements', 'Organization', 'Subscriptions']);
    for (const f of ['OrganizationId', 'Name', 'BillingAddress1', 'BillingAddress2', 'BillingCity', 'BillingStateProvince', 'BillingPostalCode', 'BillingCountry', 'PhoneNumber', 'Email', 'Website'])
      expect(res.body.Organization).toHaveProperty(f);
    expect(res.body.Organization).toEqual(expect.objectContaining({ OrganizationId: org.organizationId, Name: org.name, BillingCountry: 'US', IdentityOrganizationId: org.code }));
    expect(Array.isArray(res.body.Subscriptions)).toBe(true);
    expect(Array.isArray(res.body.Entitlements)).toBe(true);
  });

  test('when a Customer reads it, then 403; without a token, then 401', async () => {
    const member = await createMemberUser(org);
    expectProblem(await call('GET', '/api/organization', { token: member.token }), 403);
    expectProblem(await call('GET', '/api/organization'), 401);
  });
});

describe('organization admins', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  test('when listing admins, then an array of OrganizationUser with Roles ["admin"]', async () => {
    const res = await call('GET', '/api/organizations/users/admins', { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ Id: org.adminUserId, Email: org.adminEmail, FirstName: 'Ada', LastName: 'Admin', Roles: ['admin'] }]);
  });

  test('when an existing user is made admin, then {Success: true}, the list shows them and a welcome e-mail arrives', async () => {
    const member = await createMemberUser(org);
    const res = await call('POST', '/api/organizations/users/admins', { token: org.adminToken, body: { Email: member.email } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ Success: true });
    const list = await call('GET', '/api/organizations/users/admins', { token: org.adminToken });
    expect(list.body.map((u: { Id: string }) => u.Id).sort()).toEqual([org.adminUserId, member.userId].sort());
    const mail = await waitForMail(member.email, (m) => m.subject === `Welcome to ${org.name}`);
    expect(mail.text).toContain(org.code);
  });

  test('when the e-mail has no account or is malformed, then 400 naming Email', async () => {
    const unknown = await call('POST', '/api/organizations/users/admins', { token: org.adminToken, body: { Email: `${uniq('ghost')}@example.com` } });
    expectProblem(unknown, 400);
    expect(Object.keys(unknown.body.errors)).toEqual(['Email']);
    const malformed = await call('POST', '/api/organizations/users/admins', { token: org.adminToken, body: { Email: 'not-an-email' } });
    expectProblem(malformed, 400);
    expect(Object.keys(malformed.body.errors)).toEqual(['Email']);
  });

  test('when an admin is removed, then {Success: true} and they are no longer listed', async () => {
    const member = await createMemberUser(org);
    expect((await call('POST', '/api/organizations/users/admins', { token: org.adminToken, body: { Email: member.email } })).status).toBe(200);
    const res = await call('DELETE', '/api/organizations/users/admins', { token: org.adminToken, body: { UserId: member.userId } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ Success: true });
    const list = await call('GET', '/api/organizations/users/admins', { token: org.adminToken });
    expect(list.body.map((u: { Id: string }) => u.Id)).not.toContain(member.userId);
  });

  test('when removing the last admin, then 400', async () => {
    const solo = await createOrg();
    const res = await call('DELETE', '/api/organizations/users/admins', { token: solo.adminToken, body: { UserId: solo.adminUserId } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['UserId']);
    const list = await call('GET', '/api/organizations/users/admins', { token: solo.adminToken });
    expect(list.body).toHaveLength(1);
  });

  test('when removing a user who is not an admin here, or UserId is missing or malformed, then 400', async () => {
    const member = await createMemberUser(org);
    expectProblem(await call('DELETE', '/api/organizations/users/admins', { token: org.adminToken, body: { UserId: member.userId } }), 400);
    const missing = await call('DELETE', '/api/organizations/users/admins', { token: org.adminToken, body: {} });
    expectProblem(missing, 400);
    expect(Object.keys(missing.body.errors)).toEqual(['UserId']);
    expectProblem(await call('DELETE', '/api/organizations/users/admins', { token: org.adminToken, body: { UserId: 'abc' } }), 400);
  });

  test("when removing another organization's admin, then 400 and that admin keeps the role", async () => {
    const other = await createOrg();
    expectProblem(await call('DELETE', '/api/organizations/users/admins', { token: org.adminToken, body: { UserId: other.adminUserId } }), 400);
    expect((await call('GET', '/api/organizations/users/admins', { token: other.adminToken })).body).toHaveLength(1);
  });

  test('when a Customer manages admins, then 403', async () => {
    const member = await createMemberUser(org);
    expectProblem(await call('GET', '/api/organizations/users/admins', { token: member.token }), 403);
    expectProblem(await call('POST', '/api/organizations/users/admins', { token: member.token, body: { Email: member.email } }), 403);
    expectProblem(await call('DELETE', '/api/organizations/users/admins', { token: member.token, body: { UserId: org.adminUserId } }), 403);
  });
});

describe('price tiers', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });
  const tiers = async () => (await call('GET', '/api/organizations/price-tiers', { token: org.adminToken })).body;

  test('when a tier is created, then 200 with an empty body and it is listed', async () => {
    const res = await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Gold', CurrencyCode: 'EUR' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect(await tiers()).toContainEqual({ Name: 'Gold', CurrencyCode: 'EUR' });
  });

  test('when a tier name is taken, then 409', async () => {
    expect((await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Silver', CurrencyCode: 'USD' } })).status).toBe(200);
    expectProblem(await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Silver', CurrencyCode: 'USD' } }), 409);
  });

  test('when another organization uses the same tier name, then it is allowed', async () => {
    const other = await createOrg();
    expect((await call('POST', '/api/organizations/price-tiers', { token: other.adminToken, body: { Name: 'Gold', CurrencyCode: 'USD' } })).status).toBe(200);
  });

  test('when fields are missing or malformed, then 400 naming each', async () => {
    const res = await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { CurrencyCode: 'dollars' } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['CurrencyCode', 'Name']);
  });

  test('when a tier is renamed, then 200 empty, the new name is listed and the currency set (USD by default)', async () => {
    expect((await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Bronze', CurrencyCode: 'EUR' } })).status).toBe(200);
    const res = await call('PUT', '/api/organizations/price-tiers', { token: org.adminToken, body: { CurrentName: 'Bronze', NewName: 'Copper' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const list = await tiers();
    expect(list).toContainEqual({ Name: 'Copper', CurrencyCode: 'USD' });
    expect(list.map((t: { Name: string }) => t.Name)).not.toContain('Bronze');
  });

  test('when renaming an unknown tier, then 404; onto a taken name, then 409', async () => {
    expectProblem(await call('PUT', '/api/organizations/price-tiers', { token: org.adminToken, body: { CurrentName: 'Nope', NewName: 'Whatever' } }), 404);
    expect((await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Tin', CurrencyCode: 'USD' } })).status).toBe(200);
    expectProblem(await call('PUT', '/api/organizations/price-tiers', { token: org.adminToken, body: { CurrentName: 'Tin', NewName: 'Gold', CurrencyCode: 'USD' } }), 409);
  });

  test('when the rename body misses fields, then 400 naming both', async () => {
    const res = await call('PUT', '/api/organizations/price-tiers', { token: org.adminToken, body: {} });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['CurrentName', 'NewName']);
  });

  test('when a tier is deleted, then 200 empty and it is gone; deleting an unknown tier is 404', async () => {
    expect((await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Lead', CurrencyCode: 'USD' } })).status).toBe(200);
    const res = await call('DELETE', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Lead' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    expect((await tiers()).map((t: { Name: string }) => t.Name)).not.toContain('Lead');
    expectProblem(await call('DELETE', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Lead' } }), 404);
  });

  test("when deleting another organization's tier, then 404 and it survives", async () => {
    const other = await createOrg();
    expect((await call('POST', '/api/organizations/price-tiers', { token: other.adminToken, body: { Name: 'Platinum', CurrencyCode: 'USD' } })).status).toBe(200);
    expectProblem(await call('DELETE', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Platinum' } }), 404);
    expect((await call('GET', '/api/organizations/price-tiers', { token: other.adminToken })).body).toContainEqual({ Name: 'Platinum', CurrencyCode: 'USD' });
  });

  test('when a Customer manages tiers, then 403', async () => {
    const member = await createMemberUser(org);
    expectProblem(await call('POST', '/api/organizations/price-tiers', { token: member.token, body: { Name: 'X', CurrencyCode: 'USD' } }), 403);
    expectProblem(await call('GET', '/api/organizations/price-tiers', { token: member.token }), 403);
  });
});

describe('POST /api/organizations/api-access', () => {
  test('when a Customer asks for API credentials, then 403', async () => {
    const org = await createOrg();
    const member = await createMemberUser(org);
    expectProblem(await call('POST', '/api/organizations/api-access', { token: member.token }), 403);
  });

  test('when another transaction is writing rows of the organization, then issuing credentials waits for it and answers 201', async () => {
    // Every insert into a tenant table takes FOR KEY SHARE on the organization row; the issuance's
    // row lock used to skip that row (FOR UPDATE SKIP LOCKED) and fail instead of waiting.
    const org = await createOrg();
    const { Client } = await import('pg');
    const holder = new Client({ connectionString: inspectorUrl() });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from organization where id = $1 for key share', [org.organizationId]);
      let answered = false;
      const pending = call('POST', '/api/organizations/api-access', { token: org.adminToken }).finally(() => (answered = true));
      // Commit once the request waits on the lock (or has answered without waiting: the bug).
      for (const deadline = Date.now() + 15_000; !answered && Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
        const waiting = await holder.query(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
        if (waiting.rows[0].n > 0) break;
      }
      await holder.query('commit');
      const res = await pending;
      expect(res.status).toBe(201);
      expect(res.body.ClientId).toEqual(expect.any(String));
    } finally {
      await holder.end();
    }
  });
});
