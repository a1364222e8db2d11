/**
 * Tenant fairness (issue 21): authenticated requests are limited per organization (its own limit,
 * set by the platform operator, else the deployment default), split between classes of caller
 * (buyers, staff, API credentials: issue 38), and per credential, counted in PostgreSQL so every API
 * instance shares the count. Past a limit: 429 problem+json with Retry-After and RateLimit headers,
 * while another tenant (and another class of the same tenant) is served. The test stack lets one
 * credential use its whole class (RATE_LIMIT_CREDENTIAL_SHARE=100); test/tenant-classes.test.ts runs the defaults.
 */
import { call, createOrg, dbQuery, expectProblem, issueApiAccess, uniq, type Res } from './support/helpers';
import { freePort } from '../scripts/lib/procs';
import { startOwnApi, type OwnApi } from './support/own-api';

jest.setTimeout(120_000);

function expectLimited(res: Res, limit: number): void {
  expectProblem(res, 429);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-policy')).toMatch(new RegExp(`"organization-\\w+";q=${limit};w=60|"credential";q=${limit};w=60`));
  expect(res.headers.get('ratelimit')).toMatch(/;r=0;t=\d+/);
}

let second: OwnApi;
afterAll(async () => {
  await second?.stop();
});

test("when an organization's API class exceeds its share of the organization's own per-minute limit, then every API credential gets 429 with Retry-After and RateLimit headers on every API instance, while its staff and another organization are served", async () => {
  const busy = await createOrg();
  const calm = await createOrg();
  const keys = await issueApiAccess(busy); // staff requests (the admin's token): the API class has used nothing yet
  // The platform operator's setting (npm run rate-limit writes this column): 20 a minute, 50% of it (10) for API credentials.
  await dbQuery('update organization set rate_limit_per_minute = 20 where id = $1', [busy.organizationId]);
  const limits = await call('GET', '/api/organizations/rate-limits', { apiKey: keys.ApiKey });
  expect(limits.status).toBe(200);
  expect(limits.body).toMatchObject({ RequestsPerMinute: 20, IsOrganizationSpecific: true, WindowSeconds: 60, Classes: { Api: { Share: 50, RequestsPerMinute: 10 }, Staff: { Share: 20, RequestsPerMinute: 4 } } });
  // Reading the limits is not counted against them (and never refused by them: below).
  expect(limits.headers.get('ratelimit')).toBeNull();
  // Requests 1..10 pass and say how many remain; a second API instance counts with the first.
  second = await startOwnApi();
  const seen: number[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await call('GET', '/api/products', { apiKey: keys.ApiKey, base: i % 2 ? second.base : undefined });
    expect(r.status).toBe(200);
    seen.push(Number(/"organization-api";r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]));
  }
  expect(seen).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  expectLimited(await call('GET', '/api/products', { apiKey: keys.ApiKey }), 10);
  expectLimited(await call('GET', '/api/products', { apiKey: keys.ApiKey, base: second.base }), 10);
  // Over the limit, the credential can still read the limits that refuse it, on either instance.
  for (const base of [undefined, second.base]) {
    const own = await call('GET', '/api/organizations/rate-limits', { apiKey: keys.ApiKey, base });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ RequestsPerMinute: 20, Classes: { Api: { RequestsPerMinute: 10 } } });
  }
  // Past the limit the refusal is the answer whatever the request would have been (a read runs beside
  // its count: a missing product is still 429, not 404), and a write stores nothing.
  expectLimited(await call('GET', '/api/products/NO-SUCH-SKU', { apiKey: keys.ApiKey, base: second.base }), 10);
  const sku = uniq('SKU-');
  expectLimited(
    await call('PUT', '/api/products', { apiKey: keys.ApiKey, body: { sku, name: 'Refused', prices: [{ tier: 'Retail', price: 1, atQuantity: 1 }] } }),
    10,
  );
  expect(await dbQuery('select 1 from product where organization_id = $1 and sku = $2', [busy.organizationId, sku])).toEqual([]);
  // Another API credential of the same organization (a client-credential token) shares the API class's budget.
  const login = await call('POST', '/api/auth/login', { body: { OrgCode: busy.code, ClientId: keys.ClientId, ClientSecret: keys.ClientSecret } });
  expect(login.status).toBe(200);
  // This instance already refused the class this window: it refuses from memory, without counting in the shared table.
  const counted = async () => Number((await dbQuery('select count from rate_limit_bucket where key = $1', [`org:${busy.organizationId}:api`]))[0].count);
  const before = await counted();
  // It holds that refusal about RATE_LIMIT_MAX_WAIT_MS (1 s) before answering: a client retrying at
  // once without reading Retry-After cannot make the API answer thousands of refusals a second.
  const t0 = Date.now();
  expectLimited(await call('GET', '/api/products', { token: login.body.AccessToken }), 10);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  expect(await counted()).toBe(before);
  // The organization's staff have their own share (4 of 20): the admin (signed in again after the rotation) is served.
  const admin = await call('POST', '/api/auth/token', { body: { Email: busy.adminEmail, Password: busy.adminPassword } });
  expect(admin.status).toBe(200);
  const staff = await call('GET', '/api/products', { token: admin.body.AccessToken, base: second.base });
  expect(staff.status).toBe(200);
  expect(staff.headers.get('ratelimit-policy')).toMatch(/^"organization-staff";q=4;w=60, "credential";q=\d+;w=60$/);
  // The other organization is served, with the deployment's default limit in its headers.
  const other = await call('GET', '/api/products', { token: calm.adminToken, base: second.base });
  expect(other.status).toBe(200);
  expect(other.headers.get('ratelimit-policy')).toMatch(/^"organization-staff";q=\d+;w=60, "credential";q=\d+;w=60$/);
});

