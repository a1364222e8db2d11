/**
 * Issue 38, findings 6-8: what an integrator's own HTTP tooling does to the API. Retries with an
 * Idempotency-Key, concurrent updates with If-Match, strict clients and proxies that parse every
 * answer. Each test is named after the attack; the matrix over every operation is in
 * test/idempotency.test.ts.
 */
import { createHash } from 'node:crypto';
import { API, call, createOrg, dbQuery, expectProblem, uniq, type OrgFixture } from './support/helpers';
import { postMultipart } from './support/image-helpers';
import { customerWithProduct, invoiceBody } from './support/matrix-fixtures';

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
  expect((await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name: 'Retail', CurrencyCode: 'USD' } })).status).toBe(200);
});

/** The status, or an error that shows the answer (a fixture that fails says why). */
function statusOf(res: { status: number; text: string }, expected: number): number {
  if (res.status !== expected) throw new Error(`expected ${expected}, got ${res.status}: ${res.text.slice(0, 500)}`);
  return res.status;
}

const customerBody = () => {
  const n = uniq('C');
  return {
    customerNumber: n,
    companyName: `Company ${n}`,
    companyEmail: `${n.toLowerCase()}@example.com`,
    companyPhone: '+1 555 0100',
    pricing: 'Retail',
    terms: 'NET30',
    addresses: [{ line1: '1 Main St', city: 'Springfield', country: 'US', addressType: 'Billing', isPrimary: true }],
  };
};

/** The raw answer, without the helper's JSON parsing: what a strict client sees. */
async function raw(method: string, path: string, opts: { token?: string; body?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  return fetch(`${API}${path}`, { method, headers, body: opts.body });
}

describe('finding 8: answers that break clients', () => {
  test('when a price tier is created, renamed and deleted, then each 200 has no body, Content-Length 0 and no Content-Type (res.json() is never handed an empty JSON answer)', async () => {
    const name = uniq('Tier');
    const steps: [string, unknown][] = [
      ['POST', { Name: name, CurrencyCode: 'USD' }],
      ['PUT', { CurrentName: name, NewName: `${name}x`, CurrencyCode: 'USD' }],
      ['DELETE', { Name: `${name}x` }],
    ];
    for (const [method, body] of steps) {
      const res = await raw(method, '/api/organizations/price-tiers', { token: org.adminToken, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBeNull();
      expect(res.headers.get('content-length')).toBe('0');
      expect(await res.text()).toBe('');
    }
  });

  test('when a sales rep is deactivated and activated, then each 200 has no body and no Content-Type', async () => {
    const created = await call('PUT', '/api/organizations/salesreps', {
      token: org.adminToken,
      body: { firstName: 'Rae', lastName: 'Rep', email: `${uniq('rep')}@example.com`, repNumber: uniq('R'), roles: ['SalesRep'] },
    });
    statusOf(created, 201);
    for (const action of ['deactivate', 'activate']) {
      const res = await raw('POST', `/api/organizations/salesreps/${action}`, {
        token: org.adminToken,
        body: JSON.stringify({ organizationSalesRepId: created.body.organizationSalesRepId }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBeNull();
      expect(res.headers.get('content-length')).toBe('0');
    }
  });

  test('when a request has no or a bad token, then the 401 names the Bearer scheme in WWW-Authenticate', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await call('GET', '/api/customers', { token });
      expectProblem(res, 401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
  });

  test('when a JSON operation is sent a text/plain, XML or form body, then 415 problem details, and nothing is written', async () => {
    const body = customerBody();
    for (const [type, text] of [
      ['text/plain', JSON.stringify(body)],
      ['application/xml', '<customer/>'],
      ['application/x-www-form-urlencoded', `customerNumber=${body.customerNumber}`],
    ]) {
      const res = await call('PUT', '/api/customers', { token: org.adminToken, rawBody: text, headers: { 'content-type': type } });
      expectProblem(res, 415);
    }
    expect((await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken })).status).toBe(404);
  });

  test('when a customer is updated with a misspelt field (compnyPhone), then 400 naming it, and the customer is unchanged', async () => {
    const body = customerBody();
    statusOf(await call('PUT', '/api/customers', { token: org.adminToken, body }), 201);
    const res = await call('PUT', `/api/customers/${body.customerNumber}`, { token: org.adminToken, body: { compnyPhone: '+1 555 9999' } });
    expectProblem(res, 400);
    expect(res.body.errors).toHaveProperty('compnyPhone');
    expect(res.body.detail).toMatch(/compnyPhone/);
    const nested = await call('PUT', `/api/customers/${body.customerNumber}`, { token: org.adminToken, body: { addresses: [{ line1: 'x', addressType: 'Billing', postCode: '1' }] } });
    expectProblem(nested, 400);
    expect(nested.body.errors).toHaveProperty(['addresses[0].postCode']);
    const read = await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken });
    expect(read.body.companyPhone).toBe(body.companyPhone);
  });

  test('when a customer is read, modified and PUT back whole (read-only fields included), then 200: the round trip keeps working', async () => {
    const body = customerBody();
    statusOf(await call('PUT', '/api/customers', { token: org.adminToken, body }), 201);
    const read = await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken });
    const res = await call('PUT', `/api/customers/${body.customerNumber}`, { token: org.adminToken, body: { ...read.body, companyName: 'Renamed Inc' } });
    expect(res.status).toBe(200);
    expect(res.body.companyName).toBe('Renamed Inc');
  });
});

