/**
 * Stock by location and reservations (issue 41 items 1 and 2; docs/fulfillment.md "Stock",
 * "Reservations") over HTTP against the real stack. After every scenario the ledger identity is
 * checked against the database (test/support/stock-ledger.ts).
 */
import { Client, Connection } from '@temporalio/client';
import { call, createOrg, customerToken, dbQuery, repToken, stack, uniq, type OrgFixture } from './support/helpers';
import { releaseOrderStock, shipStock } from '../src/services/stock/ledger';
import type { Sql } from '../src/db/sql';
import { pathParamFixtures } from './support/matrix-fixtures';
import { expectLedgerIdentity } from './support/stock-ledger';

jest.setTimeout(180_000);
let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
});
afterEach(async () => {
  await expectLedgerIdentity(org.organizationId);
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});

let locations: { main: string; east: string } | null = null;
/** Two locations: MAIN (the default, priority 20) and EAST (priority 10: serves first). */
async function ensureLocations(): Promise<{ main: string; east: string }> {
  if (locations) return locations;
  const main = await call('POST', '/api/stock-locations', { ...A(), body: { name: 'Main warehouse', code: 'MAIN', priority: 20 } });
  expect(main.status).toBe(201);
  const east = await call('POST', '/api/stock-locations', { ...A(), body: { name: 'East', code: 'EAST', priority: 10 } });
  expect(east.status).toBe(201);
  locations = { main: main.body.locationId, east: east.body.locationId };
  return locations;
}

async function trackedProduct(opts: { allowBackorder?: boolean; leadTimeDays?: number; price?: number } = {}): Promise<string> {
  const sku = uniq('STK-');
  const res = await call('PUT', '/api/products', {
    ...A(),
    body: { sku, name: `Stocked ${sku}`, trackInventory: true, allowBackorder: opts.allowBackorder ?? false, leadTimeDays: opts.leadTimeDays ?? null, prices: [{ tier: 'Retail', price: opts.price ?? 10, atQuantity: 1 }] },
  });
  expect(res.status).toBe(201);
  return sku;
}

/** Runs `fn` in one transaction of the service's database (the interface the fulfillment workflow calls takes the caller's transaction). */
async function inServiceTransaction<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client } = require('pg') as typeof import('pg');
  const client = new Client({ connectionString: stack.env.production.DATABASE_URL });
  await client.connect();
  const sql: Sql = async <R>(text: string, params: unknown[] = []) => (await client.query(text, params as never[])).rows as R[];
  try {
    await client.query('begin');
    const out = await fn(sql);
    await client.query('commit');
    return out;
  } catch (e) {
    await client.query('rollback');
    throw e;
  } finally {
    await client.end();
  }
}

const put = (items: Record<string, unknown>[]) => call('PUT', '/api/inventory', { ...A(), body: { items } });
const inventory = async (sku: string) => (await call('GET', `/api/products/${sku}/inventory`, A())).body;

const orderBody = (lines: { sku: string; quantity: number }[]) => ({
  customer: { customerNumber: 'C-STOCK', companyName: 'Stock Co', companyEmail: 'ap@stock.example' },
  orderType: 'Direct',
  poNumber: uniq('PO'),
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Rep' },
  items: lines.map((l) => ({ ...l, productName: l.sku, price: 10 })),
  user: { userId: 'u-1', userType: 'Admin' },
});