test('when one credential exceeds the per-credential limit, then that credential gets 429 while another credential of the same organization is served', async () => {
  const org = await createOrg();
  const api = await startOwnApi({ RATE_LIMIT_CREDENTIAL_PER_MINUTE: '5' });
  try {
    const keys = await issueApiAccess(org);
    const login = await call('POST', '/api/auth/token', { body: { Email: org.adminEmail, Password: org.adminPassword } });
    for (let i = 0; i < 5; i++) expect((await call('GET', '/api/products', { apiKey: keys.ApiKey, base: api.base })).status).toBe(200);
    expectLimited(await call('GET', '/api/products', { apiKey: keys.ApiKey, base: api.base }), 5);
    expect((await call('GET', '/api/products', { token: login.body.AccessToken, base: api.base })).status).toBe(200);
  } finally {
    await api.stop();
  }
});

test('when a tenant sends many reads at once, then they are counted in leased blocks (fewer statements than requests) and exactly its limit is served across two API instances, each slot once', async () => {
  const org = await createOrg();
  const keys = await issueApiAccess(org);
  const limit = 240;
  const ops = [await freePort(), await freePort()];
  const apis = await Promise.all(ops.map((p) => startOwnApi({ RATE_LIMIT_CREDENTIAL_PER_MINUTE: String(limit), OPS_PORT: String(p) })));
  try {
    const total = 400;
    const answers: Res[] = [];
    let next = 0;
    const client = async () => {
      for (let i = next++; i < total; i = next++) answers.push(await call('GET', '/api/products?pageSize=1', { apiKey: keys.ApiKey, base: apis[i % 2].base }));
    };
    await Promise.all(Array.from({ length: 8 }, client));
    const served = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    // Never more than the limit across both instances, and no slot lost to a block one instance left unused.
    expect(served).toHaveLength(limit);
    for (const r of refused) expectLimited(r, limit);
    // Each served request names the slot it was counted in: every one of 0..limit-1 remaining, once.
    const remaining = served.map((r) => Number(/"credential";r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1])).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: limit }, (_, i) => i));
    const counts = async (how: string) => {
      let sum = 0;
      for (const p of ops) {
        const text = await (await fetch(`http://127.0.0.1:${p}/metrics`)).text();
        sum += Number(new RegExp(`tenant_limit_counts_total\\{[^}]*how="${how}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0);
      }
      return sum;
    };
    const [statements, leased] = [await counts('statement'), await counts('lease')];
    expect(statements + leased).toBeGreaterThanOrEqual(limit);
    expect(leased).toBeGreaterThan(0);
    expect(statements).toBeLessThan(limit);
  } finally {
    await Promise.all(apis.map((a) => a.stop()));
  }
});