describe('finding 6: money writes doubled by a retry', () => {
  const keyed = (key: string) => ({ token: org.adminToken, headers: { 'Idempotency-Key': key } });

  test('when a payment is retried with the same key and another amount, then 409 and only the first payment is recorded', async () => {
    const inv = await call('POST', '/api/invoices', { token: org.adminToken, body: invoiceBody() });
    statusOf(inv, 201);
    statusOf(await call('POST', `/api/invoices/${inv.body.id}/issue`, { token: org.adminToken }), 200);
    const key = uniq('pay-');
    const pay = (amount: number) => call('POST', `/api/invoices/${inv.body.id}/payments`, { ...keyed(key), body: { amount, currencyCode: 'USD', method: 'Check', paymentDate: '2026-03-20T00:00:00Z' } });
    statusOf(await pay(5), 200);
    expectProblem(await pay(7), 409);
    const same = await pay(5);
    expect(same.status).toBe(200);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    const read = await call('GET', `/api/invoices/${inv.body.id}`, { token: org.adminToken });
    expect(read.body.amountPaid).toBe(5);
  });

  test('when a cart item add is retried with the same key, then the quantity is not doubled and the answer is the replayed first one', async () => {
    const { customerNumber, sku } = await customerWithProduct(org);
    const cart = await call('POST', `/api/carts/${customerNumber}`, { token: org.adminToken, body: { organizationId: org.organizationId, orderType: 'Standard', userId: org.adminUserId } });
    expect(cart.status).toBe(201);
    const key = uniq('item-');
    const add = () => call('POST', `/api/carts/${customerNumber}/${cart.body.shoppingCartId}/items`, { ...keyed(key), body: { sku, quantity: 3, customerNumber } });
    const first = await add();
    statusOf(first, 200);
    const again = await add();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const read = await call('GET', `/api/carts/${cart.body.shoppingCartId}`, { token: org.adminToken });
    expect(read.body.items.map((i: { quantity: number }) => i.quantity)).toEqual([3]);
  });

  test('when a cart create is retried with the same key, then the first 201 is replayed instead of "already has an active cart"', async () => {
    const { customerNumber, sku } = await customerWithProduct(org);
    const key = uniq('cart-');
    const create = () => call('POST', `/api/carts/${customerNumber}`, { ...keyed(key), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
    const first = await create();
    expect(first.status).toBe(201);
    const again = await create();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.shoppingCartId).toBe(first.body.shoppingCartId);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
  });

  test('when a webhook is created with a key, then its whsec_ secret is not in idempotency_record, and the same key again is a 409 (never a second copy of the secret)', async () => {
    const key = uniq('hook-');
    const body = { url: 'https://hooks.example.com/erp', events: ['order.created'] };
    const first = await call('POST', '/api/webhooks', { ...keyed(key), body });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const rows = await dbQuery<{ body: string | null }>(`select response_body::text as body from idempotency_record where organization_id = $1 and key = $2`, [org.organizationId, key]);
    expect(rows).toHaveLength(1);
    expect(rows[0].body ?? '').not.toMatch(/whsec_/);
    const all = await dbQuery<{ n: string }>(`select count(*) as n from idempotency_record where response_body::text like '%whsec_%'`);
    expect(Number(all[0].n)).toBe(0);
    expectProblem(await call('POST', '/api/webhooks', { ...keyed(key), body }), 409);
  });

  test('when a request is repeated while the first with its key is still running, then 409 with Retry-After', async () => {
    const key = uniq('busy-');
    const path = `/api/customers/${uniq('C')}/activate`;
    await dbQuery(
      `insert into idempotency_record (id, organization_id, caller, route, key, request_hash, created_at) values (gen_random_uuid(), $1, $2, $3, $4, $5, now())`,
      [org.organizationId, `user:${org.adminUserId}`, `POST ${path}`, key, createHash('sha256').update('null').digest('hex')],
    );
    const res = await call('POST', path, keyed(key));
    expectProblem(res, 409);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('finding 7: lost updates for integrators', () => {
  test('when a customer is updated with a stale If-Match, then 412 naming the current ETag, and the newer version is not overwritten', async () => {
    const body = customerBody();
    statusOf(await call('PUT', '/api/customers', { token: org.adminToken, body }), 201);
    const path = `/api/customers/${body.customerNumber}`;
    const read = await call('GET', path, { token: org.adminToken });
    const tag = read.headers.get('etag')!;
    expect(tag).toMatch(/^"v-/);
    // Someone else changes it first.
    expect((await call('PUT', path, { token: org.adminToken, body: { companyName: 'Newer Inc' } })).status).toBe(200);
    for (const stale of ['"stale"', tag]) {
      const res = await call('PUT', path, { token: org.adminToken, body: { companyName: 'Older Inc' }, headers: { 'If-Match': stale } });
      expectProblem(res, 412);
      const current = (await call('GET', path, { token: org.adminToken })).headers.get('etag')!;
      expect(res.body.detail).toContain(current);
      expect(res.headers.get('etag')).toBe(current);
    }
    expect((await call('GET', path, { token: org.adminToken })).body.companyName).toBe('Newer Inc');
  });

  test('when two integrators update the same customer at once naming the same version, then one wins and the other gets 412, not a lost update', async () => {
    const body = customerBody();
    statusOf(await call('PUT', '/api/customers', { token: org.adminToken, body }), 201);
    const path = `/api/customers/${body.customerNumber}`;
    const tag = (await call('GET', path, { token: org.adminToken })).headers.get('etag')!;
    const names = Array.from({ length: 6 }, (_, i) => `Writer ${i} Inc`);
    const answers = await Promise.all(names.map((companyName) => call('PUT', path, { token: org.adminToken, body: { companyName }, headers: { 'If-Match': tag } })));
    const won = answers.map((r, i) => (r.status === 200 ? names[i] : null)).filter((n) => n !== null);
    expect(won).toHaveLength(1);
    for (const r of answers) if (r.status !== 200) expectProblem(r, 412);
    expect((await call('GET', path, { token: org.adminToken })).body.companyName).toBe(won[0]);
  });

  test('when If-Match names the current version (also weak or with an encoding suffix), then the update and the delete run; without the header nothing changes', async () => {
    const body = customerBody();
    statusOf(await call('PUT', '/api/customers', { token: org.adminToken, body }), 201);
    const path = `/api/customers/${body.customerNumber}`;
    const tagOf = async () => (await call('GET', path, { token: org.adminToken })).headers.get('etag')!;
    const t1 = await tagOf();
    expect((await call('PUT', path, { token: org.adminToken, body: { companyName: 'A' }, headers: { 'If-Match': t1 } })).status).toBe(200);
    const t2 = await tagOf();
    expect(t2).not.toBe(t1);
    expect((await call('PUT', path, { token: org.adminToken, body: { companyName: 'B' }, headers: { 'If-Match': `W/${t2.replace(/"$/, '-gzip"')}` } })).status).toBe(200);
    expect((await call('PUT', path, { token: org.adminToken, body: { companyName: 'C' } })).status).toBe(200);
    expectProblem(await call('DELETE', path, { token: org.adminToken, headers: { 'If-Match': t2 } }), 412);
    expect((await call('DELETE', path, { token: org.adminToken, headers: { 'If-Match': await tagOf() } })).status).toBe(204);
  });

  test('when a create is sent with If-None-Match: * for a customer that exists, then 412; for a new one, 201', async () => {
    const body = customerBody();
    expect((await call('PUT', '/api/customers', { token: org.adminToken, body, headers: { 'If-None-Match': '*' } })).status).toBe(201);
    expectProblem(await call('PUT', '/api/customers', { token: org.adminToken, body: { ...body, companyName: 'Overwrite' }, headers: { 'If-None-Match': '*' } }), 412);
    expect((await call('GET', `/api/customers/${body.customerNumber}`, { token: org.adminToken })).body.companyName).toBe(body.companyName);
  });

  test('when a document is read twice, each answer with a fresh signed cdnUrl, then its ETag stays the same (the version, not the bytes)', async () => {
    const pdf = Buffer.from('%PDF-1.4\n% etag\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
    const up = await postMultipart('/api/companydocs/documents/upload', { base: org.base, token: org.adminToken, fields: {}, file: { field: 'file', name: 'etag.pdf', data: pdf, type: 'application/pdf' } });
    expect(up.status).toBe(201);
    const path = `/api/companydocs/documents/${up.body.document.documentId}`;
    const a = await call('GET', path, { token: org.adminToken });
    await new Promise((r) => setTimeout(r, 1100));
    const b = await call('GET', path, { token: org.adminToken });
    expect(a.status).toBe(200);
    expect(b.body.document.cdnUrl).not.toBe(a.body.document.cdnUrl);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    expect((await call('GET', path, { token: org.adminToken, headers: { 'If-None-Match': a.headers.get('etag')! } })).status).toBe(304);
  });

  test('when a webhook is read twice, then the ETag is its version: the same while it is unchanged, another after an update', async () => {
    const created = await call('POST', '/api/webhooks', { token: org.adminToken, body: { url: 'https://hooks.example.com/v', events: ['order.created'] } });
    expect(created.status).toBe(201);
    const path = `/api/webhooks/${created.body.id ?? created.body.webhookId}`;
    const a = await call('GET', path, { token: org.adminToken });
    const b = await call('GET', path, { token: org.adminToken, headers: { 'accept-encoding': 'gzip' } });
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
    expect((await call('PUT', path, { token: org.adminToken, body: { description: 'changed' }, headers: { 'If-Match': a.headers.get('etag')! } })).status).toBe(200);
    expect((await call('GET', path, { token: org.adminToken })).headers.get('etag')).not.toBe(a.headers.get('etag'));
  });
});
