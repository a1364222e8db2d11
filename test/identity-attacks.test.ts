/**
 * Identity attacks of issue 16 (findings 1, 5 and 8), each named after the attack and run over
 * HTTP against the real stack: account pre-registration, profile leaks through pending
 * memberships, and a sales rep reading the commerce context of another rep's customer's users.
 */
import { call, createMemberUser, createOrg, decodeToken, expectProblem, mailsFor, randomIp, repToken, uniq, waitForMail, type OrgFixture } from './support/helpers';

const linkToken = (text: string, path: string) => {
  const m = new RegExp(`${path}\\?token=([A-Za-z0-9_-]+)`).exec(text);
  if (!m) throw new Error(`no ${path} link in: ${text.slice(0, 300)}`);
  return m[1];
};
const login = (Email: string, Password: string, OrgCode?: string) => call('POST', '/api/auth/token', { ip: randomIp(), body: { Email, Password, ...(OrgCode ? { OrgCode } : {}) } });
const profile = (token: string) => call('GET', '/api/users/profile', { token });

/** An attacker signs up an organization with the victim's e-mail and a password of their choosing, and keeps a session. */
async function preRegister(victimEmail: string, attackerPassword: string): Promise<{ token: string; organizationId: string }> {
  const signUp = await call('POST', '/api/organizations', {
    ip: randomIp(),
    body: { Organization: { Name: uniq('Squatter ') }, User: { FirstName: 'Mallory', LastName: 'Attacker', Email: victimEmail, Password: attackerPassword } },
  });
  expect(signUp.status).toBe(201);
  const session = await login(victimEmail, attackerPassword);
  expect(session.status).toBe(200);
  return { token: session.body.AccessToken, organizationId: signUp.body.OrganizationId };
}

async function resetLink(email: string): Promise<string> {
  const mail = await waitForMail(email, (m) => m.subject === 'Reset your password');
  return linkToken(mail.text, 'reset-password');
}

