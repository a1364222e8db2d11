/**
 * The read path (issue 18 items 2-3): claims, versions and price tiers cached per API process and
 * invalidated through PostgreSQL NOTIFY; keyset paging with `after`; exact totals from counters.
 * Changes "from another API instance" are made here with plain SQL on another connection. Such a
 * change reaches this API process through its NOTIFY; `settled()` (any write request through the
 * API) waits for notifications committed before it, so the next request must see the change.
 */
import { call, createMemberUser, createOrg, customerToken, dbQuery, repToken, uniq, type OrgFixture } from './support/helpers';

const put = (org: OrgFixture, body: unknown) => call('PUT', '/api/products', { token: org.adminToken, body });

async function addTier(org: OrgFixture, Name: string, CurrencyCode = 'USD') {
  expect((await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name, CurrencyCode } })).status).toBe(200);
}

/** Inserts products straight into the table (as an import or another instance would). */
async function insertProducts(org: OrgFixture, skus: string[], active = true): Promise<void> {
  await dbQuery(
    `insert into product (id, organization_id, sku, name, quantity_on_hand, minimum_order_quantity, quantity_increment, active, created_at, updated_at)
     select gen_random_uuid(), $1, s, 'P ' || s, 1, 1, 1, $3, now(), now() from unnest($2::text[]) s`,
    [org.organizationId, skus, active],
  );
}

describe('cached claims and versions follow changes made by another process', () => {
  let org: OrgFixture;
  let bystander: OrgFixture;
  /** A write through the API by an unrelated organization: it touches nothing cached, and answers only after the API applied every NOTIFY committed before it. */
  const settled = async () => expect((await put(bystander, { sku: uniq('BY-'), name: 'Bystander' })).status).toBe(201);
  beforeAll(async () => {
    [org, bystander] = await Promise.all([createOrg(), createOrg()]);
  });

  test('when the credential version is bumped on another connection, then a token accepted a moment ago is 401 on the next request', async () => {
    const member = await createMemberUser(org);
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/users/profile', { token: member.token })).status).toBe(200);
    await dbQuery('update organization set credential_version = credential_version + 1 where id = $1', [org.organizationId]);
    await settled();
    const after = await call('GET', '/api/users/profile', { token: member.token });
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/credentials were rotated/);
  });

  test('when a user’s token version is bumped on another connection, then the warm token is 401 on the next request', async () => {
    const org2 = await createOrg();
    const member = await createMemberUser(org2);
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/users/profile', { token: member.token })).status).toBe(200);
    await dbQuery('update app_user set token_version = token_version + 1 where id = $1', [member.userId]);
    await settled();
    expect((await call('GET', '/api/users/profile', { token: member.token })).status).toBe(401);
  });

  test('when a membership is deleted on another connection, then the removed user is 401 on the next request', async () => {
    const org3 = await createOrg();
    const member = await createMemberUser(org3);
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/users/profile', { token: member.token })).status).toBe(200);
    await dbQuery('delete from organization_member where organization_id = $1 and user_id = $2', [org3.organizationId, member.userId]);
    await settled();
    const after = await call('GET', '/api/users/profile', { token: member.token });
    expect(after.status).toBe(401);
    expect(after.body.detail).toMatch(/no longer belongs/);
  });

  test('when the API key is deactivated on another connection, then the key is 401 on the next request', async () => {
    const org4 = await createOrg();
    const access = await call('POST', '/api/organizations/api-access', { token: org4.adminToken });
    expect(access.status).toBeLessThan(300);
    const headers = { 'x-api-key': access.body.ApiKey as string };
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/organization', { headers })).status).toBe(200);
    await dbQuery('update api_credential set active = false where organization_id = $1', [org4.organizationId]);
    await settled();
    expect((await call('GET', '/api/organization', { headers })).status).toBe(401);
  });

  test('when the LISTEN connection is lost, then nothing cached is served: a change made meanwhile applies on the next request', async () => {
    const org5 = await createOrg();
    const member = await createMemberUser(org5);
    for (let i = 0; i < 3; i++) expect((await call('GET', '/api/users/profile', { token: member.token })).status).toBe(200);
    const killed = await dbQuery<{ ok: boolean }>(
      `select pg_terminate_backend(pid, 5000) as ok from pg_stat_activity where application_name = 'b2b-read-cache' and datname = current_database()`,
    );
    expect(killed.length).toBeGreaterThan(0);
    // No listener sees this change's NOTIFY: only dropping the cache when the connection went away keeps it from being stale.
    await dbQuery('update organization set credential_version = credential_version + 1 where id = $1', [org5.organizationId]);
    await settled();
    expect((await call('GET', '/api/users/profile', { token: member.token })).status).toBe(401);
  });

  test('when a price tier’s currency changes on another connection, then the next product read prices in it', async () => {
    const org6 = await createOrg();
    const tier = uniq('Tier');
    await addTier(org6, tier, 'USD');
    const sku = uniq('SKU-');
    expect((await put(org6, { sku, name: 'Widget', prices: [{ tier, price: 10, atQuantity: 1 }] })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await call('GET', `/api/products/${sku}`, { token: org6.adminToken })).body.currencyCode).toBe('USD');
    await dbQuery('update price_tier set currency_code = $2 where organization_id = $1', [org6.organizationId, 'EUR']);
    await settled();
    const after = await call('GET', `/api/products/${sku}`, { token: org6.adminToken });
    expect(after.body.currencyCode).toBe('EUR');
    expect(after.body.prices[0].priceFormatted).toMatch(/€/);
  });
});

