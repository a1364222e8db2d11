import { call, createMemberUser, createOrg, decodeToken, inspectorUrl, mailsFor, uniq, waitForMail, type Mail, type OrgFixture } from './support/helpers';

const LIST_KEYS = ['active', 'email', 'firstName', 'lastName', 'organizationId', 'organizationSalesRepId', 'phoneNumber', 'repNumber', 'salesRepId'].sort();
const CREATE_KEYS = [
  'email',
  'firstName',
  'identityProvider',
  'identityProviderUserId',
  'lastName',
  'organizationId',
  'organizationName',
  'organizationSalesRepId',
  'phoneNumber',
  'repNumber',
  'salesRepId',
].sort();
const ASSIGNMENT_KEYS = [
  'active',
  'email',
  'firstName',
  'identityOrganizationId',
  'identityProviderUserId',
  'lastName',
  'organizationId',
  'organizationName',
  'organizationSalesRepId',
  'phoneNumber',
  'repNumber',
  'roles',
  'salesRepId',
].sort();
const PASSWORD = 'rep password 123';

const newRep = (over: Record<string, unknown> = {}) => ({
  firstName: 'Rita',
  lastName: uniq('Rep'),
  email: `${uniq('rep')}@example.com`,
  phoneNumber: '+1 555 0100',
  repNumber: uniq('R'),
  ...over,
});

async function putRep(org: OrgFixture, over: Record<string, unknown> = {}) {
  const input = newRep(over);
  const res = await call('PUT', '/api/organizations/salesreps', { token: org.adminToken, body: input });
  if (res.status !== 201) throw new Error(`create rep failed: ${res.status} ${res.text}`);
  return { input, res };
}

const linkToken = (m: Mail) => /[?&]token=([A-Za-z0-9_-]+)/.exec(m.text)?.[1];

/** Sets the rep's password from the link of its welcome e-mail. */
async function setPasswordFromWelcome(email: string): Promise<void> {
  const mail = await waitForMail(email, (m) => m.subject.startsWith('Welcome') && !!linkToken(m));
  const res = await call('POST', '/api/auth/set-password', { body: { Token: linkToken(mail), Password: PASSWORD } });
  expect(res.status).toBe(204);
}

const login = (email: string, orgCode?: string) => call('POST', '/api/auth/token', { body: { Email: email, Password: PASSWORD, ...(orgCode ? { OrgCode: orgCode } : {}) } });

