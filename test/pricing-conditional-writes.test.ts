/**
 * SPEC's ETag/If-Match on the resources of issue 40 (item 7): price lists, catalogs and stock
 * locations. A GET answers an ETag; a PUT naming an older version is a 412 with the current ETag
 * and changes nothing; a PUT naming the current one runs (200) and the ETag moves on.
 */
import { call, createOrg, uniq, type OrgFixture } from './support/helpers';

jest.setTimeout(120_000);
let org: OrgFixture;
const A = () => ({ base: org.base, token: org.adminToken });
beforeAll(async () => {
  org = await createOrg();
});

/** Reads, changes once (so the first ETag is stale), then checks a stale and a current If-Match. */
async function conditional(path: string, first: Record<string, unknown>, second: Record<string, unknown>, third: Record<string, unknown>, read: (b: any) => unknown) {
  const got = await call('GET', path, A());
  expect(got.status).toBe(200);
  const stale = got.headers.get('etag');
  expect(stale).toMatch(/^"v-/);
  const changed = await call('PUT', path, { ...A(), body: first, headers: { 'If-Match': stale! } });
  expect(changed.status).toBe(200);
  const current = (await call('GET', path, A())).headers.get('etag');
  expect(current).not.toBe(stale);

  const refused = await call('PUT', path, { ...A(), body: second, headers: { 'If-Match': stale! } });
  expect(refused.status).toBe(412);
  expect(refused.headers.get('etag')).toBe(current);
  expect(read((await call('GET', path, A())).body)).toEqual(read(changed.body));

  const ok = await call('PUT', path, { ...A(), body: third, headers: { 'If-Match': current! } });
  expect(ok.status).toBe(200);
  expect(read(ok.body)).not.toEqual(read(changed.body));
  expect((await call('GET', path, A())).headers.get('etag')).not.toBe(current);
}

test('when a price list is updated with a stale If-Match, then 412 and nothing changes; with the current ETag, then 200', async () => {
  const body = { name: uniq('ETag list '), currencyCode: 'USD', priority: 10, status: 'Draft' };
  const c = await call('POST', '/api/price-lists', { ...A(), body });
  expect(c.status).toBe(201);
  await conditional(`/api/price-lists/${c.body.priceListId}`, { ...body, priority: 20 }, { ...body, priority: 30 }, { ...body, priority: 40 }, (b) => b.priority);
});

test('when a catalog is updated with a stale If-Match, then 412 and nothing changes; with the current ETag, then 200', async () => {
  const c = await call('POST', '/api/catalogs', { ...A(), body: { name: uniq('ETag catalog ') } });
  expect(c.status).toBe(201);
  await conditional(`/api/catalogs/${c.body.catalogId}`, { description: 'first' }, { description: 'second' }, { description: 'third' }, (b) => b.description);
});

test('when a stock location is updated with a stale If-Match, then 412 and nothing changes; with the current ETag, then 200', async () => {
  const c = await call('POST', '/api/stock-locations', { ...A(), body: { name: 'ETag warehouse', code: uniq('ET'), priority: 5 } });
  expect(c.status).toBe(201);
  await conditional(`/api/stock-locations/${c.body.locationId}`, { priority: 6 }, { priority: 7 }, { priority: 8 }, (b) => b.priority);
});