describe('product lists: keyset paging and exact totals', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
    await addTier(org, 'Retail');
  });

  test('when paging with after while products are inserted, then every original product comes exactly once, in sku order', async () => {
    const original = Array.from({ length: 40 }, (_, i) => `K-${String(i * 10 + 10).padStart(4, '0')}`);
    await insertProducts(org, original);
    const seen: string[] = [];
    const insertedLater: string[] = [];
    let after = '';
    for (let round = 0; round < 50; round++) {
      const res = await call('GET', `/api/products?pageSize=7${after ? `&after=${encodeURIComponent(after)}` : ''}`, { token: org.adminToken });
      expect(res.status).toBe(200);
      const skus = (res.body.data as { sku: string }[]).map((p) => p.sku);
      if (!skus.length) break;
      seen.push(...skus);
      after = skus[skus.length - 1];
      // Inserted between pages: one before the cursor (must not shift later pages), one after it (must appear once).
      const n = Number(/^K-(\d{4})/.exec(after)![1]);
      const later = `K-${String(n).padStart(4, '0')}-r${round}`;
      if (round >= 10) continue;
      await insertProducts(org, [`K-${String(n - 1).padStart(4, '0')}-r${round}`, later]);
      insertedLater.push(later);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(seen);
    for (const sku of [...original, ...insertedLater]) expect(seen).toContain(sku);
    expect(seen.some((s) => /^K-\d{4}-r\d+$/.test(s) && !insertedLater.includes(s))).toBe(false);
  });

  test('when after is combined with another sort, then 400 names after', async () => {
    const res = await call('GET', '/api/products?sortOn=Name&after=K-0010', { token: org.adminToken });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors ?? {})).toContain('after');
  });

  test('when products are inserted, deactivated and deleted, then admin and customer totals stay exact', async () => {
    const o = await createOrg();
    await addTier(o, 'Retail');
    const count = async (token: string, q = '') => (await call('GET', `/api/products?pageSize=5${q}`, { token })).body.totalRecords as number;
    const customer = await customerToken(o, { CustomerNumber: 'C1', PriceTier: 'Retail', CurrencyCode: 'USD' });
    expect(await count(o.adminToken)).toBe(0);
    await insertProducts(o, ['A1', 'A2', 'A3', 'A4']);
    await insertProducts(o, ['B1', 'B2'], false);
    expect((await put(o, { sku: 'C1', name: 'Via API', prices: [{ tier: 'Retail', price: 3, atQuantity: 1 }] })).status).toBe(201);
    expect(await count(o.adminToken)).toBe(7);
    expect(await count(customer)).toBe(5);
    expect((await call('POST', '/api/products/A1/deactivate', { token: o.adminToken })).status).toBe(200);
    expect(await count(customer)).toBe(4);
    await dbQuery(`delete from product where organization_id = $1 and sku in ('A2', 'B1')`, [o.organizationId]);
    expect(await count(o.adminToken)).toBe(5);
    expect(await count(customer)).toBe(3);
    // A filtered list counts its own matches.
    expect(await count(o.adminToken, `&filters=${encodeURIComponent(JSON.stringify([{ field: 'sku', operator: 'startswith', value: 'A' }]))}`)).toBe(3);
    // Other tenants' rows never enter the total.
    expect(await count(org.adminToken, `&filters=${encodeURIComponent(JSON.stringify([{ field: 'sku', operator: 'equals', value: 'A1' }]))}`)).toBe(0);
  });
});

