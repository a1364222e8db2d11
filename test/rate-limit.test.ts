import { createHash } from 'node:crypto';
import { call, createOrg, dbQuery, expectProblem, issueApiAccess, randomIp, uniq, type Res } from './support/helpers';

function expectRateLimited(res: Res): void {
  expectProblem(res, 429);
  const retryAfter = res.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

describe('login rate limits', () => {
  test('when a ClientId makes an 11th login within a minute, then 429 with Retry-After, even with the right secret', async () => {
    const org = await createOrg();
    const creds = await issueApiAccess(org);
    const body = (secret: string) => ({ OrgCode: org.code, ClientId: creds.ClientId, ClientSecret: secret });
    // Each attempt from another IP: the limit is per ClientId, not per address.
    expect((await call('POST', '/api/auth/login', { body: body(creds.ClientSecret) })).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await call('POST', '/api/auth/login', { body: body('wrong secret') })).status).toBe(401);
    expectRateLimited(await call('POST', '/api/auth/login', { body: body(creds.ClientSecret) }));
    // Another ClientId is not affected.
    expect((await call('POST', '/api/auth/login', { body: { ...body('x'), ClientId: uniq('cli_other') } })).status).toBe(401);
  });

  test('when an Email makes an 11th user login within a minute, then 429 with Retry-After', async () => {
    const org = await createOrg();
    const email = `${uniq('limited')}@example.com`;
    const created = await call('POST', '/api/users', { token: org.adminToken, body: { FirstName: 'Lim', LastName: 'Ited', Email: email, Password: 'limited password' } });
    expect(created.status).toBe(201);
    expect((await call('POST', '/api/auth/token', { body: { Email: email, Password: 'limited password' } })).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await call('POST', '/api/auth/token', { body: { Email: email, Password: 'wrong password' } })).status).toBe(401);
    expectRateLimited(await call('POST', '/api/auth/token', { body: { Email: email.toUpperCase(), Password: 'limited password' } }));
    // The organization admin (another e-mail) still logs in.
    expect((await call('POST', '/api/auth/token', { body: { Email: org.adminEmail, Password: org.adminPassword } })).status).toBe(200);
  });
});

describe('public endpoint rate limit', () => {
  test('when one IP calls GET /api/users/exists an 11th time within a minute, then 429, another IP still gets 200, and the counter is in PostgreSQL', async () => {
    const ip = randomIp();
    const path = `/api/users/exists?Email=${encodeURIComponent(`${uniq('who')}@example.com`)}`;
    for (let i = 0; i < 10; i++) {
      const res = await call('GET', path, { ip });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ UserExists: false });
    }
    expectRateLimited(await call('GET', path, { ip }));
    const other = await call('GET', path, { ip: randomIp() });
    expect(other.status).toBe(200);

    // Keys are hashed: the stored key holds the SHA-256 of the IP, never the raw input.
    const rows = await dbQuery<{ key: string; count: number }>('select key, count from rate_limit_bucket where key like $1', [`%/api/users/exists:${createHash('sha256').update(ip).digest('hex')}`]);
    expect(rows).toHaveLength(1);
    expect(rows[0].count).toBeGreaterThanOrEqual(11);
  });
});