describe('stock locations', () => {
  test('when an admin creates locations, then the first is the default, another can take it over, and codes are unique; other organizations and roles cannot see them', async () => {
    const before = await call('PUT', '/api/products', { ...A(), body: { sku: uniq('NODEF-'), name: 'x', trackInventory: true, quantityOnHand: 3 } });
    if (!locations) {
      // A tracked quantityOnHand needs a default location to adjust.
      expect(before.status).toBe(400);
      expect(Object.keys(before.body.errors)).toEqual(['quantityOnHand']);
    }
    const { main, east } = await ensureLocations();
    const list = await call('GET', '/api/stock-locations', A());
    expect(list.status).toBe(200);
    expect(list.body.data.map((l: { code: string }) => l.code)).toEqual(['EAST', 'MAIN']);
    expect(list.body.data.find((l: { code: string }) => l.code === 'MAIN')).toMatchObject({ locationId: main, isDefault: true, priority: 20, active: true });
    expect((await call('POST', '/api/stock-locations', { ...A(), body: { name: 'Dup', code: 'MAIN' } })).status).toBe(409);
    const spare = await call('POST', '/api/stock-locations', { ...A(), body: { name: 'Spare', code: uniq('SP'), isDefault: true } });
    expect(spare.body.isDefault).toBe(true);
    expect((await call('GET', `/api/stock-locations/${main}`, A())).body.isDefault).toBe(false);
    // Back to MAIN; the default cannot be deleted, an unused location can.
    expect((await call('PUT', `/api/stock-locations/${main}`, { ...A(), body: { isDefault: true } })).body.isDefault).toBe(true);
    expect((await call('PUT', `/api/stock-locations/${main}`, { ...A(), body: { isDefault: false } })).status).toBe(400);
    expect((await call('DELETE', `/api/stock-locations/${main}`, A())).status).toBe(409);
    expect((await call('DELETE', `/api/stock-locations/${spare.body.locationId}`, A())).status).toBe(204);
    expect((await call('GET', `/api/stock-locations/${east}`, { base: other.base, token: other.adminToken })).status).toBe(404);
    expect((await call('PUT', `/api/stock-locations/${east}`, { base: other.base, token: other.adminToken, body: { name: 'mine' } })).status).toBe(404);
    const buyer = await customerToken(org, { CustomerNumber: await pathParamFixtures.customerNumber(org) });
    expect((await call('GET', '/api/stock-locations', { base: org.base, token: buyer })).status).toBe(403);
    expect((await call('GET', '/api/stock-locations', { base: org.base })).status).toBe(401);
  });
});