describe('sales reps', () => {
  let org: OrgFixture;
  let other: OrgFixture;
  let customerToken: string;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(), createOrg()]);
    customerToken = (await createMemberUser(org)).token;
  });

  describe('PUT /api/organizations/salesreps', () => {
    test('when an admin creates a rep, then 201 returns the assignment, a welcome e-mail has a set-password link and the rep logs in as SalesRep', async () => {
      const { input, res } = await putRep(org, { roles: ['SalesRep'] });
      expect(Object.keys(res.body).sort()).toEqual(CREATE_KEYS);
      expect(res.body).toMatchObject({
        organizationId: org.organizationId,
        organizationName: org.name,
        firstName: input.firstName,
        lastName: input.lastName,
        email: (input.email).toLowerCase(),
        phoneNumber: '+1 555 0100',
        repNumber: input.repNumber,
        identityProvider: 'local',
      });
      expect(res.body.organizationSalesRepId).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.salesRepId).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.identityProviderUserId).toMatch(/^[0-9a-f-]{36}$/);

      const before = await login(input.email);
      expect(before.status).toBe(401);
      await setPasswordFromWelcome(input.email);
      const after = await login(input.email);
      expect(after.status).toBe(200);
      const claims = decodeToken(after.body.AccessToken);
      expect(claims.role).toBe('SalesRep');
      expect(claims.RepNumber).toBe(input.repNumber);
      expect(claims.OrganizationId).toBe(org.organizationId);
      expect(claims.UserId).toBe(res.body.identityProviderUserId);
    });

    test('when required fields are missing or malformed, then 400 names every one of them', async () => {
      const res = await call('PUT', '/api/organizations/salesreps', { token: org.adminToken, body: { email: 'not-an-email', roles: 'SalesRep' } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['email', 'firstName', 'lastName', 'repNumber', 'roles']);
    });

    test('when a customer token is used, then 403', async () => {
      const res = await call('PUT', '/api/organizations/salesreps', { token: customerToken, body: newRep() });
      expect(res.status).toBe(403);
    });

    test('when the rep number is already used in the organization, then 409', async () => {
      const { input } = await putRep(org);
      const res = await call('PUT', '/api/organizations/salesreps', { token: org.adminToken, body: newRep({ repNumber: input.repNumber }) });
      expect(res.status).toBe(409);
    });

    test('when the same rep is added twice to the organization, then 409', async () => {
      const { input } = await putRep(org);
      const res = await call('PUT', '/api/organizations/salesreps', { token: org.adminToken, body: { ...input, repNumber: uniq('R') } });
      expect(res.status).toBe(409);
    });

    test('when the same rep number is used in another organization, then it is accepted', async () => {
      const { input } = await putRep(org);
      const res = await call('PUT', '/api/organizations/salesreps', { token: other.adminToken, body: newRep({ repNumber: input.repNumber }) });
      expect(res.status).toBe(201);
    });
  });

  describe('POST /api/organizations/:organizationId/salesreps', () => {
    test('when an admin posts PascalCase fields, then 201 returns the same assignment shape', async () => {
      const email = `${uniq('rep')}@example.com`;
      const res = await call('POST', `/api/organizations/${org.organizationId}/salesreps`, {
        token: org.adminToken,
        body: { FirstName: 'Pat', LastName: 'Pascal', Email: email, PhoneNumber: '555', RepNumber: 'P-1', Roles: ['SalesRep'] },
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(CREATE_KEYS);
      expect(res.body).toMatchObject({ organizationId: org.organizationId, firstName: 'Pat', lastName: 'Pascal', email, phoneNumber: '555', repNumber: 'P-1', identityProvider: 'local' });
      const dup = await call('POST', `/api/organizations/${org.organizationId}/salesreps`, {
        token: org.adminToken,
        body: { FirstName: 'Pat', LastName: 'Other', Email: `${uniq('rep')}@example.com`, RepNumber: 'P-1' },
      });
      expect(dup.status).toBe(409);
    });

    test('when fields are missing, then 400 names them in PascalCase', async () => {
      const res = await call('POST', `/api/organizations/${org.organizationId}/salesreps`, { token: org.adminToken, body: { Email: 'bad' } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['Email', 'FirstName', 'LastName', 'RepNumber']);
    });

    test('when the path names another organization, then 403', async () => {
      const res = await call('POST', `/api/organizations/${other.organizationId}/salesreps`, {
        token: org.adminToken,
        body: { FirstName: 'A', LastName: 'B', Email: `${uniq('rep')}@example.com`, RepNumber: uniq('R') },
      });
      expect(res.status).toBe(403);
    });

    test('when a customer token is used, then 403', async () => {
      const res = await call('POST', `/api/organizations/${org.organizationId}/salesreps`, {
        token: customerToken,
        body: { FirstName: 'A', LastName: 'B', Email: `${uniq('rep')}@example.com`, RepNumber: uniq('R') },
      });
      expect(res.status).toBe(403);
    });
  });

  describe('GET /api/organizations/salesreps', () => {
    let listOrg: OrgFixture;
    beforeAll(async () => {
      listOrg = await createOrg();
      for (const [n, last] of [
        ['B-2', 'Alpha'],
        ['A-1', 'Charlie'],
        ['C-3', 'Bravo'],
      ])
        await putRep(listOrg, { repNumber: n, lastName: last });
    });

    test('when listed without parameters, then an array of rep records sorted by rep number is returned', async () => {
      const res = await call('GET', '/api/organizations/salesreps', { token: listOrg.adminToken });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.map((r: any) => r.repNumber)).toEqual(['A-1', 'B-2', 'C-3']);
      for (const r of res.body) {
        expect(Object.keys(r).sort()).toEqual(LIST_KEYS);
        expect(r.organizationId).toBe(listOrg.organizationId);
        expect(r.active).toBe(true);
      }
    });

    test('when sorted on LastName descending and paged, then that page in that order is returned', async () => {
      const res = await call('GET', '/api/organizations/salesreps?sortOn=LastName&sortDirection=desc&pageSize=2&pageNumber=1', { token: listOrg.adminToken });
      expect(res.status).toBe(200);
      expect(res.body.map((r: any) => r.lastName)).toEqual(['Charlie', 'Bravo']);
      const page2 = await call('GET', '/api/organizations/salesreps?sortOn=LastName&sortDirection=desc&pageSize=2&pageNumber=2', { token: listOrg.adminToken });
      expect(page2.body.map((r: any) => r.lastName)).toEqual(['Alpha']);
    });

    test('when paging or sorting parameters are invalid, then 400 names each', async () => {
      const res = await call('GET', '/api/organizations/salesreps?sortOn=Nope&sortDirection=up&pageSize=501', { token: listOrg.adminToken });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['pageSize', 'sortDirection', 'sortOn']);
    });

    test('when another organization lists its reps, then this organization’s reps are not included', async () => {
      const res = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: other.adminToken });
      expect(res.status).toBe(200);
      expect(res.body.every((r: any) => r.organizationId === other.organizationId)).toBe(true);
      expect(res.body.some((r: any) => ['A-1', 'B-2', 'C-3'].includes(r.repNumber) && r.organizationId === listOrg.organizationId)).toBe(false);
    });

    test('when a customer token is used, then 403', async () => {
      expect((await call('GET', '/api/organizations/salesreps', { token: customerToken })).status).toBe(403);
    });
  });

  describe('PATCH /api/organizations/salesreps', () => {
    test('when the rep number changes, then the new number is returned with success and the rep logs in with it', async () => {
      const { input, res: createdRep } = await putRep(org);
      const id = createdRep.body.organizationSalesRepId;
      const newNumber = uniq('N');
      const res = await call('PATCH', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: id, repNumber: newNumber } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        organizationId: org.organizationId,
        organizationSalesRepId: id,
        salesRepId: createdRep.body.salesRepId,
        repNumber: newNumber,
        firstName: input.firstName,
        lastName: input.lastName,
        email: input.email,
        success: true,
      });
      await setPasswordFromWelcome(input.email);
      const tok = await login(input.email);
      expect(decodeToken(tok.body.AccessToken).RepNumber).toBe(newNumber);
    });

    test('when the new number belongs to another rep, then 409', async () => {
      const a = await putRep(org);
      const b = await putRep(org);
      const res = await call('PATCH', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: b.res.body.organizationSalesRepId, repNumber: a.input.repNumber } });
      expect(res.status).toBe(409);
    });

    test('when both fields are missing or malformed, then 400 names both', async () => {
      const res = await call('PATCH', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: 'nope' } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).sort()).toEqual(['organizationSalesRepId', 'repNumber']);
    });

    test('when the id belongs to another organization, then 404', async () => {
      const { res: otherRep } = await putRep(other);
      const res = await call('PATCH', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: otherRep.body.organizationSalesRepId, repNumber: uniq('N') } });
      expect(res.status).toBe(404);
    });

    test('when a customer token is used, then 403', async () => {
      const res = await call('PATCH', '/api/organizations/salesreps', { token: customerToken, body: { organizationSalesRepId: '00000000-0000-4000-8000-000000000000', repNumber: 'X' } });
      expect(res.status).toBe(403);
    });
  });

  describe('activate and deactivate', () => {
    test('when a rep is deactivated, then login gives 401; when activated again, then login works and a re-invitation arrives each time', async () => {
      const { input, res: createdRep } = await putRep(org);
      const id = createdRep.body.organizationSalesRepId;
      const email = input.email;
      await setPasswordFromWelcome(email);
      expect((await login(email)).status).toBe(200);

      const off = await call('POST', '/api/organizations/salesreps/deactivate', { token: org.adminToken, body: { organizationSalesRepId: id } });
      expect(off.status).toBe(200);
      expect(off.text).toBe('');
      expect((await login(email)).status).toBe(401);
      const list = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: org.adminToken });
      expect(list.body.find((r: any) => r.organizationSalesRepId === id).active).toBe(false);

      const on = await call('POST', '/api/organizations/salesreps/activate', { token: org.adminToken, body: { organizationSalesRepId: id } });
      expect(on.status).toBe(200);
      expect(on.text).toBe('');
      const tok = await login(email);
      expect(tok.status).toBe(200);
      expect(decodeToken(tok.body.AccessToken).role).toBe('SalesRep');
      const reinvite = await waitForMail(email, (m) => m.subject.includes('is restored'));
      expect(reinvite.text).toContain(org.name);

      await call('POST', '/api/organizations/salesreps/deactivate', { token: org.adminToken, body: { organizationSalesRepId: id } });
      await call('POST', '/api/organizations/salesreps/activate', { token: org.adminToken, body: { organizationSalesRepId: id } });
      const deadline = Date.now() + 30000;
      let count = 0;
      while (Date.now() < deadline && count < 2) {
        count = (await mailsFor(email)).filter((m) => m.subject.includes('is restored')).length;
        if (count < 2) await new Promise((r) => setTimeout(r, 300));
      }
      expect(count).toBe(2);
    });

    test('when an already active rep is activated, then 200 and no re-invitation is sent', async () => {
      const { input, res: createdRep } = await putRep(org);
      const res = await call('POST', '/api/organizations/salesreps/activate', { token: org.adminToken, body: { organizationSalesRepId: createdRep.body.organizationSalesRepId } });
      expect(res.status).toBe(200);
      await waitForMail(input.email, (m) => m.subject.startsWith('Welcome'));
      await new Promise((r) => setTimeout(r, 1500));
      expect((await mailsFor(input.email)).filter((m) => m.subject.includes('is restored'))).toHaveLength(0);
    });

    test('when another transaction holds the organization or the rep row, then activate, deactivate and delete wait for it instead of answering 404', async () => {
      // Any insert that references the organization takes FOR KEY SHARE on its row; a concurrent
      // change of the rep locks the assignment. Both used to make the locked read skip the row (404).
      const { res: createdRep } = await putRep(org);
      const id = createdRep.body.organizationSalesRepId as string;
      const { Client } = await import('pg');
      const holder = new Client({ connectionString: inspectorUrl() });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('select 1 from organization where id = $1 for key share', [org.organizationId]);
        await holder.query('select 1 from organization_sales_rep where id = $1 for update', [id]);
        const pending = call('POST', '/api/organizations/salesreps/deactivate', { token: org.adminToken, body: { organizationSalesRepId: id } });
        await new Promise((r) => setTimeout(r, 300));
        await holder.query('commit');
        expect((await pending).status).toBe(200);
        await holder.query('begin');
        await holder.query('select 1 from organization where id = $1 for key share', [org.organizationId]);
        const activated = await call('POST', '/api/organizations/salesreps/activate', { token: org.adminToken, body: { organizationSalesRepId: id } });
        expect(activated.status).toBe(200);
        const removed = await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: id } });
        expect(removed.status).toBe(200);
        await holder.query('commit');
      } finally {
        await holder.end();
      }
    });

    test('when the id belongs to another organization, then 404 for both', async () => {
      const { res: otherRep } = await putRep(other);
      for (const action of ['activate', 'deactivate']) {
        const res = await call('POST', `/api/organizations/salesreps/${action}`, { token: org.adminToken, body: { organizationSalesRepId: otherRep.body.organizationSalesRepId } });
        expect(res.status).toBe(404);
      }
    });

    test('when the id is missing or malformed, then 400', async () => {
      const a = await call('POST', '/api/organizations/salesreps/activate', { token: org.adminToken, body: {} });
      expect(a.status).toBe(400);
      expect(Object.keys(a.body.errors)).toEqual(['organizationSalesRepId']);
      const d = await call('POST', '/api/organizations/salesreps/deactivate', { token: org.adminToken, body: { organizationSalesRepId: 12 } });
      expect(d.status).toBe(400);
      expect(Object.keys(d.body.errors)).toEqual(['organizationSalesRepId']);
    });

    test('when a customer token is used, then 403', async () => {
      const res = await call('POST', '/api/organizations/salesreps/deactivate', { token: customerToken, body: { organizationSalesRepId: '00000000-0000-4000-8000-000000000000' } });
      expect(res.status).toBe(403);
    });
  });

  describe('a rep in two organizations', () => {
    let second: OrgFixture;
    let email: string;
    let first: any;
    let added: any;

    beforeAll(async () => {
      second = await createOrg();
      const r = await putRep(org);
      email = r.input.email;
      first = r.res.body;
      await setPasswordFromWelcome(email);
    });

    test('when an existing rep is added to a second organization, then the rep is reused and an invitation e-mail arrives', async () => {
      const res = await call('PUT', '/api/organizations/salesreps', { token: second.adminToken, body: newRep({ email, repNumber: 'SECOND-1', firstName: 'Ignored' }) });
      expect(res.status).toBe(201);
      added = res.body;
      expect(res.body.salesRepId).toBe(first.salesRepId);
      expect(res.body.identityProviderUserId).toBe(first.identityProviderUserId);
      expect(res.body.organizationId).toBe(second.organizationId);
      // The membership here is pending: the answer shows the rep as this organization entered it, not the account's profile.
      expect(res.body.firstName).toBe('Ignored');
      const invite = await waitForMail(email, (m) => m.subject === `Invitation to ${second.name}`);
      expect(invite.text).toContain('SECOND-1');
      // The rep's account existed: the second organization's membership waits for its owner to accept.
      expect((await login(email, second.code)).status).toBe(401);
      const accept = await waitForMail(email, (m) => m.subject === `Join ${second.name}?`);
      const acceptToken = /accept-membership\?token=([A-Za-z0-9_-]+)/.exec(accept.text)![1];
      expect((await call('POST', '/api/users/memberships/accept', { body: { Token: acceptToken, Password: PASSWORD } })).status).toBe(200);
      const tok = await login(email, second.code);
      expect(tok.status).toBe(200);
      expect(decodeToken(tok.body.AccessToken)).toMatchObject({ role: 'SalesRep', RepNumber: 'SECOND-1', OrganizationId: second.organizationId });
    });

    test('when the rep lists its organizations, then both assignments are returned with every field', async () => {
      const tok = (await login(email, org.code)).body.AccessToken;
      const res = await call('GET', '/api/salesreps/organizations', { token: tok });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['salesRepOrganizations']);
      const list = res.body.salesRepOrganizations;
      expect(list).toHaveLength(2);
      for (const a of list) expect(Object.keys(a).sort()).toEqual(ASSIGNMENT_KEYS);
      const mine = list.find((a: any) => a.organizationId === org.organizationId);
      expect(mine).toEqual({
        organizationId: org.organizationId,
        organizationName: org.name,
        identityOrganizationId: org.code,
        identityProviderUserId: first.identityProviderUserId,
        organizationSalesRepId: first.organizationSalesRepId,
        salesRepId: first.salesRepId,
        repNumber: first.repNumber,
        firstName: first.firstName,
        lastName: first.lastName,
        email,
        phoneNumber: first.phoneNumber,
        active: true,
        roles: ['SalesRep'],
      });
    });

    test('when an admin who is no rep asks for rep organizations, then the list is empty; a customer gets 403', async () => {
      const admin = await call('GET', '/api/salesreps/organizations', { token: org.adminToken });
      expect(admin.status).toBe(200);
      expect(admin.body).toEqual({ salesRepOrganizations: [] });
      expect((await call('GET', '/api/salesreps/organizations', { token: customerToken })).status).toBe(403);
    });

    test('when deactivated in one organization, then login to the other still works', async () => {
      await call('POST', '/api/organizations/salesreps/deactivate', { token: second.adminToken, body: { organizationSalesRepId: added.organizationSalesRepId } });
      expect((await login(email, second.code)).status).toBe(401);
      expect((await login(email, org.code)).status).toBe(200);
    });

    test('when removed from one organization, then only that access goes; when removed from the last, then the account is deleted', async () => {
      const del = await call('DELETE', '/api/organizations/salesreps', { token: second.adminToken, body: { organizationSalesRepId: added.organizationSalesRepId } });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ success: true });
      expect((await login(email, second.code)).status).toBe(401);
      const stillRep = await login(email);
      expect(stillRep.status).toBe(200);
      expect(decodeToken(stillRep.body.AccessToken)).toMatchObject({ role: 'SalesRep', OrganizationId: org.organizationId });
      const remaining = await call('GET', '/api/salesreps/organizations', { token: stillRep.body.AccessToken });
      expect(remaining.body.salesRepOrganizations.map((a: any) => a.organizationId)).toEqual([org.organizationId]);

      const last = await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: first.organizationSalesRepId } });
      expect(last.status).toBe(200);
      expect(last.body).toEqual({ success: true });
      expect((await login(email)).status).toBe(401);
      const exists = await call('GET', `/api/users/exists?Email=${encodeURIComponent(email)}`);
      expect(exists.body).toEqual({ UserExists: false });
      const list = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: org.adminToken });
      expect(list.body.some((r: any) => r.organizationSalesRepId === first.organizationSalesRepId)).toBe(false);
    });
  });

  describe('DELETE /api/organizations/salesreps', () => {
    test('when the removed rep’s user is an admin of another organization, then the rep goes but the user account stays', async () => {
      const admin2 = await createOrg();
      const { res } = await putRep(org, { email: admin2.adminEmail });
      const del = await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: res.body.organizationSalesRepId } });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ success: true });
      const exists = await call('GET', `/api/users/exists?Email=${encodeURIComponent(admin2.adminEmail)}`);
      expect(exists.body).toEqual({ UserExists: true });
      const adminLogin = await call('POST', '/api/auth/token', { body: { Email: admin2.adminEmail, Password: admin2.adminPassword } });
      expect(adminLogin.status).toBe(200);
      expect(decodeToken(adminLogin.body.AccessToken)).toMatchObject({ role: 'Admin', OrganizationId: admin2.organizationId });
      const again = await call('PUT', '/api/organizations/salesreps', { token: org.adminToken, body: newRep({ email: admin2.adminEmail }) });
      expect(again.status).toBe(201);
    });

    test('when a rep with one organization is removed, then its id answers 404 afterwards', async () => {
      const { res } = await putRep(org);
      const id = res.body.organizationSalesRepId;
      expect((await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: id } })).status).toBe(200);
      expect((await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: id } })).status).toBe(404);
      expect((await call('GET', `/api/users/exists?Email=${encodeURIComponent(res.body.email)}`)).body).toEqual({ UserExists: false });
    });

    test('when the id belongs to another organization, then 404 and the rep is kept', async () => {
      const { res: otherRep } = await putRep(other);
      const res = await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: otherRep.body.organizationSalesRepId } });
      expect(res.status).toBe(404);
      const list = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: other.adminToken });
      expect(list.body.some((r: any) => r.organizationSalesRepId === otherRep.body.organizationSalesRepId)).toBe(true);
    });

    test('when the id is missing or malformed, then 400; a customer token gets 403', async () => {
      const res = await call('DELETE', '/api/organizations/salesreps', { token: org.adminToken, body: { organizationSalesRepId: 'x' } });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['organizationSalesRepId']);
      const cust = await call('DELETE', '/api/organizations/salesreps', { token: customerToken, body: { organizationSalesRepId: '00000000-0000-4000-8000-000000000000' } });
      expect(cust.status).toBe(403);
    });
  });
});
