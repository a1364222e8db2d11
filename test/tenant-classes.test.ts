/**
 * Issue 38 finding 11: one organization's buyers could use up the whole organization budget and get
 * its admins and its ERP refused. The budget is split by class of caller (buyers, staff, API
 * credentials), and one user or credential never uses more than a fifth of the organization's limit.
 * Runs an API of its own with the deployment defaults for shares (the test stack relaxes the
 * per-credential share).
 */
import { createHash } from 'node:crypto';
import { associateCustomer, call, createMemberUser, createOrg, dbQuery, expectProblem, issueApiAccess, signTestToken, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { startOwnApi, type OwnApi } from './support/own-api';

jest.setTimeout(120_000);
let api: OwnApi;
let org: OrgFixture;
afterAll(async () => {
  await api?.stop();
});

beforeAll(async () => {
  api = await startOwnApi({ RATE_LIMIT_CREDENTIAL_SHARE: '20', RATE_LIMIT_CREDENTIAL_PER_MINUTE: '6000' });
  org = await createOrg();
});

it('a buyer exhausting the buyers class does not get the admin or the API key refused', async () => {
  const { customerNumber } = await customerWithProduct(org);
  const users = [await createMemberUser(org), await createMemberUser(org)];
  for (const u of users) await associateCustomer(org, u.userId, customerNumber);
  // Issuing API access rotates the organization's credentials (version 2): the tokens are taken after it.
  const keys = await issueApiAccess(org);
  const buyers = users.map((u) =>
    signTestToken({ OrganizationId: org.organizationId, role: 'Customer', roles: ['Customer'], kind: 'user', cv: 2, UserId: u.userId, CustomerNumber: customerNumber, PriceTier: 'Retail', CurrencyCode: 'USD' }),
  );
  const login = await call('POST', '/api/auth/token', { body: { Email: org.adminEmail, Password: org.adminPassword } });
  expect(login.status).toBe(200);
  const adminToken = login.body.AccessToken as string;
  // The setup above was the admin's (staff) and ran through the stack's API: its counts start afresh.
  const adminCredential = `cred:${createHash('sha256').update(`user:${org.adminUserId}`).digest('hex')}`;
  await dbQuery('delete from rate_limit_bucket where key like $1 or key = $2', [`org:${org.organizationId}:%`, adminCredential]);
  // The operator's setting: 20 a minute: buyers 30% (6), staff 20% (4), API 50% (10); a fifth (4) per user or credential.
  await dbQuery('update organization set rate_limit_per_minute = 20 where id = $1', [org.organizationId]);
  const limits = await call('GET', '/api/organizations/rate-limits', { base: api.base, apiKey: keys.ApiKey });
  expect(limits.body).toMatchObject({
    RequestsPerMinute: 20,
    RequestsPerMinutePerCredential: 4,
    Classes: { Buyers: { Share: 30, RequestsPerMinute: 6 }, Staff: { Share: 20, RequestsPerMinute: 4 }, Api: { Share: 50, RequestsPerMinute: 10 } },
  });
  const asBuyer = (i: number) => call('GET', '/api/products', { base: api.base, token: buyers[i] });
  // One buyer reaches a fifth of the organization (4) and is refused alone.
  for (let i = 0; i < 4; i++) expect((await asBuyer(0)).status).toBe(200);
  const alone = await asBuyer(0);
  expectProblem(alone, 429);
  expect(alone.headers.get('ratelimit-policy')).toMatch(/"credential";q=4;w=60/);
  // A second buyer uses the rest of the buyers' share (6; the first buyer's refused request counted too): every buyer is refused now.
  expect((await asBuyer(1)).status).toBe(200);
  const classFull = await asBuyer(1);
  expectProblem(classFull, 429);
  expect(classFull.headers.get('ratelimit-policy')).toMatch(/"organization-buyers";q=6;w=60/);
  expect(Number(classFull.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // The admin and the ERP's key are served from their own shares.
  const admin = await call('GET', '/api/products', { base: api.base, token: adminToken });
  expect(admin.status).toBe(200);
  expect(admin.headers.get('ratelimit-policy')).toMatch(/^"organization-staff";q=4;w=60, "credential";q=4;w=60$/);
  const erp = await call('GET', '/api/products', { base: api.base, apiKey: keys.ApiKey });
  expect(erp.status).toBe(200);
  expect(erp.headers.get('ratelimit-policy')).toMatch(/^"organization-api";q=10;w=60, "credential";q=4;w=60$/);
});
