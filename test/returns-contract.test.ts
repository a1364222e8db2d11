/**
 * SPEC conventions and the security matrix over the after-the-order writes (issue 42 item 6;
 * docs/returns.md, docs/security.md "Retries, versions and media types" and "Id-substitution
 * matrix"):
 * - Idempotency-Key: `POST /api/returns`, `POST /api/orders/{id}/cancel` and
 *   `POST /api/orders/{id}/shipments` replay the first answer for the same key and body (one
 *   return, one cancellation and one refund, one shipment), and answer 409 for the same key with
 *   another body (nothing more happens).
 * - If-Match: the cancel and the shipment honour the order's ETag, the return decisions the
 *   return's: a stale tag is 412 naming the current one and changes nothing; the current one runs.
 * - Ids in the body of `POST /api/returns` (orderId) and of the receipt (locationId): another
 *   customer's order (its buyer, its rep), another organization's order or location answer exactly
 *   as an id that exists nowhere (404 naming orderId; 400 naming lines[0].locationId), and the
 *   target is unchanged.
 */
import { randomUUID } from 'node:crypto';
import { call, createOrg, customerToken, dbQuery, expectProblem, repToken, stack, uniq, type OrgFixture } from './support/helpers';
import { pathParamFixtures } from './support/matrix-fixtures';

jest.setTimeout(300_000);
const PROVIDER = stack.urls.provider;
let org: OrgFixture;
let other: OrgFixture;
let otherLocationId: string;
const LOCATION = 'RCT';
beforeAll(async () => {
  org = await createOrg();
  expect((await call('POST', '/api/stock-locations', { ...A(), body: { name: 'Contract dock', code: LOCATION, priority: 10 } })).status).toBe(201);
  other = await createOrg();
  const loc = await call('POST', '/api/stock-locations', { base: other.base, token: other.adminToken, body: { name: 'Foreign dock', code: 'FOR', priority: 10 } });
  expect(loc.status).toBe(201);
  otherLocationId = loc.body.locationId;
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});
const ledger = async (query: string) => ((await (await fetch(`${PROVIDER}/ledger?${query}`)).json()) as { entries: { kind: string; amount: string }[] }).entries;

/** A customer (with its rep and buyer), a tracked product stocked at RCT, an order of `quantity` paid by card or on account; shipped when `ship` units are given. */
async function placed(payment: 'card' | 'account', quantity: number, ship = 0, price = 10) {
  const customerNumber = await pathParamFixtures.customerNumber(org);
  const repNumber = uniq('R');
  const rep = await repToken(org, repNumber);
  expect((await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', repNumber } })).status).toBeLessThan(300);
  const buyer = await customerToken(org, { CustomerNumber: customerNumber });
  const sku = uniq('CTR-');
  expect((await call('PUT', '/api/products', { ...A(), body: { sku, name: `Contract ${sku}`, trackInventory: true, prices: [{ tier: 'Retail', price, atQuantity: 1 }] } })).status).toBe(201);
  expect((await call('PUT', '/api/inventory', { ...A(), body: { items: [{ sku, location: LOCATION, receive: 50 }] } })).status).toBe(200);
  if (payment === 'account') expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 10_000 } })).status).toBe(200);
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity, orderType: 'Standard' } });
  const cartId = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
  const done = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: payment === 'card' ? card() : { method: 'OnAccount' } } });
  expect(done.status).toBe(200);
  const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
  const o = (await call('GET', `/api/orders?filters=${f}`, A())).body.data[0];
  if (ship) expect((await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku, quantity: ship }] } })).status).toBe(201);
  return { customerNumber, sku, order: o, buyer, rep, chargeId: done.body.confirmationId as string | undefined };
}