describe('levels and the ledger', () => {
  test('when stock is received, counted and adjusted by SKU and location, then the levels, the product quantityOnHand (the sum) and available follow, and a quantityOnHand write is an adjustment at the default location', async () => {
    const { main, east } = await ensureLocations();
    const sku = await trackedProduct();
    const r = await put([
      { sku, location: 'MAIN', receive: 10, reference: 'PO-1' },
      { sku, location: 'EAST', quantityOnHand: 4 },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([
      { sku, locationId: east, location: 'EAST', onHand: 4, reserved: 0, available: 4 },
      { sku, locationId: main, location: 'MAIN', onHand: 10, reserved: 0, available: 10 },
    ]);
    expect((await call('GET', `/api/products/${sku}`, A())).body).toMatchObject({ quantityOnHand: 14, trackInventory: true, available: 14, backorder: false });
    // The product's quantityOnHand written: the difference lands on MAIN (the default).
    const w = await call('PUT', '/api/products', { ...A(), body: { sku, quantityOnHand: 20 } });
    expect(w.status).toBe(200);
    expect(w.body.quantityOnHand).toBe(20);
    const inv = await inventory(sku);
    expect(inv).toMatchObject({ sku, trackInventory: true, quantityOnHand: 20, reserved: 0, available: 20 });
    expect(inv.locations.map((l: { code: string; onHand: number }) => [l.code, l.onHand])).toEqual([
      ['EAST', 4],
      ['MAIN', 16],
    ]);
    const moves = await dbQuery<{ kind: string; quantity: number; reason: string | null }>(
      `select m.kind, m.quantity, m.reason from stock_movement m join product p on p.organization_id = m.organization_id and p.id = m.product_id
        where m.organization_id = $1 and p.sku = $2 order by m.created_at`,
      [org.organizationId, sku],
    );
    expect(moves).toEqual([
      { kind: 'receipt', quantity: 10, reason: null },
      { kind: 'adjustment', quantity: 4, reason: 'count' },
      { kind: 'adjustment', quantity: 6, reason: 'quantityOnHand written on the product' },
    ]);
    // Bad entries: named, nothing written.
    const untracked = uniq('UNT-');
    await call('PUT', '/api/products', { ...A(), body: { sku: untracked, name: 'plain', quantityOnHand: 5 } });
    const bad = await put([
      { sku, location: 'MAIN', adjust: -2 },
      { sku: untracked, location: 'MAIN', receive: 1 },
      { sku, location: 'NOPE', receive: 1 },
      { sku, location: 'MAIN', receive: 1, adjust: 1, reason: 'x' },
    ]);
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['items[0].reason', 'items[1].sku', 'items[2].location', 'items[3]']);
    expect((await put([{ sku, location: 'EAST', adjust: -5, reason: 'damaged' }])).status).toBe(409);
    expect((await inventory(sku)).quantityOnHand).toBe(20);
    // Another organization cannot name these SKUs or locations.
    const foreign = await call('PUT', '/api/inventory', { base: other.base, token: other.adminToken, body: { items: [{ sku, location: main, receive: 1 }] } });
    expect(foreign.status).toBe(400);
    expect((await call('GET', `/api/products/${sku}/inventory`, { base: other.base, token: other.adminToken })).status).toBe(404);
    // An untracked product behaves as before: quantityOnHand is its own field, available null.
    expect((await call('GET', `/api/products/${untracked}`, A())).body).toMatchObject({ quantityOnHand: 5, trackInventory: false, available: null, backorder: false });
  });

  test('when a customer reads a tracked product, then it says what is available, or backorder with the lead time', async () => {
    await ensureLocations();
    const inStock = await trackedProduct();
    const onBackorder = await trackedProduct({ allowBackorder: true, leadTimeDays: 12 });
    await put([{ sku: inStock, location: 'MAIN', receive: 3 }]);
    const customerNumber = await pathParamFixtures.customerNumber(org);
    const token = await customerToken(org, { CustomerNumber: customerNumber, PriceTier: 'Retail', CurrencyCode: 'USD' });
    expect((await call('GET', `/api/products/${inStock}`, { base: org.base, token })).body).toMatchObject({ available: 3, backorder: false });
    expect((await call('GET', `/api/products/${onBackorder}`, { base: org.base, token })).body).toMatchObject({ available: 0, backorder: true, leadTimeDays: 12 });
    expect((await call('GET', `/api/products/${inStock}/inventory`, { base: org.base, token })).status).toBe(403);
  });
});

describe('reservations', () => {
  test('when orders take tracked lines, then they reserve by location priority in the order transaction, refuse what is short naming the line, backorder what the product allows, and a cancel releases once', async () => {
    const { main, east } = await ensureLocations();
    const sku = await trackedProduct();
    const bo = await trackedProduct({ allowBackorder: true, leadTimeDays: 5 });
    await put([
      { sku, location: 'MAIN', receive: 5 },
      { sku, location: 'EAST', receive: 2 },
      { sku: bo, location: 'MAIN', receive: 1 },
    ]);
    const plain = uniq('PLAIN-');
    const o1 = await call('POST', '/api/orders', { ...A(), body: orderBody([{ sku, quantity: 4 }, { sku: plain, quantity: 100 }, { sku: bo, quantity: 3 }]) });
    expect(o1.status).toBe(201);
    const orderId = o1.body.data.id;
    // EAST (priority 10) gives its 2 first, MAIN the rest.
    const levels = (await inventory(sku)).locations.map((l: { code: string; reserved: number; available: number }) => [l.code, l.reserved, l.available]);
    expect(levels).toEqual([
      ['EAST', 2, 0],
      ['MAIN', 2, 3],
    ]);
    const got = await call('GET', `/api/orders/${orderId}`, A());
    expect(got.body.items.map((i: { sku: string; backorderedQuantity?: number }) => [i.sku, i.backorderedQuantity ?? 0])).toEqual([
      [sku, 0],
      [plain, 0],
      [bo, 2],
    ]);
    expect((await inventory(bo)).reserved).toBe(1);
    // Short: 409 naming the line and what is available; nothing reserved.
    const short = await call('POST', '/api/orders', { ...A(), body: orderBody([{ sku: plain, quantity: 1 }, { sku, quantity: 4 }]) });
    expect(short.status).toBe(409);
    expect(short.body.errors).toEqual({ 'items[1]': [`${sku}: 4 requested, 3 available (the product does not allow backorders).`] });
    expect((await inventory(sku)).reserved).toBe(4);
    // An order with a tracked line follows its fulfillment: a direct status write is refused, naming the allowed moves.
    const direct = await call('PUT', `/api/orders/${orderId}`, { ...A(), body: { orderStatus: 'Cancelled' } });
    expect(direct.status).toBe(400);
    expect(direct.body.errors.orderStatus[0]).toMatch(/Allowed transitions/);
    // Cancelled (POST /cancel): what the order held is released, once.
    expect((await call('POST', `/api/orders/${orderId}/cancel`, { ...A(), body: { reason: 'customer changed plans' } })).status).toBe(200);
    expect((await inventory(sku)).reserved).toBe(0);
    expect((await inventory(bo)).reserved).toBe(0);
    expect((await call('POST', `/api/orders/${orderId}/cancel`, { ...A(), body: { reason: 'again' } })).status).toBe(409);
    const released = await dbQuery<{ n: number }>(`select count(*)::int as n from stock_movement where organization_id = $1 and order_id = $2 and kind = 'release'`, [org.organizationId, orderId]);
    expect(released[0].n).toBe(3);
    expect(main && east).toBeTruthy();
  });

  test('when a tracked order is shipped in part and the rest cancelled, then the shipment takes on hand and its reservation, the cancel releases the rest, and shipped units cannot be cancelled', async () => {
    await ensureLocations();
    const sku = await trackedProduct();
    await put([{ sku, location: 'MAIN', receive: 6 }]);
    const o = await call('POST', '/api/orders', { ...A(), body: orderBody([{ sku, quantity: 4 }]) });
    expect(o.status).toBe(201);
    const orderId = o.body.data.id;
    expect(await inventory(sku)).toMatchObject({ quantityOnHand: 6, reserved: 4 });
    const shipped = await call('POST', `/api/orders/${orderId}/shipments`, { ...A(), body: { lines: [{ sku, quantity: 3 }], carrier: 'UPS', trackingNumber: '1Z999' } });
    expect(shipped.status).toBe(201);
    expect(await inventory(sku)).toMatchObject({ quantityOnHand: 3, reserved: 1 });
    const order = (await call('GET', `/api/orders/${orderId}`, A())).body;
    expect(order).toMatchObject({ orderStatus: 'Processing', items: [{ sku, shippedQuantity: 3 }] });
    // Shipped units cannot be cancelled (409 naming them); the unshipped one can, and its reservation goes back.
    expect((await call('POST', `/api/orders/${orderId}/cancel`, { ...A(), body: { reason: 'too many', lines: [{ sku, quantity: 2 }] } })).status).toBe(409);
    expect((await call('POST', `/api/orders/${orderId}/cancel`, { ...A(), body: { reason: 'last one not needed', lines: [{ sku, quantity: 1 }] } })).status).toBe(200);
    expect(await inventory(sku)).toMatchObject({ quantityOnHand: 3, reserved: 0, available: 3 });
  });

  test('when 20 checkouts race for the last 5 units, then exactly 5 are reserved and the others are refused with 409 naming the line and what is available', async () => {
    await ensureLocations();
    const sku = await trackedProduct({ price: 7 });
    await put([{ sku, location: 'MAIN', receive: 3 }, { sku, location: 'EAST', receive: 2 }]);
    const carts = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const customerNumber = await pathParamFixtures.customerNumber(org);
        const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
        expect(c.status).toBe(201);
        const id = c.body.shoppingCartId as string;
        await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
        return { customerNumber, id };
      }),
    );
    const results = await Promise.all(
      carts.map((c) => call('POST', `/api/carts/${c.customerNumber}/${c.id}/complete-checkout`, { ...A(), body: { customerNumber: c.customerNumber, channel: 'Web', payment: card() } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(200), ...Array(15).fill(409)]);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body.errors['items[0]'][0]).toMatch(new RegExp(`^${sku}: 1 requested, 0 available`));
    }
    const inv = await inventory(sku);
    expect(inv).toMatchObject({ quantityOnHand: 5, reserved: 5, available: 0 });
    const reserved = await dbQuery<{ orders: number; units: number }>(
      `select count(distinct m.order_id)::int as orders, sum(m.quantity)::int as units from stock_movement m join product p on p.organization_id = m.organization_id and p.id = m.product_id
        where m.organization_id = $1 and p.sku = $2 and m.kind = 'reservation'`,
      [org.organizationId, sku],
    );
    expect(reserved[0]).toEqual({ orders: 5, units: 5 });
  });

  test('when a tracked product is checked out, then the order is fulfillment-managed from its insert and its fulfillOrder runs as the checkout workflow\'s child, not through the start outbox', async () => {
    await ensureLocations();
    const sku = await trackedProduct({ price: 9 });
    await put([{ sku, location: 'MAIN', receive: 4 }]);
    const customerNumber = await pathParamFixtures.customerNumber(org);
    const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
    expect(c.status).toBe(201);
    const cartId = c.body.shoppingCartId as string;
    await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
    const done = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: card() } });
    expect(done.status).toBe(200);
    const [o] = await dbQuery<{ id: string; managed: boolean }>(`select id, fulfillment_managed as managed from sales_order where organization_id = $1 and order_number = $2`, [org.organizationId, done.body.orderNumber]);
    expect(o.managed).toBe(true);
    // The start is the checkout's command: no outbox row was written for it (the relay would only delete it on its pass).
    expect(await dbQuery(`select 1 from workflow_start_outbox where workflow_id = $1`, [`fulfillment-${o.id}`])).toEqual([]);
    const connection = await Connection.connect({ address: stack.urls.temporal });
    try {
      const client = new Client({ connection, namespace: stack.env.production.TEMPORAL_NAMESPACE });
      let desc;
      for (let i = 0; i < 100 && !desc; i++) {
        desc = await client.workflow.getHandle(`fulfillment-${o.id}`).describe().catch(() => undefined);
        if (!desc) await new Promise((r) => setTimeout(r, 200));
      }
      expect(desc?.type).toBe('fulfillOrder');
      expect(desc?.parentExecution?.workflowId).toBe(`checkout-${cartId}`);
      expect(desc?.status.name).toBe('RUNNING');
    } finally {
      await connection.close();
    }
    expect(await inventory(sku)).toMatchObject({ quantityOnHand: 4, reserved: 2, available: 2 });
  });

  test('when a buyer accepts a quote of a tracked product, then the order reserves in its transaction; a quote the stock cannot serve is refused with 409 and stays Quoted', async () => {
    await ensureLocations();
    const sku = await trackedProduct({ price: 5 });
    await put([{ sku, location: 'MAIN', receive: 6 }]);
    const customerNumber = uniq('SQ');
    const repNumber = uniq('SR');
    const rep = await repToken(org, repNumber);
    await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', repNumber } });
    await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 100_000 } });
    const buyer = await customerToken(org, { CustomerNumber: customerNumber, PriceTier: 'Retail', CurrencyCode: 'USD' });
    const quote = async (quantity: number) => {
      const q = await call('POST', '/api/quotes', { base: org.base, token: buyer, body: { customerNumber, items: [{ sku, quantity }] } });
      expect(q.status).toBe(201);
      expect((await call('POST', `/api/quotes/${q.body.quoteId}/offers`, { base: org.base, token: rep, body: {} })).status).toBe(200);
      return q.body.quoteId as string;
    };
    const [small, big] = [await quote(4), await quote(3)];
    const ok = await call('POST', `/api/quotes/${small}/accept`, { base: org.base, token: buyer, body: { poNumber: 'PO-S1' } });
    expect(ok.status).toBe(200);
    const reserved = await dbQuery<{ n: number }>(`select coalesce(sum(quantity), 0)::int as n from stock_movement where organization_id = $1 and order_id = $2 and kind = 'reservation'`, [org.organizationId, ok.body.orderId]);
    expect(reserved[0].n).toBe(4);
    const refused = await call('POST', `/api/quotes/${big}/accept`, { base: org.base, token: buyer, body: { poNumber: 'PO-S2' } });
    expect(refused.status).toBe(409);
    expect(refused.body.errors['items[0]'][0]).toBe(`${sku}: 3 requested, 2 available (the product does not allow backorders).`);
    expect((await call('GET', `/api/quotes/${big}`, { base: org.base, token: buyer })).body.status).toBe('Quoted');
    expect((await inventory(sku)).reserved).toBe(4);
  });

  test('when an order ships (shipStock) and is released (releaseOrderStock), then on hand and its reservation fall at the location it used, untracked lines are ignored, and a second release releases nothing', async () => {
    const { east, main } = await ensureLocations();
    const sku = await trackedProduct();
    await put([{ sku, location: 'EAST', receive: 3 }, { sku, location: 'MAIN', receive: 10 }]);
    const plain = uniq('PLAIN-');
    const o = await call('POST', '/api/orders', { ...A(), body: orderBody([{ sku, quantity: 5 }, { sku: plain, quantity: 1 }]) });
    expect(o.status).toBe(201);
    const orderId = o.body.data.id as string;
    const shipped = await inServiceTransaction((sql) => shipStock(sql, org.organizationId, orderId, [{ sku, quantity: 2 }, { sku: plain, quantity: 1 }]));
    // EAST holds 3 of the order's 5 reserved: the shipment leaves from there.
    expect(shipped).toEqual([
      { sku, quantity: 2, locationId: east },
      { sku: plain, quantity: 1, locationId: null },
    ]);
    let levels = (await inventory(sku)).locations.map((l: { code: string; onHand: number; reserved: number }) => [l.code, l.onHand, l.reserved]);
    expect(levels).toEqual([
      ['EAST', 1, 1],
      ['MAIN', 10, 2],
    ]);
    // Naming a location: MAIN; 1 more than its reservation of this order comes from its unreserved stock.
    expect(await inServiceTransaction((sql) => shipStock(sql, org.organizationId, orderId, [{ sku, quantity: 3, locationId: main }]))).toEqual([{ sku, quantity: 3, locationId: main }]);
    levels = (await inventory(sku)).locations.map((l: { code: string; onHand: number; reserved: number }) => [l.code, l.onHand, l.reserved]);
    expect(levels).toEqual([
      ['EAST', 1, 1],
      ['MAIN', 7, 0],
    ]);
    const first = await inServiceTransaction((sql) => releaseOrderStock(sql, org.organizationId, orderId));
    expect(first).toEqual([{ sku, locationId: east, quantity: 1 }]);
    expect(await inServiceTransaction((sql) => releaseOrderStock(sql, org.organizationId, orderId))).toEqual([]);
    expect(await inventory(sku)).toMatchObject({ quantityOnHand: 8, reserved: 0, available: 8 });
    // Another organization's location is a 404; nothing is written.
    await expect(inServiceTransaction((sql) => shipStock(sql, org.organizationId, orderId, [{ sku, quantity: 1, locationId: '00000000-0000-4000-8000-000000000000' }]))).rejects.toMatchObject({ kind: 'not_found' });
    expect((await inventory(sku)).quantityOnHand).toBe(8);
  });

  test('when a product is not tracked, then checkout and orders write no stock movement (as before)', async () => {
    const sku = uniq('PL-');
    await call('PUT', '/api/products', { ...A(), body: { sku, name: 'plain', quantityOnHand: 1, prices: [{ tier: 'Retail', price: 3, atQuantity: 1 }] } });
    const o = await call('POST', '/api/orders', { ...A(), body: orderBody([{ sku, quantity: 50 }]) });
    expect(o.status).toBe(201);
    const n = await dbQuery<{ n: number }>('select count(*)::int as n from stock_movement where organization_id = $1 and order_id = $2', [org.organizationId, o.body.data.id]);
    expect(n[0].n).toBe(0);
    expect((await call('GET', `/api/products/${sku}`, A())).body.quantityOnHand).toBe(1);
  });
});
