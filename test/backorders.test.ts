/**
 * Backorders that wait for stock (issue 41 item 3; docs/fulfillment.md "Backorders") over HTTP
 * against the real stack: lines placed on backorder wait in their order's fulfillOrder workflow;
 * a receipt allocates the waiting lines of all orders oldest first, once (also for two receipts at
 * the same time); the buyer's e-mail per allocation, the webhooks order.backordered and
 * order.allocated once each, Processing once nothing waits, and the admins' escalation e-mail when
 * an order waits longer than the organization's limit. The ledger identity after every scenario.
 */
import { call, createOrg, dbQuery, mailsFor, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { expectLedgerIdentity, placeDirectOrder } from './support/stock-ledger';

jest.setTimeout(180_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
  const main = await call('POST', '/api/stock-locations', { base: org.base, token: org.adminToken, body: { name: 'Main warehouse', code: 'MAIN', priority: 20 } });
  expect(main.status).toBe(201);
});
afterEach(async () => {
  await expectLedgerIdentity(org.organizationId);
});
const A = () => ({ base: org.base, token: org.adminToken });

async function backorderableProduct(): Promise<string> {
  const sku = uniq('BO-');
  const res = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Backorderable ${sku}`, trackInventory: true, allowBackorder: true, leadTimeDays: 10 } });
  expect(res.status).toBe(201);
  return sku;
}

const place = (sku: string, quantity: number) => placeDirectOrder(A(), sku, quantity);

const receive = (sku: string, quantity: number) => call('PUT', '/api/inventory', { ...A(), body: { items: [{ sku, location: 'MAIN', receive: quantity, reference: uniq('PO-') }] } });
const order = async (id: string) => (await call('GET', `/api/orders/${id}`, A())).body;
const waiting = async (id: string) => ((await order(id)).items as { backorderedQuantity?: number }[]).reduce((n, i) => n + (i.backorderedQuantity ?? 0), 0);
const inventory = async (sku: string) => (await call('GET', `/api/products/${sku}/inventory`, A())).body;
const events = async (type: string, orderId: string) =>
  dbQuery<{ data: Record<string, unknown> }>(`select data from webhook_event where organization_id = $1 and type = $2 and data->>'orderId' = $3 order by occurred_at, id`, [
    org.organizationId,
    type,
    orderId,
  ]);
/** The order's reservation movements (what the allocations and the placement reserved). */
const reservedFor = async (orderId: string) =>
  Number(
    (
      await dbQuery<{ q: string }>(`select coalesce(sum(quantity), 0) as q from stock_movement where organization_id = $1 and order_id = $2 and kind = 'reservation'`, [
        org.organizationId,
        orderId,
      ])
    )[0].q,
  );

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 40_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

test('when a receipt smaller than two waiting orders arrives, then the older order gets it; a second receipt serves both; each order ends Processing with its webhooks and e-mails once', async () => {
  const sku = await backorderableProduct();
  const older = await place(sku, 5);
  await new Promise((r) => setTimeout(r, 20));
  const newer = await place(sku, 5);
  expect([await waiting(older.id), await waiting(newer.id)]).toEqual([5, 5]);
  expect((await order(older.id)).orderStatus).toBe('Pending');
  expect((await events('order.backordered', older.id)).map((e) => e.data)).toEqual([
    expect.objectContaining({ orderNumber: older.orderNumber, lines: [{ sku, quantity: 5, backorderedQuantity: 5 }] }),
  ]);

  expect((await receive(sku, 3)).status).toBe(200);
  expect(await waitFor(() => waiting(older.id), (n) => n === 2)).toBe(2);
  // The relay and the workflow are done with this receipt once its request row is gone.
  await waitFor(
    () => dbQuery(`select 1 from backorder_allocation_request where organization_id = $1`, [org.organizationId]),
    (r) => r.length === 0,
  );
  expect(await waiting(newer.id)).toBe(5);
  expect(await reservedFor(older.id)).toBe(3);
  expect(await reservedFor(newer.id)).toBe(0);
  expect(await inventory(sku)).toMatchObject({ quantityOnHand: 3, reserved: 3, available: 0 });
  expect((await order(older.id)).orderStatus).toBe('Pending');

  expect((await receive(sku, 10)).status).toBe(200);
  expect(await waitFor(() => waiting(newer.id), (n) => n === 0)).toBe(0);
  expect(await waiting(older.id)).toBe(0);
  expect(await inventory(sku)).toMatchObject({ quantityOnHand: 13, reserved: 10, available: 3 });
  expect([await reservedFor(older.id), await reservedFor(newer.id)]).toEqual([5, 5]);
  expect((await order(older.id)).orderStatus).toBe('Processing');
  expect((await order(newer.id)).orderStatus).toBe('Processing');
  expect((await events('order.allocated', older.id)).map((e) => [e.data.allocatedQuantity, e.data.backorderedQuantity, e.data.fullyAllocated, e.data.orderStatus])).toEqual([
    [3, 2, false, 'Pending'],
    [2, 0, true, 'Processing'],
  ]);
  expect((await events('order.allocated', newer.id)).map((e) => [e.data.allocatedQuantity, e.data.backorderedQuantity, e.data.fullyAllocated])).toEqual([[5, 0, true]]);
  expect(await events('order.backordered', newer.id)).toHaveLength(1);

  // The buyer's e-mail per allocation, sent by the order's fulfillOrder workflow (once each).
  await waitForMail(older.email, (m) => m.subject.includes('2 ×'));
  await waitForMail(newer.email, (m) => m.subject.includes('5 ×'));
  await new Promise((r) => setTimeout(r, 1500));
  const olderMails = (await mailsFor(older.email)).filter((m) => m.subject.includes('reserved for you'));
  expect(olderMails.map((m) => m.subject).sort()).toEqual([`Order ${older.orderNumber}: 2 × ${sku} now reserved for you`, `Order ${older.orderNumber}: 3 × ${sku} now reserved for you`]);
  expect((await mailsFor(newer.email)).filter((m) => m.subject.includes('reserved for you'))).toHaveLength(1);
});

test('when two receipts arrive at the same time for four waiting orders, then exactly the received units are allocated, oldest orders first, nothing twice', async () => {
  const sku = await backorderableProduct();
  const orders: Awaited<ReturnType<typeof place>>[] = [];
  for (let i = 0; i < 4; i++) {
    orders.push(await place(sku, 3));
    await new Promise((r) => setTimeout(r, 20));
  }
  const [r1, r2] = await Promise.all([receive(sku, 5), receive(sku, 5)]);
  expect([r1.status, r2.status]).toEqual([200, 200]);
  const left = await waitFor(
    async () => Promise.all(orders.map((o) => waiting(o.id))),
    (w) => w.reduce((a, b) => a + b, 0) === 2,
  );
  expect(left).toEqual([0, 0, 0, 2]);
  expect(await Promise.all(orders.map((o) => reservedFor(o.id)))).toEqual([3, 3, 3, 1]);
  await waitFor(
    () => dbQuery(`select 1 from backorder_allocation_request where organization_id = $1`, [org.organizationId]),
    (r) => r.length === 0,
  );
  expect(await inventory(sku)).toMatchObject({ quantityOnHand: 10, reserved: 10, available: 0 });
  const allocated = await dbQuery<{ q: string }>(`select coalesce(sum(a.quantity), 0) as q from backorder_allocation a where a.organization_id = $1 and a.sku = $2`, [org.organizationId, sku]);
  expect(Number(allocated[0].q)).toBe(10);
  expect((await order(orders[3].id)).orderStatus).toBe('Pending');
  expect((await order(orders[0].id)).orderStatus).toBe('Processing');
});

test('when an order waits longer than the organization allows, then the admins get the escalation e-mail once; an order served in time is not escalated', async () => {
  // Three "days" of BACKORDER_ESCALATION_DAY (2 seconds on the test stack).
  const set = await call('PUT', '/api/organizations/fulfillment-settings', { ...A(), body: { backorderEscalationDays: 3 } });
  expect(set.status).toBe(200);
  expect(set.body).toEqual({ backorderEscalationDays: 3, buyersMayCancel: false, invoiceOn: 'order' });
  expect((await call('GET', '/api/organizations/fulfillment-settings', A())).body).toEqual({ backorderEscalationDays: 3, buyersMayCancel: false, invoiceOn: 'order' });
  const bad = await call('PUT', '/api/organizations/fulfillment-settings', { ...A(), body: { backorderEscalationDays: 0 } });
  expect(bad.status).toBe(400);
  expect(Object.keys(bad.body.errors)).toEqual(['backorderEscalationDays']);
  try {
    const sku = await backorderableProduct();
    const late = await place(sku, 2);
    const served = await place(await backorderableProduct(), 1);
    expect((await receive((await order(served.id)).items[0].sku, 1)).status).toBe(200);
    expect(await waitFor(() => waiting(served.id), (n) => n === 0, 5000)).toBe(0);
    const mail = await waitForMail(org.adminEmail, (m) => m.subject.includes(late.orderNumber), 40_000);
    expect(mail.subject).toBe(`Order ${late.orderNumber} has waited 3 day(s) for stock`);
    expect(mail.text).toContain('2 unit(s) on backorder');
    await new Promise((r) => setTimeout(r, 5000));
    const admin = await mailsFor(org.adminEmail);
    expect(admin.filter((m) => m.subject.includes(late.orderNumber))).toHaveLength(1);
    expect(admin.filter((m) => m.subject.includes(served.orderNumber))).toHaveLength(0);
  } finally {
    await call('PUT', '/api/organizations/fulfillment-settings', { ...A(), body: { backorderEscalationDays: 7 } });
  }
});
