/**
 * HTTP conventions integrators expect (issue 19 item 4): Location on 201, compression, ETag/304,
 * RFC 8288 Link headers on paged lists, RateLimit headers, CORS for configured origins, security
 * headers, and error `type` URIs pointing at the API's own error reference.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { API, call, createOrg, ensureCustomer, expectProblem, randomIp, uniq, type OrgFixture } from './support/helpers';

const A = (o: OrgFixture) => ({ base: o.base, token: o.adminToken });

/** A raw GET (no automatic decompression), so the bytes on the wire can be measured. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${API}${path}`, { method: 'GET', headers: { 'x-forwarded-for': randomIp(), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Parses an RFC 8288 Link header into rel -> target. */
function links(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(/,\s*(?=<)/)) {
    const m = /^<([^>]*)>\s*;\s*rel="([^"]+)"/.exec(part.trim());
    if (m) out[m[2]] = m[1];
  }
  return out;
}

describe('Location on 201', () => {
  test('when resources are created through several endpoints, then every 201 names a Location that reads the created resource', async () => {
    const org = await createOrg();
    const opts = A(org);
    const customerNumber = uniq('C');
    await ensureCustomer(org, uniq('C0')); // price tier Retail exists
    const sku = uniq('SKU');
    const repNumber = uniq('R');
    const creates: [string, string, unknown][] = [
      ['PUT', '/api/customers', { customerNumber, companyName: 'Loc Co', companyEmail: `${uniq('c')}@example.com`, pricing: 'Retail' }],
      ['PUT', '/api/products', { sku, name: 'Located', prices: [{ tier: 'Retail', price: 10, atQuantity: 1 }] }],
      ['POST', `/api/carts/${customerNumber}`, { customerNumber, sku, quantity: 1, orderType: 'Standard' }],
      ['POST', '/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['order.created'] }],
      ['POST', '/api/companydocs/folders', { name: uniq('folder'), parentId: null }],
      ['PUT', '/api/organizations/salesreps', { firstName: 'Lo', lastName: 'Cation', email: `${uniq('rep')}@example.com`, repNumber }],
      ['POST', '/api/organizations/api-access', undefined],
    ];
    for (const [method, path, body] of creates) {
      const res = await call(method, path, { ...opts, body });
      expect({ path, status: res.status }).toEqual({ path, status: 201 });
      const location = res.headers.get('location');
      expect({ path, location: typeof location }).toEqual({ path, location: 'string' });
      // api-access ends every earlier token: the new API key reads its Location.
      const read = await call('GET', location!, path.endsWith('api-access') ? { apiKey: res.body.ApiKey } : opts);
      expect({ path, location, status: read.status }).toEqual({ path, location, status: 200 });
      if (path === '/api/customers') expect(read.body.customerNumber).toBe(customerNumber);
      if (path === '/api/products') expect(read.body.sku).toBe(sku);
      if (path === '/api/webhooks') expect(read.body.webhookId).toBe(res.body.webhookId);
      if (path === '/api/organizations/salesreps') expect(read.body.map((r: { repNumber: string }) => r.repNumber)).toEqual([repNumber]);
    }
    // The organization sign-up itself.
    const signUp = await call('POST', '/api/organizations', {
      body: { Organization: { Name: uniq('Org '), BillingCountry: 'US' }, User: { FirstName: 'A', LastName: 'B', Email: `${uniq('a')}@example.com`, Password: 'correct horse battery' } },
    });
    expect(signUp.status).toBe(201);
    expect(signUp.headers.get('location')).toBe('/api/organization');
  });
});

describe('compression', () => {
  test('when a page of 60 products is read with Accept-Encoding gzip or br, then it arrives compressed to a fraction of its size', async () => {
    const org = await createOrg();
    await ensureCustomer(org, uniq('C'));
    for (let i = 0; i < 60; i++) {
      const res = await call('PUT', '/api/products', { ...A(org), body: { sku: `GZ-${i}-${uniq('s')}`, name: `Compressible product ${i}`, description: 'A product description that repeats. '.repeat(5), prices: [{ tier: 'Retail', price: 10 + i, atQuantity: 1 }] } });
      expect(res.status).toBe(201);
    }
    const path = '/api/products?pageSize=100';
    const plain = await rawGet(path, { authorization: `Bearer ${org.adminToken}`, 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    const plainJson = JSON.parse(plain.body.toString('utf8'));
    expect(plainJson.data).toHaveLength(60);

    const gz = await rawGet(path, { authorization: `Bearer ${org.adminToken}`, 'accept-encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(gunzipSync(gz.body).toString('utf8'))).toEqual(plainJson);
    expect(gz.body.length).toBeLessThan(plain.body.length / 4);

    const br = await rawGet(path, { authorization: `Bearer ${org.adminToken}`, 'accept-encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(plainJson);

    // A small answer is not worth compressing.
    const small = await rawGet('/health', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});

describe('ETag and 304', () => {
  test('when a read is repeated with If-None-Match, then 304 without a body, and 200 with a new ETag once the resource changed', async () => {
    const org = await createOrg();
    const customerNumber = uniq('C');
    await ensureCustomer(org, customerNumber);
    const path = `/api/customers/${customerNumber}`;
    const first = await call('GET', path, A(org));
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^(W\/)?"[^"]+"$/);
    const again = await call('GET', path, { ...A(org), headers: { 'if-none-match': tag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await call('PUT', path, { ...A(org), body: { companyName: 'Renamed Co' } })).status).toBe(200);
    const changed = await call('GET', path, { ...A(org), headers: { 'if-none-match': tag! } });
    expect(changed.status).toBe(200);
    expect(changed.body.companyName).toBe('Renamed Co');
    expect(changed.headers.get('etag')).not.toBe(tag);
  });

  test('when /openapi.json is fetched, then it is publicly cacheable and revalidates with 304', async () => {
    const first = await call('GET', '/openapi.json');
    expect(first.headers.get('cache-control')).toMatch(/public/);
    const tag = first.headers.get('etag');
    expect(tag).toBeTruthy();
    expect((await call('GET', '/openapi.json', { headers: { 'if-none-match': tag! } })).status).toBe(304);
  });
});

describe('one ETag per representation (issue 43, item 8)', () => {
  test('when /openapi.json is read gzip-compressed and uncompressed, then the ETags differ by a -gzip suffix, and If-None-Match with either answers 304 naming the tag sent', async () => {
    const plain = await rawGet('/openapi.json', { 'accept-encoding': 'identity' });
    const gz = await rawGet('/openapi.json', { 'accept-encoding': 'gzip' });
    const br = await rawGet('/openapi.json', { 'accept-encoding': 'br' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gz.headers['content-encoding']).toBe('gzip');
    const identityTag = String(plain.headers.etag);
    expect(identityTag).toMatch(/^(W\/)?"[^"]+"$/);
    expect(gz.headers.etag).toBe(identityTag.replace(/"$/, '-gzip"'));
    expect(br.headers.etag).toBe(identityTag.replace(/"$/, '-br"'));
    // Either tag names the current version: 304, carrying the tag the client holds.
    const again = await rawGet('/openapi.json', { 'accept-encoding': 'gzip', 'if-none-match': String(gz.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(gz.headers.etag);
    const plainAgain = await rawGet('/openapi.json', { 'accept-encoding': 'identity', 'if-none-match': identityTag });
    expect(plainAgain.status).toBe(304);
    expect(plainAgain.headers.etag).toBe(identityTag);
    // A tag of another version is still a 200.
    expect((await rawGet('/openapi.json', { 'accept-encoding': 'gzip', 'if-none-match': '"v-other-gzip"' })).status).toBe(200);
  });

  test('when a compressed read of a resource is written back with its -gzip ETag as If-Match, then the write runs', async () => {
    const org = await createOrg();
    const customerNumber = uniq('C');
    await ensureCustomer(org, customerNumber);
    const path = `/api/customers/${customerNumber}`;
    // Large enough to be compressed.
    expect((await call('PUT', path, { ...A(org), body: { customerAttributes: { note: 'n'.repeat(1500) } } })).status).toBe(200);
    const gz = await rawGet(path, { authorization: `Bearer ${org.adminToken}`, 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(String(gz.headers.etag)).toMatch(/-gzip"$/);
    expect((await call('PUT', path, { ...A(org), body: { companyName: 'Gz Co' }, headers: { 'If-Match': String(gz.headers.etag) } })).status).toBe(200);
  });
});

describe('Link headers on paged lists', () => {
  test('when a middle page of customers is read, then Link names first, prev, next and last pages beside the envelope, and next reads the next page', async () => {
    const org = await createOrg();
    for (let i = 0; i < 3; i++) await ensureCustomer(org, `L${i}-${uniq('c')}`);
    const res = await call('GET', '/api/customers?pageSize=1&pageNumber=2&sortOn=CustomerNumber', A(org));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ totalRecords: 3, currentPage: 2, totalPages: 3 }));
    const l = links(res.headers.get('link'));
    expect(Object.keys(l).sort()).toEqual(['first', 'last', 'next', 'prev']);
    expect(l.first).toMatch(/pageNumber=1(&|$)/);
    expect(l.prev).toMatch(/pageNumber=1(&|$)/);
    expect(l.next).toMatch(/pageNumber=3(&|$)/);
    expect(l.last).toMatch(/pageNumber=3(&|$)/);
    expect(l.next).toContain('sortOn=CustomerNumber');
    const next = await call('GET', l.next, A(org));
    expect(next.body.currentPage).toBe(3);
    expect(links(next.headers.get('link')).next).toBeUndefined();

    // Invoices page with `page` (SPEC's name for that list).
    const inv = await call('GET', '/api/invoices?page=1&pageSize=5', A(org));
    expect(inv.status).toBe(200);
    expect(links(inv.headers.get('link')).first).toMatch(/[?&]page=1(&|$)/);
  });
});

describe('RateLimit headers', () => {
  test('when a rate-limited public endpoint is called, then RateLimit-Policy and RateLimit count down to the 429, which also carries them', async () => {
    const ip = randomIp();
    const path = `/api/users/exists?Email=${encodeURIComponent(`${uniq('rl')}@example.com`)}`;
    const first = await call('GET', path, { ip });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"public";q=10;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"public";r=9;t=\d+$/);
    for (let i = 0; i < 9; i++) await call('GET', path, { ip });
    const limited = await call('GET', path, { ip });
    expectProblem(limited, 429);
    expect(limited.headers.get('ratelimit')).toMatch(/^"public";r=0;t=\d+$/);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    // An unlimited route carries none.
    expect((await call('GET', '/health')).headers.get('ratelimit')).toBeNull();
  });

  test('when a user logs in, then both login policies (per e-mail and per client IP) are announced', async () => {
    const org = await createOrg();
    const res = await call('POST', '/api/auth/token', { body: { Email: org.adminEmail, Password: org.adminPassword } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"login";q=\d+;w=60, "login-ip";q=\d+;w=60$/);
  });
});

describe('CORS', () => {
  test('when a configured origin sends a preflight, then it is allowed; another origin gets no CORS header', async () => {
    const preflight = (origin: string) =>
      call('OPTIONS', '/api/products', { headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    const allowed = await preflight('https://shop.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(allowed.headers.get('access-control-allow-methods')).toMatch(/GET/);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    const refused = await preflight('https://evil.example.net');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    const org = await createOrg();
    const read = await call('GET', '/api/customers', { ...A(org), headers: { origin: 'https://shop.example.com' } });
    expect(read.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(read.headers.get('access-control-expose-headers')).toMatch(/Link/);
    const foreign = await call('GET', '/api/customers', { ...A(org), headers: { origin: 'https://evil.example.net' } });
    expect(foreign.status).toBe(200);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('security headers and error references', () => {
  test('when any answer is sent, then helmet headers are present, with a locked CSP for the API and a looser one for /docs', async () => {
    for (const res of [await call('GET', '/health'), await call('GET', '/api/nowhere')]) {
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
    const docs = await call('GET', '/docs');
    expect(docs.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(docs.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
  });

  test('when an error is answered, then its type is a link into the API\'s own error reference, which describes it', async () => {
    const res = await call('GET', '/api/nowhere');
    expectProblem(res, 404);
    expect(res.body.type).toBe(`${API}/problems#not-found`);
    const org = await createOrg();
    const invalid = await call('PUT', '/api/customers', { ...A(org), body: {} });
    expect(invalid.body.type).toBe(`${API}/problems#validation`);
    const ref = await call('GET', '/problems');
    expect(ref.status).toBe(200);
    expect(ref.headers.get('content-type')).toMatch(/text\/html/);
    for (const slug of ['not-found', 'validation', 'rate-limited', 'unauthorized', 'forbidden', 'conflict']) expect(ref.text).toContain(`id="${slug}"`);
  });
});
