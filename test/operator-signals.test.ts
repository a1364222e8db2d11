/**
 * Signals an alert reads must not lie (issue 43 item 1): each metric that an alert in
 * docs/operations.md reads is driven into its condition here and the series asserted.
 */
import { createServer } from 'node:net';
import { call, createOrg, stack, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';

jest.setTimeout(120_000);

/** The value of one series (name and exact label values) in a Prometheus exposition, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}
const scrape = async (base: string) => {
  const res = await fetch(`${base}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};
const card = (cardNumber: string) => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber, cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});

/** A cart ready for checkout (one line, shipping set); its id and customer. */
async function readyCart(org: OrgFixture) {
  const A = { token: org.adminToken };
  const { customerNumber, sku } = await customerWithProduct(org, { price: 12.5 });
  const cart = await call('POST', `/api/carts/${customerNumber}`, { ...A, body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  expect(cart.status).toBe(201);
  const id = cart.body.shoppingCartId as string;
  const shippingAddress = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
  expect((await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A, body: { customerNumber, shippingAddress } })).status).toBe(200);
  return { customerNumber, id };
}
const checkout = (org: OrgFixture, c: { customerNumber: string; id: string }, cardNumber: string) =>
  call('POST', `/api/carts/${c.customerNumber}/${c.id}/complete-checkout`, { token: org.adminToken, body: { customerNumber: c.customerNumber, channel: 'Web', payment: card(cardNumber) } });

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});

test('when an idle API is scraped, then no request is waiting for a connection (DbPoolSaturated stays quiet), its own statement included', async () => {
  for (let i = 0; i < 5; i++) {
    const text = await scrape(stack.urls.apiOps);
    // The scrape runs a statement (commission_statements) while it reads the pool.
    expect(text).toMatch(/^commission_statements\{/m);
    expect(sample(text, 'db_pool_connections', { state: 'waiting' })).toBe(0);
  }
});

test('when a card is declined at tokenization, then the checkout counts as failed and the API counts the declined provider call', async () => {
  const before = await scrape(stack.urls.apiOps);
  const res = await checkout(org, await readyCart(org), '4000000000000002');
  expect(res.status).toBe(402);
  const after = await scrape(stack.urls.apiOps);
  expect(sample(after, 'http_requests_total', { route: '/api/carts/:customerNumber/:shoppingCartId/complete-checkout', status: '402' })).toBeGreaterThanOrEqual(
    sample(before, 'http_requests_total', { route: '/api/carts/:customerNumber/:shoppingCartId/complete-checkout', status: '402' }) + 1,
  );
  expect(sample(after, 'checkouts_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(sample(before, 'checkouts_total', { outcome: 'failed' }) + 1);
  expect(sample(after, 'payment_provider_calls_total', { operation: 'tokenize', result: 'declined' })).toBeGreaterThanOrEqual(
    sample(before, 'payment_provider_calls_total', { operation: 'tokenize', result: 'declined' }) + 1,
  );
});

test('when the provider cannot be reached from the API, then ProviderDown sees it: the API counts a provider error', async () => {
  const own = await createOrg();
  const pay = await call('POST', `/api/organizations/${own.organizationId}/integrations`, {
    token: own.adminToken,
    body: { integrationType: 1, provider: 'ProviderDirect', displayName: 'Down processor', configuration: { Endpoint: `http://127.0.0.1:${await closedPort()}`, IsSandbox: true }, secrets: { ApiKey: 'sk_down_0123456789' } },
  });
  expect(pay.status).toBe(201);
  const before = await scrape(stack.urls.apiOps);
  const res = await checkout(own, await readyCart(own), '4111111111111111');
  expect(res.status).toBeGreaterThanOrEqual(500);
  const after = await scrape(stack.urls.apiOps);
  expect(sample(after, 'payment_provider_calls_total', { operation: 'tokenize', result: 'error' })).toBeGreaterThanOrEqual(
    sample(before, 'payment_provider_calls_total', { operation: 'tokenize', result: 'error' }) + 1,
  );
  expect(sample(after, 'checkouts_total', { outcome: 'error' })).toBeGreaterThanOrEqual(sample(before, 'checkouts_total', { outcome: 'error' }) + 1);
});

test('when the worker charges a card, then the worker counts the charge (and the API the tokenization) once each', async () => {
  const apiBefore = await scrape(stack.urls.apiOps);
  const workerBefore = await scrape(stack.urls.workerOps);
  const res = await checkout(org, await readyCart(org), '4111111111111111');
  expect(res.status).toBe(200);
  const apiAfter = await scrape(stack.urls.apiOps);
  const workerAfter = await scrape(stack.urls.workerOps);
  expect(sample(workerAfter, 'payment_provider_calls_total', { operation: 'charge', result: 'succeeded' })).toBeGreaterThanOrEqual(
    sample(workerBefore, 'payment_provider_calls_total', { operation: 'charge', result: 'succeeded' }) + 1,
  );
  expect(sample(apiAfter, 'payment_provider_calls_total', { operation: 'tokenize', result: 'succeeded' })).toBeGreaterThanOrEqual(
    sample(apiBefore, 'payment_provider_calls_total', { operation: 'tokenize', result: 'succeeded' }) + 1,
  );
  expect(sample(apiAfter, 'checkouts_total', { outcome: 'completed' })).toBeGreaterThanOrEqual(sample(apiBefore, 'checkouts_total', { outcome: 'completed' }) + 1);
});

test('when /health is called on the API and on each ops port, then all answer the same camelCase body', async () => {
  for (const base of [stack.urls.api, stack.urls.apiOps, stack.urls.workerOps]) {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', service: expect.any(String) });
  }
});
