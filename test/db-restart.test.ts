/**
 * A PostgreSQL restart must not end the API (found by `npm run chaos`, issue 21): every connection
 * of every pool drops, and a pool whose idle client errors with nobody listening throws the error
 * out of the process. The database is "restarted" for an API process this file starts, through a
 * TCP proxy (test/support/fault-proxy.ts) that closes every connection, so the shared stack is untouched.
 */
import { call, createOrg, stack, uniq, type OrgFixture } from './support/helpers';
import { FaultProxy } from './support/fault-proxy';
import { startOwnApi, type OwnApi } from './support/own-api';

jest.setTimeout(120_000);

const pgProxy = FaultProxy.forUrl(stack.env.production.DATABASE_URL);
let api: OwnApi;
let org: OrgFixture;

beforeAll(async () => {
  await pgProxy.start();
  const db = new URL(stack.env.production.DATABASE_URL);
  db.port = String(pgProxy.port);
  api = await startOwnApi({ DATABASE_URL: db.toString() });
  org = await createOrg();
  await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Retail', CurrencyCode: 'USD' } });
});

afterAll(async () => {
  await api?.stop();
  await pgProxy.close();
});

test('when PostgreSQL drops every connection (a restart) after product writes, then the API keeps running and the next product write succeeds', async () => {
  const put = () =>
    call('PUT', '/api/products', {
      base: api.base,
      token: org.adminToken,
      body: { sku: uniq('RST-'), name: 'Restart widget', prices: [{ tier: 'Retail', price: 4, atQuantity: 1 }] },
    });
  // Product writes leave idle connections in the API's pools (the ORM's and the set-based writers').
  for (let i = 0; i < 3; i++) expect((await put()).status).toBe(201);
  await pgProxy.refuse();
  pgProxy.pass();
  // The first request after the restart may meet a connection the pool has not yet noticed is gone;
  // a client retries it. The process must still be there to answer.
  let last = 0;
  for (let i = 0; i < 3 && last !== 201; i++) last = (await put().catch(() => ({ status: -1 }))).status;
  expect(api.child.exitCode).toBeNull();
  expect(api.output()).not.toContain("Unhandled 'error' event");
  expect(last).toBe(201);
});