describe('customer lists: keyset paging', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
    await addTier(org, 'Retail');
  });

  const page = (q: string, token = org.adminToken) => call('GET', `/api/customers?sortOn=CustomerNumber&pageSize=4${q}`, { token });
  const numbers = (res: { body: { data: { customerNumber: string }[] } }) => res.body.data.map((c) => c.customerNumber);

  test('when paging with after (ascending and descending) while customers are added, then every original customer comes exactly once, in order, with an exact total', async () => {
    const original = Array.from({ length: 11 }, (_, i) => `KC-${String(i * 10 + 10).padStart(4, '0')}`);
    for (const customerNumber of original) expect((await call('PUT', '/api/customers', { token: org.adminToken, body: { customerNumber, companyName: `Co ${customerNumber}`, pricing: 'Retail', companyEmail: 'buyer@example.com' } })).status).toBe(201);
    for (const dir of ['asc', 'desc'] as const) {
      const seen: string[] = [];
      let after = '';
      for (let round = 0; round < 10; round++) {
        const res = await page(`&sortDirection=${dir}${after ? `&after=${encodeURIComponent(after)}` : ''}`);
        expect(res.status).toBe(200);
        const got = numbers(res);
        if (!got.length) break;
        expect(res.body.totalRecords).toBeGreaterThanOrEqual(original.length);
        seen.push(...got);
        after = got[got.length - 1];
        // A customer added behind the cursor must not shift the next page.
        if (round === 0) expect((await call('PUT', '/api/customers', { token: org.adminToken, body: { customerNumber: dir === 'asc' ? 'KC-0000' : 'KC-9999', companyName: 'Behind', pricing: 'Retail', companyEmail: 'buyer@example.com' } })).status).toBe(201);
      }
      const expected = [...original].sort();
      expect(seen.filter((n) => original.includes(n))).toEqual(dir === 'asc' ? expected : expected.reverse());
      expect(new Set(seen).size).toBe(seen.length);
    }
  });

  test('when after is given with another sort or too long, then 400 names after', async () => {
    for (const q of ['&sortOn=Name&after=KC-0010', `&after=${'x'.repeat(101)}`]) {
      const res = await call('GET', `/api/customers?pageSize=4${q}`, { token: org.adminToken });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors ?? {})).toContain('after');
    }
  });

  test('when a sales rep pages with after, then it sees only its own customers', async () => {
    const rep = uniq('R');
    for (const n of ['KR-1', 'KR-2', 'KR-3']) expect((await call('PUT', '/api/customers', { token: org.adminToken, body: { customerNumber: n, companyName: n, pricing: 'Retail', companyEmail: 'buyer@example.com', repNumber: n === 'KR-2' ? 'OTHER' : rep } })).status).toBe(201);
    const token = await repToken(org, rep);
    const res = await page('&after=KR-0', token);
    expect(res.status).toBe(200);
    expect(numbers(res)).toEqual(['KR-1', 'KR-3']);
    expect(res.body.totalRecords).toBe(2);
  });
});
