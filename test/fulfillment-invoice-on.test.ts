/**
 * The rest of issue 41 over HTTP against the real stack (docs/fulfillment.md): on-account orders
 * invoiced per shipment (`invoiceOn: shipment`); the order import and POST /api/orders/bulk obey the
 * status machine of fulfillment-managed orders; units freed by a cancellation reach waiting
 * backorder lines without a receipt.
 */
import { call, createOrg, dbQuery, uniq, type OrgFixture } from './support/helpers';
import { errorsOf, runJson } from './support/import-helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { expectLedgerIdentity, placeDirectOrder } from './support/stock-ledger';

jest.setTimeout(180_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
  const main = await call('POST', '/api/stock-locations', { base: org.base, token: org.adminToken, body: { name: 'Main warehouse', code: 'MAIN', priority: 10 } });
  expect(main.status).toBe(201);
});
afterAll(async () => {
  await expectLedgerIdentity(org.organizationId);
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 40_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function product(body: Record<string, unknown>): Promise<string> {
  const sku = uniq('IO-');
  const res = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Product ${sku}`, ...body } });
  expect(res.status).toBe(201);
  return sku;
}

/** An on-account checkout of `lines` for the customer; answers the order (id, number, total). */
async function checkoutOnAccount(customerNumber: string, lines: { sku: string; quantity: number }[]) {
  const [first, ...rest] = lines;
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku: first.sku, quantity: first.quantity, orderType: 'Standard' } });
  expect(c.status).toBe(201);
  const id = c.body.shoppingCartId as string;
  for (const l of rest) expect((await call('POST', `/api/carts/${customerNumber}/${id}/items`, { ...A(), body: { customerNumber, sku: l.sku, quantity: l.quantity } })).status).toBeLessThan(300);
  await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
  const done = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: { method: 'OnAccount' } } });
  expect(done.status).toBe(200);
  const [o] = await dbQuery<{ id: string; total: string }>(`select id, total::text as total from sales_order where organization_id = $1 and order_number = $2`, [org.organizationId, done.body.orderNumber]);
  return { id: o.id, orderNumber: done.body.orderNumber as string, total: Number(o.total) };
}

const invoicesOf = async (orderId: string) => (await call('GET', `/api/invoices?orderId=${orderId}&pageSize=50`, A())).body.items as any[];
const openBalance = async (customerNumber: string) => (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body.openBalance as number;
const ship = (orderId: string, lines: { sku: string; quantity: number }[]) => call('POST', `/api/orders/${orderId}/shipments`, { ...A(), body: { lines, carrier: 'UPS' } });
const setInvoiceOn = (invoiceOn: string) => call('PUT', '/api/organizations/fulfillment-settings', { ...A(), body: { invoiceOn } });

describe('invoiceOn', () => {
  test('when the organization invoices on shipment, then an on-account order gets no invoice at placement and each of two partial shipments issues one for its lines; they add up to the order total', async () => {
    // The default: invoiced when placed, as always.
    const settings = await call('GET', '/api/organizations/fulfillment-settings', A());
    expect(settings.status).toBe(200);
    expect(settings.body.invoiceOn).toBe('order');
    const { customerNumber, sku: a } = await customerWithProduct(org, { price: 12.5 });
    const b = await product({ prices: [{ tier: 'Retail', price: 7.25, atQuantity: 1 }] });
    expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 1000 } })).status).toBe(200);
    const placedBefore = await checkoutOnAccount(customerNumber, [{ sku: a, quantity: 1 }]);
    expect((await invoicesOf(placedBefore.id)).map((i) => i.total)).toEqual([12.5]);

    expectProblemField(await setInvoiceOn('monthly'), 'invoiceOn');
    const set = await setInvoiceOn('shipment');
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ invoiceOn: 'shipment' });

    const order = await checkoutOnAccount(customerNumber, [
      { sku: a, quantity: 3 },
      { sku: b, quantity: 2 },
    ]);
    expect(order.total).toBe(52);
    // Not invoiced at placement; the order still counts against the credit limit.
    expect(await invoicesOf(order.id)).toEqual([]);
    expect(await openBalance(customerNumber)).toBe(12.5 + 52);

    const first = await ship(order.id, [{ sku: a, quantity: 2 }]);
    expect(first.status).toBe(201);
    const one = await invoicesOf(order.id);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ status: 'Issued', total: 25 });
    expect(one[0].items.map((i: any) => [i.sku, i.quantity, i.price])).toEqual([[a, 2, 12.5]]);
    // What is invoiced and what is not yet: the balance is the same.
    expect(await openBalance(customerNumber)).toBe(12.5 + 52);

    const second = await ship(order.id, [
      { sku: a, quantity: 1 },
      { sku: b, quantity: 2 },
    ]);
    expect(second.status).toBe(201);
    expect(second.body.orderStatus).toBe('Shipped');
    const two = await invoicesOf(order.id);
    expect(two).toHaveLength(2);
    const later = two.find((i) => i.id !== one[0].id);
    expect(later).toMatchObject({ status: 'Issued', total: 27 });
    expect(later.items.map((i: any) => [i.sku, i.quantity, i.price]).sort()).toEqual(
      [
        [a, 1, 12.5],
        [b, 2, 7.25],
      ].sort(),
    );
    expect(two.reduce((s, i) => s + i.total, 0)).toBe(order.total);
    expect(await openBalance(customerNumber)).toBe(12.5 + 52);

    // Issued through the issuance workflow as every invoice: the stored PDF.
    for (const inv of two) {
      const pdf = await waitFor(
        () => fetch(`${org.base}/api/invoices/${inv.id}/pdf`, { headers: { authorization: `Bearer ${org.adminToken}` } }).then((r) => r.status),
        (s) => s === 200,
      );
      expect(pdf).toBe(200);
    }
    expect((await setInvoiceOn('order')).body.invoiceOn).toBe('order');
  });

  test('when units of an order invoiced per shipment come back, then the credit note credits the invoice of the shipment that carried them (latest first, one note per invoice) and is applied to it, and the open balance and statement show each invoice\'s balance', async () => {
    const { customerNumber, sku: a } = await customerWithProduct(org, { price: 12.5 });
    const b = await product({ prices: [{ tier: 'Retail', price: 7.25, atQuantity: 1 }] });
    expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 1000 } })).status).toBe(200);
    expect((await setInvoiceOn('shipment')).status).toBe(200);
    try {
      const order = await checkoutOnAccount(customerNumber, [
        { sku: a, quantity: 3 },
        { sku: b, quantity: 2 },
      ]);
      expect((await ship(order.id, [{ sku: a, quantity: 2 }])).status).toBe(201);
      const [first] = await invoicesOf(order.id);
      expect((await ship(order.id, [{ sku: a, quantity: 1 }, { sku: b, quantity: 2 }])).status).toBe(201);
      const second = (await invoicesOf(order.id)).find((i) => i.id !== first.id);
      expect([first.total, second.total]).toEqual([25, 27]);

      // One A back: the second shipment carried one, so its invoice is credited, and the note pays it.
      const one = await returnCredited(order.id, [{ sku: a, quantity: 1 }]);
      const note = (await call('GET', `/api/credit-notes/${one.creditNoteId}`, A())).body;
      expect(note).toMatchObject({ invoiceId: second.id, invoiceNumber: second.invoiceNumber, amount: 12.5, source: 'Return', status: 'Applied' });
      expect(note.lines.map((l: any) => [l.sku, l.quantity])).toEqual([[a, 1]]);
      expect(note.applications.map((x: any) => [x.invoiceId, x.amount])).toEqual([[second.id, 12.5]]);
      expect(await balances(order.id)).toEqual({ [first.invoiceNumber]: 25, [second.invoiceNumber]: 14.5 });
      expect(await openBalance(customerNumber)).toBe(39.5);

      // Another A and a B: the second invoice's A is credited already, so that A is the first invoice's; the B is the second's.
      const two = await returnCredited(order.id, [
        { sku: a, quantity: 1 },
        { sku: b, quantity: 1 },
      ]);
      const notes = (await call('GET', `/api/credit-notes?orderId=${order.id}&pageSize=50`, A())).body.Data as any[];
      const ofTwo = notes.filter((n) => n.creditNoteId !== one.creditNoteId);
      expect(ofTwo.map((n) => [n.invoiceId, n.amount, n.lines.map((l: any) => [l.sku, l.quantity]), n.applications.map((x: any) => [x.invoiceId, x.amount])]).sort()).toEqual(
        [
          [second.id, 7.25, [[b, 1]], [[second.id, 7.25]]],
          [first.id, 12.5, [[a, 1]], [[first.id, 12.5]]],
        ].sort(),
      );
      expect(ofTwo.map((n) => n.creditNoteId)).toContain(two.creditNoteId);
      expect(await balances(order.id)).toEqual({ [first.invoiceNumber]: 12.5, [second.invoiceNumber]: 7.25 });
      expect(await openBalance(customerNumber)).toBe(19.75);
      const statement = (await call('GET', `/api/customers/${customerNumber}/statement`, A())).body;
      expect(statement.invoices.map((i: any) => [i.invoiceNumber, i.balance]).sort()).toEqual(
        [
          [first.invoiceNumber, 12.5],
          [second.invoiceNumber, 7.25],
        ].sort(),
      );
      expect(statement).toMatchObject({ unappliedCredit: 0, totalDue: 19.75, credits: [] });
    } finally {
      expect((await setInvoiceOn('order')).body.invoiceOn).toBe('order');
    }
  });
});

describe('fulfillment settings', () => {
  test('when the settings are written with a stale If-Match, then 412 naming the current ETag and nothing changes; with the current tag the write runs', async () => {
    const path = '/api/organizations/fulfillment-settings';
    const read = await call('GET', path, A());
    const tag = read.headers.get('etag')!;
    expect(tag).toMatch(/^"v-/);
    // Another admin changes them first: the tag read before is stale.
    const days = read.body.backorderEscalationDays === 9 ? 8 : 9;
    expect((await call('PUT', path, { ...A(), body: { backorderEscalationDays: days } })).status).toBe(200);
    const stale = await call('PUT', path, { ...A(), body: { backorderEscalationDays: 30, buyersMayCancel: !read.body.buyersMayCancel }, headers: { 'If-Match': tag } });
    expect(stale.status).toBe(412);
    const current = await call('GET', path, A());
    expect(stale.body.detail).toContain(current.headers.get('etag'));
    expect(current.body).toEqual({ ...read.body, backorderEscalationDays: days });
    const fresh = await call('PUT', path, { ...A(), body: { backorderEscalationDays: read.body.backorderEscalationDays }, headers: { 'If-Match': current.headers.get('etag')! } });
    expect(fresh.status).toBe(200);
    expect((await call('GET', path, A())).body).toEqual(read.body);
  });
});

/** A return of `lines` requested, approved and received (scrapped) by staff: answers the closed return. */
async function returnCredited(orderId: string, lines: { sku: string; quantity: number }[]) {
  const req = await call('POST', '/api/returns', { ...A(), body: { orderId, lines: lines.map((l) => ({ ...l, reason: 'Not needed' })) } });
  expect(req.status).toBe(201);
  const id = req.body.returnId as string;
  expect((await call('POST', `/api/returns/${id}/approve`, { ...A(), body: {} })).status).toBe(200);
  const received = await call('POST', `/api/returns/${id}/receive`, { ...A(), body: { lines: lines.map((l) => ({ sku: l.sku, disposition: 'scrap' })), refundMethod: 'credit' } });
  expect(received.status).toBe(200);
  expect(received.body).toMatchObject({ status: 'Closed', refundMethod: 'credit' });
  return received.body as { returnId: string; creditNoteId: string };
}

/** The order's invoices' balances by number. */
async function balances(orderId: string): Promise<Record<string, number>> {
  return Object.fromEntries((await invoicesOf(orderId)).map((i) => [i.invoiceNumber, i.balance]));
}

function expectProblemField(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(400);
  expect(Object.keys(res.body.errors ?? {})).toContain(field);
}

const place = (sku: string, quantity: number) => placeDirectOrder(A(), sku, quantity);

describe('status writes in bulk', () => {
  test('when the bulk endpoint or the orders import moves the status of an order with a tracked line, then 400 / a record error naming the allowed transitions, as the single PUT', async () => {
    const sku = await product({ trackInventory: true });
    expect((await call('PUT', '/api/inventory', { ...A(), body: { items: [{ sku, location: 'MAIN', receive: 10 }] } })).status).toBe(200);
    const o = await place(sku, 2);
    const single = await call('PUT', `/api/orders/${o.id}`, { ...A(), body: { orderStatus: 'Shipped' } });
    expect(single.status).toBe(400);
    const message = single.body.errors.orderStatus[0] as string;
    expect(message).toMatch(/Allowed transitions/);

    const record = { ...o.body, orderNumber: o.orderNumber, orderStatus: 'Shipped' };
    const bulk = await call('POST', '/api/orders/bulk', { ...A(), body: { orders: [record] } });
    expect(bulk.status).toBe(400);
    expect(bulk.body.errors).toEqual({ 'orders[0].orderStatus': [message] });

    const job = await runJson(org, { kind: 'orders', records: [record] });
    expect(job).toMatchObject({ failed: 1, updated: 0 });
    expect((await errorsOf(org, job.jobId)).Data).toEqual([expect.objectContaining({ record: 1, field: 'orderStatus', message })]);
    expect((await call('GET', `/api/orders/${o.id}`, A())).body.orderStatus).toBe('Pending');

    // Other fields of such an order still import (its status as it is).
    const notes = await call('POST', '/api/orders/bulk', { ...A(), body: { orders: [{ ...record, orderStatus: 'Pending', notes: 'call first' }] } });
    expect(notes.status).toBe(201);
    expect((await call('GET', `/api/orders/${o.id}`, A())).body).toMatchObject({ orderStatus: 'Pending', notes: 'call first' });
  });
});

describe('cancellation frees units for backorders', () => {
  test('when the order holding the last unit is cancelled, then the waiting order is allocated at once, without a receipt', async () => {
    const sku = await product({ trackInventory: true, allowBackorder: true, leadTimeDays: 5 });
    expect((await call('PUT', '/api/inventory', { ...A(), body: { items: [{ sku, location: 'MAIN', receive: 1 }] } })).status).toBe(200);
    const holder = await place(sku, 1);
    const waiting = await place(sku, 1);
    const backordered = async () => ((await call('GET', `/api/orders/${waiting.id}`, A())).body.items as { backorderedQuantity?: number }[])[0].backorderedQuantity ?? 0;
    expect(await backordered()).toBe(1);

    const cancel = await call('POST', `/api/orders/${holder.id}/cancel`, { ...A(), body: { reason: 'customer changed their mind' } });
    expect(cancel.status).toBe(200);
    expect(await waitFor(backordered, (n) => n === 0)).toBe(0);
    expect((await call('GET', `/api/orders/${waiting.id}`, A())).body.orderStatus).toBe('Processing');
    const allocated = await dbQuery<{ data: any }>(`select data from webhook_event where organization_id = $1 and type = 'order.allocated' and data->>'orderId' = $2`, [
      org.organizationId,
      waiting.id,
    ]);
    expect(allocated.map((e) => [e.data.allocatedQuantity, e.data.fullyAllocated, e.data.orderStatus])).toEqual([[1, true, 'Processing']]);
    // No receipt: on hand is still the one unit, now reserved for the waiting order.
    expect((await call('GET', `/api/products/${sku}/inventory`, A())).body).toMatchObject({ quantityOnHand: 1, reserved: 1, available: 0 });
    expect(await dbQuery(`select 1 from stock_movement m join product p on p.organization_id = m.organization_id and p.id = m.product_id
                           where m.organization_id = $1 and p.sku = $2 and m.kind = 'receipt'`, [org.organizationId, sku])).toHaveLength(1);
  });
});
