/**
 * Dependencies down, answers stay honest (issue 21): with PostgreSQL, Temporal or object storage
 * unreachable (refused) or hung (accepting and silent), a request that needs it answers 503
 * problem+json with Retry-After within the configured bounds, never 500 and never a hang; a
 * request that would start a workflow either fails whole (checkout: no charge, no order) or keeps
 * the start and makes it once Temporal is back (invoice issuance). Each dependency is cut for an
 * API process this file starts, through a TCP proxy (test/support/fault-proxy.ts), so the shared stack and
 * other files are untouched.
 */
import { call, createOrg, dbQuery, expectProblem, stack, uniq, type OrgFixture, type Res } from './support/helpers';
import { postMultipart } from './support/image-helpers';
import { customerWithProduct, invoiceBody } from './support/matrix-fixtures';
import { FaultProxy } from './support/fault-proxy';
import { startOwnApi, type OwnApi } from './support/own-api';

jest.setTimeout(120_000);

const pgProxy = FaultProxy.forUrl(stack.env.production.DATABASE_URL);
const temporalProxy = FaultProxy.forUrl(stack.env.production.TEMPORAL_ADDRESS);
const minioProxy = FaultProxy.forUrl(stack.env.production.S3_ENDPOINT);
let api: OwnApi;
let org: OrgFixture;

beforeAll(async () => {
  await Promise.all([pgProxy.start(), temporalProxy.start(), minioProxy.start()]);
  const db = new URL(stack.env.production.DATABASE_URL);
  db.port = String(pgProxy.port);
  api = await startOwnApi({
    DATABASE_URL: db.toString(),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalProxy.port}`,
    S3_ENDPOINT: `http://127.0.0.1:${minioProxy.port}`,
    DB_ACQUIRE_TIMEOUT_MS: '2000',
    DB_STATEMENT_TIMEOUT_MS: '3000',
    TEMPORAL_CALL_TIMEOUT_MS: '3000',
    S3_REQUEST_TIMEOUT_MS: '3000',
  });
  org = await createOrg({ base: api.base });
  expect((await call('GET', '/ready', { base: api.base })).body.Ready).toBe(true);
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await Promise.all([pgProxy.close(), temporalProxy.close(), minioProxy.close()]);
});

const A = () => ({ base: api.base, token: org.adminToken });

const isReady = async () => (await call('GET', '/ready', { base: api.base })).status === 200;

// Every fault starts from a ready API: the one before it must have healed (an earlier fault may
// leave a client reconnecting, e.g. when the shared stack's relay took this API's kept start).
beforeEach(async () => {
  await eventually(isReady, 'the API ready before the fault');
});

function expectUnavailable(res: Res, detail: RegExp): void {
  expectProblem(res, 503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.body.detail).toMatch(detail);
}

/** /ready answers 503 with Retry-After and names the checks of `down` as the failed ones. */
async function expectNotReady(down: 'Database' | 'Temporal' | 'ObjectStorage'): Promise<void> {
  const r = await call('GET', '/ready', { base: api.base });
  expect(r.status).toBe(503);
  expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(r.body.Ready).toBe(false);
  // Migrations are read from the database: they fail with it.
  const failed = Object.entries(r.body.Checks as Record<string, { Ok: boolean }>).filter(([, c]) => !c.Ok).map(([k]) => k).sort();
  expect(failed).toEqual(down === 'Database' ? ['Database', 'Migrations'] : [down]);
}

/** Runs `during` with the proxy in `mode`, then restores forwarding whatever happened. */
async function withFault<T>(proxy: FaultProxy, mode: 'refuse' | 'hang', during: () => Promise<T>): Promise<T> {
  if (mode === 'refuse') await proxy.refuse();
  else proxy.hang();
  try {
    return await during();
  } finally {
    proxy.pass();
  }
}

/** Polls `f` until it returns a truthy value (dependency back, work relayed). */
async function eventually<T>(f: () => Promise<T | null | false | undefined>, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function cartReadyForCheckout(): Promise<{ customerNumber: string; cartId: string }> {
  const { customerNumber, sku } = await customerWithProduct({ ...org, base: api.base });
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
  expect(c.status).toBe(201);
  const cartId = c.body.shoppingCartId as string;
  const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
  expect((await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } })).status).toBe(200);
  return { customerNumber, cartId };
}

const checkoutBody = (customerNumber: string) => ({
  customerNumber,
  channel: 'Web',
  payment: {
    billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
    creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
  },
});

