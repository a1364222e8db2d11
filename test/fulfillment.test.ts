/**
 * Shipments and the order's fulfillment over HTTP against the real stack (docs/fulfillment.md):
 * partial shipments to Complete by delivery confirmation, the auto-complete timer
 * (FULFILLMENT_AUTO_COMPLETE_DAYS is 12 seconds on the test stack), illegal status moves, who may
 * ship and read, webhooks exactly once, the shipment e-mail with tracking, the timeline, and the
 * fulfillOrder workflow found under the tenant's filter by its business keys (shipment numbers).
 */
import { Client, Connection } from '@temporalio/client';
import { call, createOrg, customerToken, dbQuery, expectProblem, repToken, stack, uniq, waitForMail, type OrgFixture } from './support/helpers';

jest.setTimeout(150_000);

let org: OrgFixture;
let other: OrgFixture;
let connection: Connection;
let client: Client;
const A = () => ({ base: org.base, token: org.adminToken });
const as = (token: string) => ({ base: org.base, token });

interface Party {
  customerNumber: string;
  email: string;
  buyer: string;
  rep: string;
}

async function party(): Promise<Party> {
  const customerNumber = uniq('FC');
  const repNumber = uniq('FR');
  const email = `${customerNumber.toLowerCase()}@example.com`;
  const rep = await repToken(org, repNumber);
  const c = await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: email, pricing: 'Retail', repNumber } });
  if (c.status !== 201 && c.status !== 200) throw new Error(`customer: ${c.status} ${c.text}`);
  const buyer = await customerToken(org, { CustomerNumber: customerNumber, PriceTier: 'Retail', CurrencyCode: 'USD' });
  return { customerNumber, email, buyer, rep };
}

async function placeOrder(p: Party): Promise<{ id: string; orderNumber: string }> {
  const res = await call('POST', '/api/orders', {
    ...A(),
    body: {
      customer: { customerNumber: p.customerNumber, companyName: `Company ${p.customerNumber}`, companyEmail: p.email },
      orderType: 'Direct',
      poNumber: uniq('PO'),
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber: 'R1' },
      items: [
        { sku: 'A', productName: 'Widget', quantity: 3, price: 10 },
        { sku: 'B', productName: 'Gadget', quantity: 1, price: 20 },
      ],
      user: { userId: 'u-1', userType: 'Admin' },
    },
  });
  if (res.status !== 201) throw new Error(`order: ${res.status} ${res.text}`);
  return res.body.data;
}

const ship = (token: string, orderId: string, body: Record<string, unknown>) => call('POST', `/api/orders/${orderId}/shipments`, { ...as(token), body });
const orderOf = async (orderId: string) => (await call('GET', `/api/orders/${orderId}`, A())).body;
const events = async (orderId: string) =>
  (
    await dbQuery<{ type: string }>(
      `select type from webhook_event where organization_id = $1 and data->>'orderId' = $2 and type in ('shipment.created', 'order.shipped', 'order.completed') order by occurred_at, type`,
      [org.organizationId, orderId],
    )
  ).map((r) => r.type);

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 40_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 500));
  }
}

let p1: Party;
let p2: Party;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
  const t = await call('POST', '/api/organizations/price-tiers', { ...A(), body: { Name: 'Retail', CurrencyCode: 'USD' } });
  if (t.status !== 200 && t.status !== 409) throw new Error(`tier: ${t.status} ${t.text}`);
  [p1, p2] = [await party(), await party()];
  connection = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection, namespace: 'default' });
});
afterAll(async () => {
  await connection?.close();
});

