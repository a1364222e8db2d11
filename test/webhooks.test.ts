/**
 * Outbound webhooks over HTTP against the real stack: subscriptions, Standard Webhooks
 * signatures checked by a receiver in this test, retries with the same webhook-id, 410,
 * Retry-After, the delivery log, redeliver, replay, secret rotation, and an order committed by
 * an API process that is killed at once still being delivered (the outbox).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { SUBSCRIBABLE_EVENTS } from '../src/domain/webhooks/rules';
import { verifySignature } from '../src/domain/webhooks/signature';
import { call, createOrg, expectProblem, stack, uniq, type OrgFixture } from './support/helpers';
import { invoiceBody } from './support/matrix-fixtures';
import { startReceiver, type Receiver, type Received } from './support/webhook-receiver';

jest.setTimeout(90_000);
const st = stack as typeof stack & { distDir?: string };
let org: OrgFixture;
let rx: Receiver;
beforeAll(async () => {
  org = await createOrg();
  rx = await startReceiver();
});
afterAll(async () => rx.close());
const A = () => ({ base: org.base, token: org.adminToken });

const orderBody = () => ({
  customer: { customerNumber: uniq('C'), companyName: 'Hook Co' },
  orderType: 'Direct',
  poNumber: 'PO-7',
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: 'R1' },
  items: [{ sku: 'S1', productName: 'Thing', quantity: 2, price: 5 }],
  user: { userId: 'u1', userType: 'Admin' },
});

async function subscribe(o: OrgFixture, p: string, events: string[] = ['*']) {
  const res = await call('POST', '/api/webhooks', { base: o.base, token: o.adminToken, body: { url: rx.url(p), events, description: 'test hook' } });
  expect(res.status).toBe(201);
  return res.body as { webhookId: string; secret: string };
}
const verified = (r: Received, secret: string) =>
  verifySignature(secret, { id: r.headers['webhook-id'], timestamp: r.headers['webhook-timestamp'], signature: r.headers['webhook-signature'] }, r.body);
const ofType = (type: string) => (list: Received[]) => list.some((r) => r.json?.type === type);

describe('subscriptions', () => {
  test('when a webhook is created, then the secret is shown once and reads never show it', async () => {
    const url = rx.url('/shape');
    const res = await call('POST', '/api/webhooks', { ...A(), body: { url, events: ['order.created', 'invoice.paid'] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      webhookId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url,
      events: ['order.created', 'invoice.paid'],
      description: null,
      isEnabled: true,
      disabledReason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const { webhookId, secret } = res.body;
    const one = await call('GET', `/api/webhooks/${webhookId}`, A());
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ ...res.body, secret: undefined, updatedAt: expect.any(String) });
    const list = await call('GET', '/api/webhooks', A());
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ PageNumber: 1, PageSize: 25, TotalCount: expect.any(Number) });
    expect(list.body.Data.map((w: any) => w.webhookId)).toContain(webhookId);
    const enabled = await call('GET', `/api/webhooks?${new URLSearchParams({ filters: JSON.stringify([{ field: 'isEnabled', operator: 'equals', value: 'true' }, { field: 'url', operator: 'equals', value: url }]), pageSize: '1' })}`, A());
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ TotalCount: 1, PageNumber: 1, PageSize: 1 });
    expect(enabled.body.Data).toHaveLength(1);
    expect(enabled.body.Data[0]).toMatchObject({ webhookId, isEnabled: true });
    expectProblem(await call('GET', '/api/webhooks?sortOn=secret', A()), 400);
    const put = await call('PUT', `/api/webhooks/${webhookId}`, { ...A(), body: { events: ['*'], isEnabled: false, description: 'changed' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ events: ['*'], isEnabled: false, description: 'changed', url });
    const rotated = await call('POST', `/api/webhooks/${webhookId}/rotate-secret`, A());
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.secret).not.toBe(secret);
    for (const r of [one, list, put]) expect(r.text).not.toContain(secret.slice(6));
    expect((await call('DELETE', `/api/webhooks/${webhookId}`, A())).status).toBe(204);
    expect((await call('GET', `/api/webhooks/${webhookId}`, A())).status).toBe(404);
  });

  test('when the body is bad, then 400 names every bad field', async () => {
    const res = await call('POST', '/api/webhooks', { ...A(), body: { url: 'ftp://example.com/x', events: ['order.created', 'nope'] } });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['events[1]', 'url']);
    const empty = await call('POST', '/api/webhooks', { ...A(), body: { url: 'https://example.com/', events: [] } });
    expectProblem(empty, 400);
    expect(Object.keys(empty.body.errors)).toEqual(['events']);
  });

  test('when an event name is unknown, then the 400 lists every event a subscription may name, uncut; webhook.test is not one of them', async () => {
    const res = await call('POST', '/api/webhooks', { ...A(), body: { url: rx.url('/names'), events: ['order.created', 'order.nope'] } });
    expectProblem(res, 400);
    const message: string = res.body.errors['events[1]'][0];
    expect(message).not.toMatch(/\.\.\.$/);
    const listed = message.replace(/^.*must be one of: /, '').replace(/ \(webhook\.test.*$/, '').split(', ');
    expect([...listed].sort()).toEqual([...SUBSCRIBABLE_EVENTS].sort());
    expect(listed).toEqual(expect.arrayContaining(['order.created', 'credit_note.applied', '*']));
    expect(listed).not.toContain('webhook.test');
    // webhook.test is sent only to the subscription tested, never subscribed to.
    const test = await call('POST', '/api/webhooks', { ...A(), body: { url: rx.url('/names'), events: ['webhook.test'] } });
    expectProblem(test, 400);
    expect(test.body.errors['events[0]'][0]).toMatch(/webhook\.test is sent only by POST \/api\/webhooks\/\{webhookId\}\/test/);
  });

  test('when a test event is sent or a delivery redelivered, then the 202 names the new delivery in Location, and Location reads it', async () => {
    const hook = await subscribe(org, '/located', ['order.created']);
    const sent = await call('POST', `/api/webhooks/${hook.webhookId}/test`, A());
    expect(sent.status).toBe(202);
    expect(sent.headers.get('location')).toBe(`/api/webhooks/${hook.webhookId}/deliveries/${sent.body.deliveryId}`);
    const read = await call('GET', sent.headers.get('location')!, A());
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ deliveryId: sent.body.deliveryId, eventType: 'webhook.test' });
    const again = await call('POST', `/api/webhooks/${hook.webhookId}/deliveries/${sent.body.deliveryId}/redeliver`, A());
    expect(again.status).toBe(202);
    expect(again.headers.get('location')).toBe(`/api/webhooks/${hook.webhookId}/deliveries/${again.body.deliveryId}`);
    expect((await call('GET', again.headers.get('location')!, A())).body.deliveryId).toBe(again.body.deliveryId);
    const replay = await call('POST', `/api/webhooks/${hook.webhookId}/replay`, { ...A(), body: { since: new Date(Date.now() - 60_000).toISOString() } });
    expect(replay.status).toBe(202);
    expect(replay.headers.get('location')).toBe(`/api/webhooks/${hook.webhookId}/deliveries`);
  });

  test("when another organization's webhook or a non-id is asked for, then 404; a Customer gets 403", async () => {
    const other = await createOrg();
    const hook = await subscribe(other, '/other');
    expectProblem(await call('GET', `/api/webhooks/${hook.webhookId}`, A()), 404);
    expectProblem(await call('GET', `/api/webhooks/${hook.webhookId}/deliveries`, A()), 404);
    expectProblem(await call('GET', '/api/webhooks/not-an-id', A()), 404);
  });
});

describe('delivery', () => {
  test('when an order is created, then the receiver gets order.created signed per Standard Webhooks', async () => {
    const o = await createOrg();
    const hook = await subscribe(o, '/orders', ['order.created', 'order.status_changed']);
    const body = orderBody();
    const created = await call('POST', '/api/orders', { base: o.base, token: o.adminToken, body });
    expect(created.status).toBe(201);
    const got = await rx.waitFor('/orders', ofType('order.created'));
    const r = got.find((x) => x.json.type === 'order.created')!;
    expect(verified(r, hook.secret)).toBe(true);
    expect(verified(r, 'whsec_' + Buffer.alloc(32).toString('base64'))).toBe(false);
    expect(r.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(r.json).toEqual({
      type: 'order.created',
      timestamp: expect.any(String),
      data: expect.objectContaining({
        orderId: created.body.data.id,
        orderNumber: created.body.data.orderNumber,
        customerNumber: body.customer.customerNumber,
        orderStatus: 'Pending',
        currencyCode: 'USD',
        total: 10,
      }),
    });
    const upd = await call('PUT', `/api/orders/${created.body.data.id}`, { base: o.base, token: o.adminToken, body: { orderStatus: 'Processing' } });
    expect(upd.status).toBe(200);
    const changed = (await rx.waitFor('/orders', ofType('order.status_changed'))).find((x) => x.json.type === 'order.status_changed')!;
    expect(changed.json.data).toEqual(
      expect.objectContaining({ orderNumber: created.body.data.orderNumber, previousStatus: 'Pending', orderStatus: 'Processing' }),
    );
    const log = await call('GET', `/api/webhooks/${hook.webhookId}/deliveries`, { base: o.base, token: o.adminToken });
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ TotalCount: 2, PageNumber: 1, PageSize: 25 });
    expect(log.body.Data.map((d: any) => d.eventType).sort()).toEqual(['order.created', 'order.status_changed']);
  });

  test('when invoices are issued, paid and voided, then invoice.issued, payment.succeeded, invoice.paid and invoice.voided arrive', async () => {
    const o = await createOrg();
    await subscribe(o, '/invoices', ['invoice.issued', 'invoice.paid', 'invoice.voided', 'payment.succeeded']);
    const O = { base: o.base, token: o.adminToken };
    const inv = await call('POST', '/api/invoices', { ...O, body: invoiceBody() });
    expect(inv.status).toBe(201);
    expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, O)).status).toBe(200);
    const pay = await call('POST', `/api/invoices/${inv.body.id}/payments`, {
      ...O,
      body: { amount: inv.body.total, currencyCode: 'USD', method: 'Check', paymentDate: '2026-01-15T00:00:00.000Z' },
    });
    expect(pay.status).toBeLessThan(300);
    const inv2 = await call('POST', '/api/invoices', { ...O, body: invoiceBody() });
    expect((await call('POST', `/api/invoices/${inv2.body.id}/issue`, O)).status).toBe(200);
    expect((await call('POST', `/api/invoices/${inv2.body.id}/void`, O)).status).toBe(200);
    const got = await rx.waitFor('/invoices', (l) => l.length >= 5);
    const types = got.map((r) => `${r.json.type}:${r.json.data.invoiceNumber}`).sort();
    expect(types).toEqual(
      [
        `invoice.issued:${inv.body.invoiceNumber}`,
        `payment.succeeded:${inv.body.invoiceNumber}`,
        `invoice.paid:${inv.body.invoiceNumber}`,
        `invoice.issued:${inv2.body.invoiceNumber}`,
        `invoice.voided:${inv2.body.invoiceNumber}`,
      ].sort(),
    );
  });

  test('when the receiver answers 500 once, then the retry carries the same webhook-id and the log shows both attempts', async () => {
    const o = await createOrg();
    const hook = await subscribe(o, '/flaky', ['order.created']);
    rx.respond('/flaky', [{ status: 500 }, { status: 200 }]);
    await call('POST', '/api/orders', { base: o.base, token: o.adminToken, body: orderBody() });
    const got = await rx.waitFor('/flaky', (l) => l.length >= 2);
    expect(got[1].headers['webhook-id']).toBe(got[0].headers['webhook-id']);
    expect(verified(got[1], hook.secret)).toBe(true);
    const O = { base: o.base, token: o.adminToken };
    let d: any;
    const deadline = Date.now() + 15_000;
    do {
      d = (await call('GET', `/api/webhooks/${hook.webhookId}/deliveries`, O)).body.Data[0];
      if (d?.status === 'Succeeded') break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < deadline);
    expect(d).toMatchObject({
      status: 'Succeeded',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
      eventId: got[0].headers['webhook-id'],
      eventType: 'order.created',
      nextAttemptAt: null,
    });
    const detail = await call('GET', `/api/webhooks/${hook.webhookId}/deliveries/${d.deliveryId}`, O);
    expect(detail.body.attemptLog).toEqual([
      { at: expect.any(String), statusCode: 500, error: 'HTTP 500', durationMs: expect.any(Number) },
      { at: expect.any(String), statusCode: 200, error: null, durationMs: expect.any(Number) },
    ]);
  });

  test('when the receiver answers 410, then the subscription is disabled and the delivery Failed', async () => {
    const o = await createOrg();
    const hook = await subscribe(o, '/gone', ['order.created']);
    rx.respond('/gone', [{ status: 410 }]);
    await call('POST', '/api/orders', { base: o.base, token: o.adminToken, body: orderBody() });
    await rx.waitFor('/gone', (l) => l.length >= 1);
    const O = { base: o.base, token: o.adminToken };
    let w: any;
    const deadline = Date.now() + 10_000;
    do {
      w = (await call('GET', `/api/webhooks/${hook.webhookId}`, O)).body;
      if (!w.isEnabled) break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < deadline);
    expect(w).toMatchObject({ isEnabled: false, disabledReason: expect.stringContaining('410') });
    const d = (await call('GET', `/api/webhooks/${hook.webhookId}/deliveries`, O)).body.Data[0];
    expect(d).toMatchObject({ status: 'Failed', attempts: 1, lastStatusCode: 410 });
    await call('POST', '/api/orders', { base: o.base, token: o.adminToken, body: orderBody() });
    await new Promise((r) => setTimeout(r, 2000));
    expect(rx.received('/gone')).toHaveLength(1);
  });

  test('when the receiver answers 429 with Retry-After 2, then the next attempt waits at least 2 s', async () => {
    const o = await createOrg();
    const hook = await subscribe(o, '/busy', ['order.created']);
    rx.respond('/busy', [{ status: 429, headers: { 'Retry-After': '2' } }, { status: 200 }]);
    await call('POST', '/api/orders', { base: o.base, token: o.adminToken, body: orderBody() });
    const got = await rx.waitFor('/busy', (l) => l.length >= 2);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(1900);
    expect(verified(got[1], hook.secret)).toBe(true);
  });

  test('when every attempt fails, then after the scheduled attempts the delivery is Failed; replay and redeliver send it again', async () => {
    const o = await createOrg();
    const O = { base: o.base, token: o.adminToken };
    const hook = await subscribe(o, '/down', ['order.created']);
    rx.respond('/down', [{ status: 503 }]);
    const since = new Date(Date.now() - 1000).toISOString();
    await call('POST', '/api/orders', { ...O, body: orderBody() });
    await rx.waitFor('/down', (l) => l.length >= 8, 60_000);
    let d: any;
    const deadline = Date.now() + 10_000;
    do {
      d = (await call('GET', `/api/webhooks/${hook.webhookId}/deliveries`, O)).body.Data[0];
      if (d.status === 'Failed') break;
      await new Promise((r) => setTimeout(r, 200));
    } while (Date.now() < deadline);
    expect(d).toMatchObject({ status: 'Failed', attempts: 8, lastStatusCode: 503 });
    expect(rx.received('/down')).toHaveLength(8);
    const eventId = rx.received('/down')[0].headers['webhook-id'];
    rx.respond('/down', [{ status: 204 }]);
    const replay = await call('POST', `/api/webhooks/${hook.webhookId}/replay`, { ...O, body: { since } });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ replayed: 1, deliveryIds: [expect.any(String)] });
    const after = await rx.waitFor('/down', (l) => l.length >= 9);
    expect(after[8].headers['webhook-id']).toBe(eventId);
    const again = await call('POST', `/api/webhooks/${hook.webhookId}/deliveries/${d.deliveryId}/redeliver`, O);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ eventId, status: 'Pending', attempts: 0 });
    const third = await rx.waitFor('/down', (l) => l.length >= 10);
    expect(third[9].headers['webhook-id']).toBe(eventId);
    expectProblem(await call('POST', `/api/webhooks/${hook.webhookId}/replay`, { ...O, body: { since: 'yesterday' } }), 400);
  });

  test('when a delivery still retrying is redelivered by hand, then the original stops: the receiver gets the event once more, not again from the old schedule', async () => {
    const o = await createOrg();
    const O = { base: o.base, token: o.adminToken };
    const hook = await subscribe(o, '/superseded', ['order.created']);
    rx.respond('/superseded', [{ status: 503 }]);
    await call('POST', '/api/orders', { ...O, body: orderBody() });
    // Five failed attempts; three more are scheduled (about 1.8 s, 3.6 s and 3.6 s apart in the test stack).
    await rx.waitFor('/superseded', (l) => l.length >= 5, 30_000);
    const original = (await call('GET', `/api/webhooks/${hook.webhookId}/deliveries`, O)).body.Data[0];
    rx.respond('/superseded', [{ status: 204 }]);
    const again = await call('POST', `/api/webhooks/${hook.webhookId}/deliveries/${original.deliveryId}/redeliver`, O);
    expect(again.status).toBe(202);
    await rx.waitFor('/superseded', (l) => l.length >= 6, 30_000);
    // Long enough for the original's remaining attempts, had they gone on.
    await new Promise((r) => setTimeout(r, 10_000));
    const got = rx.received('/superseded');
    expect(got.length).toBeGreaterThanOrEqual(6);
    expect(got.length).toBeLessThanOrEqual(7); // an attempt of the original already in flight at the redelivery may land
    const old = (await call('GET', `/api/webhooks/${hook.webhookId}/deliveries/${original.deliveryId}`, O)).body;
    expect(old).toMatchObject({ status: 'Failed', nextAttemptAt: null, lastError: expect.stringContaining(`Superseded by redelivery ${again.body.deliveryId}`) });
    const fresh = (await call('GET', `/api/webhooks/${hook.webhookId}/deliveries/${again.body.deliveryId}`, O)).body;
    expect(fresh).toMatchObject({ status: 'Succeeded', attempts: 1 });
  });

  test('when the secret is rotated, then deliveries carry two signatures, one per secret', async () => {
    const o = await createOrg();
    const O = { base: o.base, token: o.adminToken };
    const hook = await subscribe(o, '/rotate', ['order.created']);
    const { body } = await call('POST', `/api/webhooks/${hook.webhookId}/rotate-secret`, O);
    const t = await call('POST', `/api/webhooks/${hook.webhookId}/test`, O);
    expect(t.status).toBe(202);
    expect(t.body).toEqual({ eventId: expect.any(String), deliveryId: expect.any(String) });
    const [r] = await rx.waitFor('/rotate', (l) => l.length >= 1);
    expect(r.json).toMatchObject({ type: 'webhook.test', data: { webhookId: hook.webhookId } });
    expect(r.headers['webhook-id']).toBe(t.body.eventId);
    expect(r.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verified(r, body.secret)).toBe(true);
    expect(verified(r, hook.secret)).toBe(true);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('outbox', () => {
  test('when the API process that committed an order is killed at once, then order.created is still delivered', async () => {
    const o = await createOrg();
    await subscribe(o, '/killed', ['order.created']);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // A second API instance of the production environment; only it handles the order.
    const child = spawn(process.execPath, [path.join(st.distDir!, 'server.js')], {
      env: { ...process.env, ...stack.env.production, PORT: String(port), PUBLIC_BASE_URL: base },
      stdio: 'ignore',
    });
    try {
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        try {
          if ((await fetch(`${base}/health`)).ok) break;
        } catch {
          /* not up yet */
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      const body = orderBody();
      const res = await call('POST', '/api/orders', { base, token: o.adminToken, body });
      child.kill('SIGKILL');
      expect(res.status).toBe(201);
      await new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));
      const got = await rx.waitFor('/killed', ofType('order.created'));
      expect(got[0].json.data.orderId).toBe(res.body.data.id);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