/** An ETag without the encoding suffix a compressed answer carries (`"v-…-gzip"`): the same version (docs/http.md "One ETag per representation"). */
const bare = (tag: string | null) => tag?.replace(/-(gzip|br|deflate)"$/, '"') ?? null;
const keyed = (method: string, path: string, body: unknown, key: string, token = org.adminToken) => call(method, path, { base: org.base, token, body, headers: { 'Idempotency-Key': key } });
const countReturns = async (orderId: string) => (await call('GET', `/api/returns?orderId=${orderId}`, A())).body.TotalCount as number;
const countShipments = async (orderId: string) => {
  const res = await call('GET', `/api/orders/${orderId}/shipments`, A());
  expect(res.status).toBe(200);
  return res.body.TotalCount as number;
};

describe('Idempotency-Key on the after-the-order writes', () => {
  test('when a return request is sent twice with one key, then the first answer is replayed and one return exists; another body with the key is 409 and creates nothing', async () => {
    const { order: o, sku, buyer } = await placed('account', 3, 3);
    const key = uniq('ret-');
    const body = { orderId: o.id, lines: [{ sku, quantity: 1, reason: 'Scratched' }] };
    const first = await keyed('POST', '/api/returns', body, key, buyer);
    const second = await keyed('POST', '/api/returns', body, key, buyer);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await countReturns(o.id)).toBe(1);
    const changed = await keyed('POST', '/api/returns', { ...body, lines: [{ sku, quantity: 2, reason: 'Scratched' }] }, key, buyer);
    expectProblem(changed, 409);
    expect(await countReturns(o.id)).toBe(1);
    // Another caller's same key is its own request, not a replay.
    const byStaff = await keyed('POST', '/api/returns', body, key);
    expect(byStaff.status).toBe(201);
    expect(byStaff.headers.get('idempotent-replayed')).toBeNull();
    expect(byStaff.body.returnId).not.toBe(first.body.returnId);
  });

  test('when a card order\'s cancel is sent twice with one key, then the first answer is replayed, one cancellation and one refund exist; another body with the key is 409', async () => {
    const { order: o, sku, chargeId } = await placed('card', 4, 0, 10);
    const key = uniq('cancel-');
    const body = { lines: [{ sku, quantity: 1 }], reason: 'One too many' };
    const first = await keyed('POST', `/api/orders/${o.id}/cancel`, body, key);
    const second = await keyed('POST', `/api/orders/${o.id}/cancel`, body, key);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.cancellationId).toBe(first.body.cancellationId);
    const changed = await keyed('POST', `/api/orders/${o.id}/cancel`, { ...body, reason: 'Another reason' }, key);
    expectProblem(changed, 409);
    const items = (await call('GET', `/api/orders/${o.id}`, A())).body.items as { sku: string; cancelledQuantity?: number }[];
    expect(items.find((i) => i.sku === sku)?.cancelledQuantity).toBe(1);
    const refunds = (await ledger(`chargeId=${chargeId}`)).filter((e) => e.kind === 'refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0].amount).toBe('10.00');
  });

  test('when a shipment is sent twice with one key, then the first answer is replayed and one shipment exists; another body with the key is 409', async () => {
    const { order: o, sku } = await placed('account', 4);
    const key = uniq('ship-');
    const body = { lines: [{ sku, quantity: 1 }], carrier: 'UPS', trackingNumber: uniq('1Z') };
    const first = await keyed('POST', `/api/orders/${o.id}/shipments`, body, key);
    const second = await keyed('POST', `/api/orders/${o.id}/shipments`, body, key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expectProblem(await keyed('POST', `/api/orders/${o.id}/shipments`, { ...body, lines: [{ sku, quantity: 2 }] }, key), 409);
    expect(await countShipments(o.id)).toBe(1);
    const items = (await call('GET', `/api/orders/${o.id}`, A())).body.items as { sku: string; shippedQuantity: number }[];
    expect(items.find((i) => i.sku === sku)?.shippedQuantity).toBe(1);
  });
});

describe('If-Match on the after-the-order writes', () => {
  test('when a cancel names an order version older than a cancellation since, then 412 with the current ETag and nothing more is cancelled; with the current ETag it runs', async () => {
    const { order: o, sku } = await placed('account', 5);
    const stale = (await call('GET', `/api/orders/${o.id}`, A())).headers.get('etag')!;
    expect(stale).toMatch(/^"v-/);
    expect((await call('POST', `/api/orders/${o.id}/cancel`, { ...A(), body: { lines: [{ sku, quantity: 1 }], reason: 'First' }, headers: { 'If-Match': stale } })).status).toBe(200);
    const read = await call('GET', `/api/orders/${o.id}`, A());
    const current = read.headers.get('etag')!;
    expect(bare(current)).not.toBe(bare(stale));
    expect(read.body.items[0].cancelledQuantity).toBe(1);
    const refused = await call('POST', `/api/orders/${o.id}/cancel`, { ...A(), body: { lines: [{ sku, quantity: 1 }], reason: 'Second, from a stale screen' }, headers: { 'If-Match': stale } });
    expectProblem(refused, 412);
    expect(bare(refused.headers.get('etag'))).toBe(bare(current));
    expect((await call('GET', `/api/orders/${o.id}`, A())).body.items[0].cancelledQuantity).toBe(1);
    const ok = await call('POST', `/api/orders/${o.id}/cancel`, { ...A(), body: { lines: [{ sku, quantity: 1 }], reason: 'Second, read again' }, headers: { 'If-Match': current } });
    expect(ok.status).toBe(200);
    expect((await call('GET', `/api/orders/${o.id}`, A())).body.items[0].cancelledQuantity).toBe(2);
  });

  test('when a shipment names an order version older than a shipment since, then 412 and nothing ships; with the current ETag it ships', async () => {
    const { order: o, sku } = await placed('account', 4);
    const stale = (await call('GET', `/api/orders/${o.id}`, A())).headers.get('etag')!;
    expect((await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku, quantity: 1 }] }, headers: { 'If-Match': stale } })).status).toBe(201);
    const current = (await call('GET', `/api/orders/${o.id}`, A())).headers.get('etag')!;
    expect(bare(current)).not.toBe(bare(stale));
    const refused = await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku, quantity: 1 }] }, headers: { 'If-Match': stale } });
    expectProblem(refused, 412);
    expect(bare(refused.headers.get('etag'))).toBe(bare(current));
    expect(await countShipments(o.id)).toBe(1);
    expect((await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku, quantity: 1 }] }, headers: { 'If-Match': current } })).status).toBe(201);
    expect(await countShipments(o.id)).toBe(2);
  });

  test('when a return decision names a stale version of the return, then 412 and the return is unchanged; with the current ETag the decision runs', async () => {
    const { order: o, sku, buyer } = await placed('account', 2, 2);
    const res = await call('POST', '/api/returns', { base: org.base, token: buyer, body: { orderId: o.id, lines: [{ sku, quantity: 1, reason: 'Wrong size' }] } });
    expect(res.status).toBe(201);
    const id = res.body.returnId as string;
    const before = await call('GET', `/api/returns/${id}`, A());
    const tag = before.headers.get('etag')!;
    expect(tag).toMatch(/^"v-/);
    expectProblem(await call('POST', `/api/returns/${id}/approve`, { ...A(), body: { message: 'ok' }, headers: { 'If-Match': '"v-not-the-current-one"' } }), 412);
    expect((await call('GET', `/api/returns/${id}`, A())).body.status).toBe('Requested');
    const approved = await call('POST', `/api/returns/${id}/approve`, { ...A(), body: { message: 'Send it' }, headers: { 'If-Match': tag } });
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('Approved');
    // The approval changed the return: the tag read before it is stale now, and a rejection naming it is refused.
    const late = await call('POST', `/api/returns/${id}/reject`, { ...A(), body: { message: 'No' }, headers: { 'If-Match': tag } });
    expectProblem(late, 412);
    expect(bare(late.headers.get('etag'))).toBe(bare((await call('GET', `/api/returns/${id}`, A())).headers.get('etag')));
    expect((await call('GET', `/api/returns/${id}`, A())).body.status).toBe('Approved');
  });
});