describe('account pre-registration (issue 16 finding 1)', () => {
  test('when an attacker pre-registers the victim e-mail with a password and the owner accepts the victim organization, then the attacker password and sessions never open the victim organization', async () => {
    const victimEmail = `${uniq('cfo')}@victim.example`;
    const attackerPassword = 'attacker password 1';
    const attacker = await preRegister(victimEmail, attackerPassword);
    const victim = await createOrg();
    expect((await call('POST', '/api/users', { token: victim.adminToken, body: { FirstName: 'Carol', LastName: 'Finance', Email: victimEmail } })).status).toBe(200);

    const mail = await waitForMail(victimEmail, (m) => m.subject === `Join ${victim.name}?`);
    const token = linkToken(mail.text, 'accept-membership');
    // The link alone does not accept: the owner must choose a new password in the same step.
    const withoutPassword = await call('POST', '/api/users/memberships/accept', { ip: randomIp(), body: { Token: token } });
    expectProblem(withoutPassword, 400);
    expect(Object.keys(withoutPassword.body.errors)).toEqual(['Password']);
    const accepted = await call('POST', '/api/users/memberships/accept', { ip: randomIp(), body: { Token: token, Password: 'owner password 1' } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ OrganizationId: victim.organizationId, Name: victim.name });

    expectProblem(await login(victimEmail, attackerPassword, victim.code), 401);
    expectProblem(await login(victimEmail, attackerPassword, attacker.organizationId), 401);
    expectProblem(await profile(attacker.token), 401);
    const owner = await login(victimEmail, 'owner password 1', victim.code);
    expect(owner.status).toBe(200);
    expect(decodeToken(owner.body.AccessToken)).toMatchObject({ OrganizationId: victim.organizationId });
  });

  test('when the owner of a pre-registered address asks for a password reset, then the e-mailed link takes the account back and ends the attacker session', async () => {
    const ownerEmail = `${uniq('owner')}@victim.example`;
    const attackerPassword = 'attacker password 2';
    const attacker = await preRegister(ownerEmail, attackerPassword);
    expect((await profile(attacker.token)).status).toBe(200);

    const request = await call('POST', '/api/auth/password-reset', { ip: randomIp(), body: { Email: ownerEmail.toUpperCase() } });
    expect(request.status).toBe(202);
    expect(request.body).toEqual({ Accepted: true });
    const token = await resetLink(ownerEmail);
    const confirm = await call('POST', '/api/auth/password-reset/confirm', { ip: randomIp(), body: { Token: token, Password: 'taken back 1' } });
    expect(confirm.status).toBe(204);

    expectProblem(await profile(attacker.token), 401);
    expectProblem(await login(ownerEmail, attackerPassword), 401);
    const owner = await login(ownerEmail, 'taken back 1');
    expect(owner.status).toBe(200);
    expect((await profile(owner.body.AccessToken)).body.Email).toBe(ownerEmail.toLowerCase());
  });

  test('when a used password-reset link is replayed, then 400 and the password stays the one set with it', async () => {
    const org = await createOrg();
    expect((await call('POST', '/api/auth/password-reset', { ip: randomIp(), body: { Email: org.adminEmail } })).status).toBe(202);
    const token = await resetLink(org.adminEmail);
    expect((await call('POST', '/api/auth/password-reset/confirm', { ip: randomIp(), body: { Token: token, Password: 'first reset 1' } })).status).toBe(204);
    const replay = await call('POST', '/api/auth/password-reset/confirm', { ip: randomIp(), body: { Token: token, Password: 'replayed reset 2' } });
    expectProblem(replay, 400);
    expect(Object.keys(replay.body.errors)).toEqual(['Token']);
    expectProblem(await login(org.adminEmail, 'replayed reset 2'), 401);
    expect((await login(org.adminEmail, 'first reset 1')).status).toBe(200);
    // A made-up token and a weak password are refused too, naming the field.
    expectProblem(await call('POST', '/api/auth/password-reset/confirm', { ip: randomIp(), body: { Token: 'not-a-token', Password: 'good password 3' } }), 400);
    const weak = await call('POST', '/api/auth/password-reset/confirm', { ip: randomIp(), body: { Token: token, Password: 'short' } });
    expectProblem(weak, 400);
    expect(Object.keys(weak.body.errors)).toEqual(['Password']);
  });

  test('when someone probes password reset with an unknown address, then the answer is the same 202 as for a known one and no e-mail is sent', async () => {
    const org = await createOrg();
    const nobody = `${uniq('nobody')}@example.com`;
    const unknown = await call('POST', '/api/auth/password-reset', { ip: randomIp(), body: { Email: nobody } });
    const known = await call('POST', '/api/auth/password-reset', { ip: randomIp(), body: { Email: org.adminEmail } });
    expect([unknown.status, unknown.text]).toEqual([known.status, known.text]);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual({ Accepted: true });
    // By the time the known address has its e-mail, the unknown one (asked first) has none.
    await resetLink(org.adminEmail);
    expect(await mailsFor(nobody)).toEqual([]);
    const bad = await call('POST', '/api/auth/password-reset', { ip: randomIp(), body: { Email: 'not-an-email' } });
    expectProblem(bad, 400);
    expect(Object.keys(bad.body.errors)).toEqual(['Email']);
  });

  test('when a password is changed or reset, then every token issued before is refused (401) and only the new password works', async () => {
    const org = await createOrg();
    const member = await createMemberUser(org);
    const other = await login(member.email, 'member password 1');
    expect(other.status).toBe(200);

    const wrong = await call('POST', '/api/auth/change-password', { token: member.token, body: { CurrentPassword: 'not my password', NewPassword: 'changed password 1' } });
    expectProblem(wrong, 400);
    expect(Object.keys(wrong.body.errors)).toEqual(['CurrentPassword']);
    expect((await profile(member.token)).status).toBe(200);

    const changed = await call('POST', '/api/auth/change-password', { token: member.token, body: { CurrentPassword: 'member password 1', NewPassword: 'changed password 1' } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('cache-control')).toBe('no-store');
    expect(decodeToken(changed.body.AccessToken)).toMatchObject({ OrganizationId: org.organizationId, UserId: member.userId, role: 'Customer' });
    expectProblem(await profile(member.token), 401);
    expectProblem(await profile(other.body.AccessToken), 401);
    expect((await profile(changed.body.AccessToken)).status).toBe(200);
    expectProblem(await login(member.email, 'member password 1'), 401);
    expect((await login(member.email, 'changed password 1')).status).toBe(200);

    // A reset ends the sessions of the changed password too, the fresh token included.
    expect((await call('POST', '/api/auth/password-reset', { ip: randomIp(), body: { Email: member.email } })).status).toBe(202);
    const token = await resetLink(member.email);
    expect((await call('POST', '/api/auth/password-reset/confirm', { ip: randomIp(), body: { Token: token, Password: 'reset password 1' } })).status).toBe(204);
    expectProblem(await profile(changed.body.AccessToken), 401);
    expect((await login(member.email, 'reset password 1')).status).toBe(200);
  });

  test('when a client token or API key tries to change a password, then 404 (no user record); without a token, 401', async () => {
    const org = await createOrg();
    const creds = await call('POST', '/api/organizations/api-access', { token: org.adminToken });
    const body = { CurrentPassword: 'x', NewPassword: 'long enough 1' };
    expectProblem(await call('POST', '/api/auth/change-password', { apiKey: creds.body.ApiKey, body }), 404);
    expectProblem(await call('POST', '/api/auth/change-password', { body }), 401);
  });
});

describe('pending memberships leak other organizations (issue 16 finding 5)', () => {
  const real = { firstName: 'Realname', lastName: 'Secretperson', phoneNumber: '+1 555 0100' };
  let home: OrgFixture;
  let email: string;
  let userId: string;
  let homeCustomer: string;

  beforeAll(async () => {
    home = await createOrg();
    email = `${uniq('rep')}@example.com`;
    const rep = await call('PUT', '/api/organizations/salesreps', { token: home.adminToken, body: { ...real, email, repNumber: uniq('H') } });
    expect(rep.status).toBe(201);
    userId = rep.body.identityProviderUserId;
    homeCustomer = uniq('HOME-');
    const tier = await call('POST', '/api/organizations/price-tiers', { token: home.adminToken, body: { Name: 'Retail', CurrencyCode: 'USD' } });
    expect(tier.status).toBe(200);
    expect((await call('PUT', '/api/customers', { token: home.adminToken, body: { customerNumber: homeCustomer, companyName: 'Home Co', companyEmail: 'home@example.com', pricing: 'Retail' } })).status).toBe(201);
    expect((await call('POST', '/api/organizations/users/associate-customer', { token: home.adminToken, body: { UserId: userId, CustomerNumber: homeCustomer } })).status).toBe(200);
  });

  /** No answer a snooping organization gets may carry the person's real profile or the home organization's data. */
  const expectNoLeak = (res: { text: string }) => {
    for (const secret of [real.firstName, real.lastName, real.phoneNumber, homeCustomer, home.organizationId]) expect(res.text).not.toContain(secret);
  };

  test('when another organization adds the person as a user and reads their associations, then it sees only what it submitted and none of the home organization', async () => {
    const snoop = await createOrg();
    const added = await call('POST', '/api/users', { token: snoop.adminToken, body: { FirstName: 'Guess', LastName: 'Who', Email: email } });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ UserId: userId, FirstName: 'Guess', LastName: 'Who', Email: email, PhoneNumber: null });
    const links = await call('GET', `/api/users/customer-associations?UserId=${userId}`, { token: snoop.adminToken });
    expect(links.status).toBe(200);
    expect(links.body).toEqual([]);
    expectNoLeak(links);
    const one = await call('GET', `/api/users/customer-association?UserId=${userId}`, { token: snoop.adminToken });
    expectProblem(one, 404);
    const access = await call('POST', '/api/auth/access', { token: snoop.adminToken, body: { OrganizationId: snoop.organizationId, UserId: userId } });
    expect(access.body).toEqual({ CustomerNumber: null, PriceTier: null, CurrencyCode: null });
  });

  test('when another organization makes the person an admin, then the admin list shows no names until they accept', async () => {
    const snoop = await createOrg();
    expect((await call('POST', '/api/organizations/users/admins', { token: snoop.adminToken, body: { Email: email } })).status).toBe(200);
    const admins = await call('GET', '/api/organizations/users/admins', { token: snoop.adminToken });
    expect(admins.status).toBe(200);
    expect(admins.body.find((a: { Id: string }) => a.Id === userId)).toEqual({ Id: userId, Email: email, FirstName: null, LastName: null, Roles: ['admin'] });
    expectNoLeak(admins);
  });

  test('when another organization adds the existing rep as its sales rep, then create, list and update show the names it entered, and the real ones only after acceptance', async () => {
    const snoop = await createOrg();
    const entered = { firstName: 'Sam', lastName: 'Sample', phoneNumber: '+1 555 0999' };
    const created = await call('PUT', '/api/organizations/salesreps', { token: snoop.adminToken, body: { ...entered, email, repNumber: uniq('S') } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...entered, email, organizationId: snoop.organizationId });
    expectNoLeak(created);
    const list = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: snoop.adminToken });
    expect(list.body.find((r: { salesRepId: string }) => r.salesRepId === created.body.salesRepId)).toMatchObject({ ...entered, email });
    expectNoLeak(list);
    const patched = await call('PATCH', '/api/organizations/salesreps', { token: snoop.adminToken, body: { organizationSalesRepId: created.body.organizationSalesRepId, repNumber: uniq('S') } });
    expect(patched.body).toMatchObject({ firstName: entered.firstName, lastName: entered.lastName, email });
    expectNoLeak(patched);

    const mail = await waitForMail(email, (m) => m.subject === `Join ${snoop.name}?`);
    expect((await call('POST', '/api/users/memberships/accept', { ip: randomIp(), body: { Token: linkToken(mail.text, 'accept-membership'), Password: 'rep password 1' } })).status).toBe(200);
    const after = await call('GET', '/api/organizations/salesreps?pageSize=500', { token: snoop.adminToken });
    expect(after.body.find((r: { salesRepId: string }) => r.salesRepId === created.body.salesRepId)).toMatchObject({ ...real, email });
  });
});