describe('fulfillment', () => {
  test('when an order ships in two parts and both deliveries are confirmed, then Processing -> Shipped -> Complete, with webhooks once, e-mails, timeline and business keys', async () => {
    const o = await placeOrder(p1);
    // The rep of the order's customer ships part of line A.
    const first = await ship(p1.rep, o.id, { lines: [{ sku: 'A', quantity: 2 }], carrier: 'UPS', trackingNumber: '1Z999', trackingUrl: 'https://track.example/1Z999' });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe(`/api/orders/${o.id}/shipments/${first.body.id}`);
    expect(first.body).toMatchObject({ orderId: o.id, orderNumber: o.orderNumber, shipmentNumber: expect.stringMatching(/^SH-\d{6}$/), status: 'Shipped', carrier: 'UPS', trackingNumber: '1Z999', lines: [{ sku: 'A', quantity: 2 }], orderStatus: 'Processing', deliveredAt: null });
    let order = await orderOf(o.id);
    expect(order.orderStatus).toBe('Processing');
    expect(order.items.map((i: { sku: string; shippedQuantity: number }) => [i.sku, i.shippedQuantity])).toEqual([['A', 2], ['B', 0]]);

    // More than remains, an unknown SKU: 400 naming the lines; nothing written.
    const over = await ship(p1.rep, o.id, { lines: [{ sku: 'A', quantity: 2 }, { sku: 'ZZ', quantity: 1 }] });
    expectProblem(over, 400);
    expect(Object.keys(over.body.errors).sort()).toEqual(['lines[0].quantity', 'lines[1].sku']);
    // A direct status write on an order with a shipment: 400 naming the allowed transitions.
    const direct = await call('PUT', `/api/orders/${o.id}`, { ...A(), body: { orderStatus: 'Shipped' } });
    expectProblem(direct, 400);
    expect(direct.body.errors.orderStatus[0]).toMatch(/Allowed transitions: Pending -> Processing.*Processing -> Shipped.*Shipped -> Complete/);
    expect((await call('PUT', `/api/orders/${o.id}`, { ...A(), body: { orderStatus: 'Cancelled' } })).status).toBe(400);
    // Who may ship: not the customer, not another rep, not another organization.
    expect((await ship(p1.buyer, o.id, { lines: [{ sku: 'B', quantity: 1 }] })).status).toBe(403);
    expect((await ship(p2.rep, o.id, { lines: [{ sku: 'B', quantity: 1 }] })).status).toBe(404);
    expect((await call('POST', `/api/orders/${o.id}/shipments`, { base: other.base, token: other.adminToken, body: { lines: [{ sku: 'B', quantity: 1 }] } })).status).toBe(404);
    expect((await orderOf(o.id)).items.map((i: { shippedQuantity: number }) => i.shippedQuantity)).toEqual([2, 0]);

    const second = await ship(org.adminToken, o.id, { lines: [{ sku: 'A', quantity: 1 }, { sku: 'B', quantity: 1 }], carrier: 'DHL', trackingNumber: 'JD0002' });
    expect(second.status).toBe(201);
    expect(second.body.orderStatus).toBe('Shipped');
    expect(Number(second.body.shipmentNumber.slice(3))).toBe(Number(first.body.shipmentNumber.slice(3)) + 1);
    order = await orderOf(o.id);
    expect(order.orderStatus).toBe('Shipped');
    expect(order.items.map((i: { shippedQuantity: number }) => i.shippedQuantity)).toEqual([3, 1]);
    expectProblem(await ship(org.adminToken, o.id, { lines: [{ sku: 'A', quantity: 1 }] }), 409);

    // Readers: the customer sees its order's shipments; another customer and another organization do not.
    const list = await call('GET', `/api/orders/${o.id}/shipments`, as(p1.buyer));
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ TotalCount: 2, PageNumber: 1 });
    expect(list.body.Data.map((s: { id: string }) => s.id)).toEqual([first.body.id, second.body.id]);
    expect((await call('GET', `/api/orders/${o.id}/shipments`, as(p2.buyer))).status).toBe(404);
    expect((await call('GET', `/api/orders/${o.id}/shipments/${first.body.id}`, { base: other.base, token: other.adminToken })).status).toBe(404);
    expect((await call('POST', `/api/orders/${o.id}/shipments/${first.body.id}/delivered`, as(p2.buyer))).status).toBe(404);

    // Each shipment's e-mail reaches the buyer with its tracking.
    const mail = await waitForMail(p1.email, (m) => m.subject.includes(first.body.shipmentNumber));
    expect(mail.text).toContain('1Z999');
    expect(mail.text).toContain('https://track.example/1Z999');
    await waitForMail(p1.email, (m) => m.subject.includes(second.body.shipmentNumber) && m.text.includes('JD0002'));

    // The first delivery leaves the order Shipped; the last completes it.
    const d1 = await call('POST', `/api/orders/${o.id}/shipments/${first.body.id}/delivered`, as(p1.buyer));
    expect(d1.status).toBe(200);
    expect(d1.body).toMatchObject({ status: 'Delivered', deliveredAt: expect.any(String), orderStatus: 'Shipped' });
    const d2 = await call('POST', `/api/orders/${o.id}/shipments/${second.body.id}/delivered`, as(p1.rep));
    expect(d2.status).toBe(200);
    expect(d2.body.orderStatus).toBe('Complete');
    expect((await orderOf(o.id)).orderStatus).toBe('Complete');
    // Repeating a confirmation changes nothing.
    const again = await call('POST', `/api/orders/${o.id}/shipments/${second.body.id}/delivered`, A());
    expect(again.body).toMatchObject({ status: 'Delivered', deliveredAt: d2.body.deliveredAt, orderStatus: 'Complete' });

    // Webhook events exactly once each.
    expect((await events(o.id)).sort()).toEqual(['order.completed', 'order.shipped', 'shipment.created', 'shipment.created']);

    // The workflow carries the tenant's keys and the shipment numbers, and is found by them under the tenant's filter only.
    const wfId = `fulfillment-${o.id}`;
    const desc = await waitFor(() => client.workflow.getHandle(wfId).describe(), (d) => d.status.name === 'COMPLETED');
    expect(desc.status.name).toBe('COMPLETED');
    expect(desc.searchAttributes).toMatchObject({ OrganizationId: [org.organizationId], CustomerNumber: [p1.customerNumber], OrderNumber: [o.orderNumber] });
    expect([...(desc.searchAttributes.BusinessKeys as string[])].sort()).toEqual([first.body.shipmentNumber, second.body.shipmentNumber].sort());
    const found = async (orgId: string, key: string) => {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query: `OrganizationId = '${orgId}' AND BusinessKeys = '${key}'` })) ids.push(wf.workflowId);
      return ids;
    };
    expect(await waitFor(() => found(org.organizationId, second.body.shipmentNumber), (ids) => ids.length > 0)).toEqual([wfId]);
    expect(await found(other.organizationId, second.body.shipmentNumber)).toEqual([]);

    // The order's timeline shows the fulfillment workflow's steps and the shipment e-mails.
    const tl = await call('GET', `/api/orders/${o.id}/timeline`, as(p1.buyer));
    expect(tl.status).toBe(200);
    const steps = tl.body.Steps as { WorkflowType: string; WorkflowId: string; Step: string; Outcome: string }[];
    expect(steps).toEqual(expect.arrayContaining([
      expect.objectContaining({ WorkflowId: wfId, Step: 'fulfillOrder', Outcome: 'started' }),
      expect.objectContaining({ WorkflowId: wfId, Step: 'syncFulfillment', Outcome: 'completed' }),
      expect.objectContaining({ WorkflowId: wfId, Step: 'update deliveryConfirmed', Outcome: 'completed' }),
      expect.objectContaining({ WorkflowId: wfId, Step: 'fulfillOrder', Outcome: 'completed' }),
      expect.objectContaining({ WorkflowId: `email-shipment-${first.body.id}`, WorkflowType: 'sendEmail' }),
      expect.objectContaining({ WorkflowId: `email-shipment-${second.body.id}`, WorkflowType: 'sendEmail' }),
    ]));
  });

  test('when a fully shipped order gets no delivery confirmation, then the workflow timer completes it once', async () => {
    const o = await placeOrder(p2);
    const s = await ship(p2.rep, o.id, { lines: [{ sku: 'A', quantity: 3 }, { sku: 'B', quantity: 1 }] });
    expect(s.status).toBe(201);
    expect(s.body.orderStatus).toBe('Shipped');
    const done = await waitFor(() => orderOf(o.id), (x) => x.orderStatus === 'Complete', 60_000);
    expect(done.orderStatus).toBe('Complete');
    expect((await events(o.id)).sort()).toEqual(['order.completed', 'order.shipped', 'shipment.created']);
    const tl = await call('GET', `/api/orders/${o.id}/timeline`, A());
    expect(tl.body.Steps).toEqual(expect.arrayContaining([expect.objectContaining({ WorkflowId: `fulfillment-${o.id}`, Step: 'timer', Outcome: 'fired' })]));
  });

  test('when an order has no shipment, then orderStatus writes follow SPEC as before; a Cancelled order cannot ship', async () => {
    const o = await placeOrder(p1);
    expect((await call('PUT', `/api/orders/${o.id}`, { ...A(), body: { orderStatus: 'Processing' } })).body.orderStatus).toBe('Processing');
    expect((await call('PUT', `/api/orders/${o.id}`, { ...A(), body: { orderStatus: 'Cancelled' } })).body.orderStatus).toBe('Cancelled');
    expectProblem(await ship(org.adminToken, o.id, { lines: [{ sku: 'A', quantity: 1 }] }), 409);
    expect(await events(o.id)).toEqual([]);
    expect((await call('GET', `/api/orders/${o.id}/shipments`, A())).body.TotalCount).toBe(0);
  });

  test('when the body is malformed, then 400 names every bad field', async () => {
    const o = await placeOrder(p1);
    const res = await ship(org.adminToken, o.id, { lines: [{ sku: 'A', quantity: 0 }], trackingUrl: 'javascript:alert(1)', locationId: 'nope' });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['lines[0].quantity', 'locationId', 'trackingUrl']);
  });
});