describe('ids in the body of a return request and its receipt', () => {
  test("another customer's order (its buyer, its rep), another organization's order answer exactly as an order that exists nowhere: 404 naming orderId; nothing is created", async () => {
    const target = await placed('account', 2, 2);
    const stranger = await placed('account', 1, 1);
    const body = (orderId: string) => ({ orderId, lines: [{ sku: target.sku, quantity: 1, reason: 'Not mine' }] });
    const nowhere = await call('POST', '/api/returns', { base: org.base, token: stranger.buyer, body: body(randomUUID()) });
    expectProblem(nowhere, 404);
    expect(Object.keys(nowhere.body.errors)).toEqual(['orderId']);
    const callers = [
      { who: "another customer's buyer", base: org.base, token: stranger.buyer },
      { who: "another customer's rep", base: org.base, token: stranger.rep },
      { who: 'another organization', base: other.base, token: other.adminToken },
    ];
    for (const c of callers) {
      const res = await call('POST', '/api/returns', { base: c.base, token: c.token, body: body(target.order.id) });
      expect({ who: c.who, status: res.status, errors: res.body.errors, detail: res.body.detail }).toEqual({ who: c.who, status: 404, errors: nowhere.body.errors, detail: nowhere.body.detail });
    }
    expect(await countReturns(target.order.id)).toBe(0);
    // Its own buyer and rep may.
    expect((await call('POST', '/api/returns', { base: org.base, token: target.rep, body: body(target.order.id) })).status).toBe(201);
  });

  test("a receipt restocking to another organization's location answers exactly as a location that exists nowhere: 400 naming lines[0].locationId; nothing is received", async () => {
    const { order: o, sku } = await placed('account', 2, 2);
    const res = await call('POST', '/api/returns', { ...A(), body: { orderId: o.id, lines: [{ sku, quantity: 2, reason: 'Surplus' }] } });
    expect(res.status).toBe(201);
    const id = res.body.returnId as string;
    expect((await call('POST', `/api/returns/${id}/approve`, { ...A(), body: {} })).status).toBe(200);
    const receive = (locationId: string) => call('POST', `/api/returns/${id}/receive`, { ...A(), body: { lines: [{ sku, disposition: 'restock', locationId }] } });
    const nowhere = await receive(randomUUID());
    expectProblem(nowhere, 400);
    expect(Object.keys(nowhere.body.errors)).toEqual(['lines[0].locationId']);
    const foreign = await receive(otherLocationId);
    expect({ status: foreign.status, errors: foreign.body.errors, detail: foreign.body.detail }).toEqual({ status: 400, errors: nowhere.body.errors, detail: nowhere.body.detail });
    expect((await call('GET', `/api/returns/${id}`, A())).body.status).toBe('Approved');
    // Nothing moved at the foreign location.
    const moved = await dbQuery<{ n: string }>('select count(*)::text as n from stock_movement where organization_id = $1 and location_id = $2', [other.organizationId, otherLocationId]);
    expect(moved[0].n).toBe('0');
  });
});