const providerCharges = async (idempotencyKey: string) =>
  ((await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=${encodeURIComponent(idempotencyKey)}`)).json()) as { entries: { kind: string }[] }).entries.filter(
    (e) => e.kind === 'charge',
  );

describe('PostgreSQL', () => {
  test.each(['refuse', 'hang'] as const)('when PostgreSQL is down (%s), then a read answers 503 with Retry-After, /health still 200, and reads work again once it is back', async (mode) => {
    expect((await call('GET', '/api/products', A())).status).toBe(200);
    await withFault(pgProxy, mode, async () => {
      expectUnavailable(await call('GET', '/api/products', A()), /database/i);
      expectUnavailable(await call('PUT', '/api/products', { ...A(), body: { sku: uniq('SKU-'), name: 'Hammer', prices: [{ tier: 'Retail', price: 1, atQuantity: 1 }] } }), /database/i);
      expect((await call('GET', '/health', { base: api.base })).status).toBe(200);
      await expectNotReady('Database');
    });
    await eventually(async () => (await call('GET', '/api/products', A())).status === 200, 'a read after PostgreSQL came back');
    expect(api.output()).not.toMatch(/"unhandled error"/);
  });
});

describe('Temporal', () => {
  test.each(['refuse', 'hang'] as const)(
    'when Temporal is down (%s), then complete-checkout answers 503 with Retry-After and nothing is charged or ordered; the same checkout succeeds once it is back',
    async (mode) => {
      const { customerNumber, cartId } = await cartReadyForCheckout();
      await withFault(temporalProxy, mode, async () => {
        expectUnavailable(await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...A(), body: checkoutBody(customerNumber) }), /Temporal/);
        await expectNotReady('Temporal');
      });
      expect(await providerCharges(`checkout-${cartId}`)).toEqual([]);
      expect((await call('GET', `/api/carts/${cartId}`, A())).body.status).toBe('PENDING');
      const done = await eventually(async () => {
        const r = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...A(), body: checkoutBody(customerNumber) });
        return r.status === 200 ? r : null;
      }, 'the checkout after Temporal came back');
      expect(done.body.confirmationId).toEqual(expect.any(String));
      expect(await providerCharges(`checkout-${cartId}`)).toHaveLength(1);
      expect(api.output()).not.toMatch(/"unhandled error"/);
    },
  );

  test('when Temporal was down for a while, then the API is ready again within a few seconds of its return (reconnect backoff capped, not the gRPC default of up to 2 minutes)', async () => {
    await withFault(temporalProxy, 'refuse', async () => {
      // 20 s of refused reconnects: uncapped, gRPC's backoff would have grown past 10 s by now.
      const until = Date.now() + 20_000;
      while (Date.now() < until) {
        expect((await call('GET', '/ready', { base: api.base })).status).toBe(503);
        await new Promise((r) => setTimeout(r, 500));
      }
    });
    const back = Date.now();
    await eventually(isReady, 'ready after Temporal came back', 30_000);
    expect(Date.now() - back).toBeLessThan(5_000);
  });

  test('when Temporal is unreachable, then issuing an invoice still answers 200 Issued, and its issuance workflow (PDF, e-mail) starts from the outbox once Temporal is back', async () => {
    const created = await call('POST', '/api/invoices', { ...A(), body: invoiceBody() });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await withFault(temporalProxy, 'refuse', async () => {
      const issued = await call('POST', `/api/invoices/${id}/issue`, A());
      expect(issued.status).toBe(200);
      expect(issued.body.status).toBe('Issued');
      // The start was kept for the relay. Every API process relays, and the stack's own API reaches
      // Temporal: its pass (every 2 s) may already have taken the row, so this API's line is the proof.
      const keptLine = (l: string) => l.includes('workflow start kept in the outbox') && l.includes(`"workflowId":"invoice-${id}"`) && l.includes('"workflowType":"issueInvoice"');
      expect(api.output().split('\n').some(keptLine)).toBe(true);
    });
    // The relay starts it once Temporal answers: the outbox empties and the issuance writes the PDF.
    await eventually(async () => (await dbQuery('select 1 from workflow_start_outbox where workflow_id = $1', [`invoice-${id}`])).length === 0, 'the relay');
    await eventually(async () => (await dbQuery('select pdf_key from invoice where id = $1', [id]))[0]?.pdf_key, 'the invoice PDF');
  });
});

describe('object storage', () => {
  test.each(['refuse', 'hang'] as const)('when MinIO is down (%s), then a document upload answers 503 with Retry-After and stores nothing; it works once MinIO is back', async (mode) => {
    const upload = () =>
      postMultipart('/api/companydocs/documents/upload', { ...A(), file: { field: 'file', name: `${uniq('price-list')}.csv`, data: Buffer.from('sku,price\nA,1\n'), type: 'text/csv' } });
    const ids = async () => ((await call('GET', '/api/companydocs/documents', A())).body.documents as { documentId: string }[]).map((d) => d.documentId).sort();
    const before = await ids();
    await withFault(minioProxy, mode, async () => {
      expectUnavailable(await upload(), /storage/i);
      await expectNotReady('ObjectStorage');
    });
    expect(await ids()).toEqual(before);
    await eventually(async () => (await upload()).status === 201, 'an upload after MinIO came back');
    expect(api.output()).not.toMatch(/"unhandled error"/);
  });
});