describe('sales rep token enrichment (issue 16 finding 8)', () => {
  let org: OrgFixture;
  let rep: string;
  const mine = uniq('MINE-');
  const theirs = uniq('THEIRS-');
  beforeAll(async () => {
    org = await createOrg();
    const repNumber = uniq('R');
    rep = await repToken(org, repNumber);
    await repToken(org, `${repNumber}-other`);
    expect((await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Retail', CurrencyCode: 'USD' } })).status).toBe(200);
    for (const [customerNumber, r] of [
      [mine, repNumber],
      [theirs, `${repNumber}-other`],
    ]) {
      const body = { customerNumber, companyName: `Co ${customerNumber}`, companyEmail: 'co@example.com', pricing: 'Retail', repNumber: r };
      expect((await call('PUT', '/api/customers', { token: org.adminToken, body })).status).toBe(201);
    }
  });

  async function userOf(customerNumber: string | null): Promise<string> {
    const user = await createMemberUser(org);
    if (customerNumber) {
      const a = await call('POST', '/api/organizations/users/associate-customer', { token: org.adminToken, body: { UserId: user.userId, CustomerNumber: customerNumber } });
      expect(a.status).toBe(200);
    }
    return user.userId;
  }
  const access = (token: string, UserId: string) => call('POST', '/api/auth/access', { token, body: { OrganizationId: org.organizationId, UserId } });

  test("when a sales rep asks POST /api/auth/access about a user of another rep's customer, then 404 and nothing of that customer", async () => {
    const victim = await userOf(theirs);
    const res = await access(rep, victim);
    expectProblem(res, 404);
    expect(res.text).not.toContain(theirs);
    // The admin still sees it; the rep sees its own customer's users.
    expect((await access(org.adminToken, victim)).body).toEqual({ CustomerNumber: theirs, PriceTier: 'Retail', CurrencyCode: 'USD' });
    const own = await access(rep, await userOf(mine));
    expect(own.status).toBe(200);
    expect(own.body).toEqual({ CustomerNumber: mine, PriceTier: 'Retail', CurrencyCode: 'USD' });
  });

  test('when a sales rep asks about a member with no customer (an admin, another rep), then 404', async () => {
    expectProblem(await access(rep, await userOf(null)), 404);
    expectProblem(await access(rep, org.adminUserId), 404);
  });
});
