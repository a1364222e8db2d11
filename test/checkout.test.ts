/**
 * Checkout over HTTP against the real stack: workflow checkout-<cartId>, provider sandbox
 * ledger, SMTP catcher. The worker-crash test kills the stack's sandbox worker, runs the
 * checkout on workers it spawns itself and, in afterAll, leaves one normal worker running
 * (its pid is written to stack.extraPidsFile so the stack stops it at the end of the run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { call, createOrg, SANDBOX_API, saveCard, stack, waitForMail, type OrgFixture } from './helpers';
import { customerWithProduct } from './matrix-fixtures';

jest.setTimeout(120_000);
const st = stack as typeof stack & { pids?: Record<string, number>; distDir?: string; extraPidsFile?: string };
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = (cardNumber = '4111111111111111') => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber, cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});

async function readyCart(quantity = 2, price = 12.5) {
  const { customerNumber, sku } = await customerWithProduct(org, { price });
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity, orderType: 'Standard' } });
  const id = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
  return { customerNumber, sku, id };
}
const checkout = (customerNumber: string, id: string, body: Record<string, unknown>) =>
  call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', ...body } });
const ledger = async (idempotencyKey: string) => ((await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=${idempotencyKey}`)).json()) as { entries: any[] }).entries;
const orderCount = async (customerNumber: string) => {
  const f = encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: customerNumber }]));
  return (await call('GET', `/api/orders?filters=${f}`, A())).body.totalRecords;
};

describe('complete-checkout', () => {
  test('when a cart is checked out with a card, then one order, a CLOSED cart, one charge and a confirmation e-mail', async () => {
    const { customerNumber, id } = await readyCart();
    const res = await checkout(customerNumber, id, { payment: card() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orderNumber: expect.stringMatching(/^SO-\d{6}$/), confirmationId: expect.any(String) });
    const cart = await call('GET', `/api/carts/${id}`, A());
    expect(cart.body.status).toBe('CLOSED');
    const entries = await ledger(`checkout-${id}`);
    expect(entries.filter((e) => e.kind === 'charge')).toEqual([expect.objectContaining({ chargeId: res.body.confirmationId, amount: '25.00', currency: 'USD', reference: res.body.orderNumber })]);
    const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: res.body.orderNumber }]));
    const orders = await call('GET', `/api/orders?filters=${f}`, A());
    expect(orders.body.data).toHaveLength(1);
    expect(orders.body.data[0]).toMatchObject({ originationCartId: id, channel: 'Web', total: 25, customer: { customerNumber, shippingAddress: { address1: '1 Main St', city: 'Springfield', stateProvince: 'IL', zipPostalCode: '62701', country: 'US', address2: null } } });
    expect(JSON.stringify(orders.body)).not.toContain('4111111111111111');
    await waitForMail(`${customerNumber.toLowerCase()}@example.com`, (m) => m.subject.includes(res.body.orderNumber));
    const again = await checkout(customerNumber, id, { payment: card() });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    expect((await call('POST', `/api/carts/${customerNumber}/${id}/items`, { ...A(), body: { customerNumber, sku: 'x', quantity: 1 } })).status).toBe(400);
  });

  test('when a saved paymentProfileId is used, then it is charged once', async () => {
    const { customerNumber, id } = await readyCart(1, 40);
    const paymentProfileId = await saveCard(org, customerNumber);
    const res = await checkout(customerNumber, id, { paymentProfileId });
    expect(res.status).toBe(200);
    const charges = (await ledger(`checkout-${id}`)).filter((e) => e.kind === 'charge');
    expect(charges).toEqual([expect.objectContaining({ paymentProfileId, amount: '40.00' })]);
  });

  test('when ten checkouts of one cart run concurrently, then one order and one charge', async () => {
    const { customerNumber, id } = await readyCart();
    const results = await Promise.all(Array.from({ length: 10 }, () => checkout(customerNumber, id, { payment: card() })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(results.map((r) => r.body.orderNumber)).size).toBe(1);
    expect((await ledger(`checkout-${id}`)).filter((e) => e.kind === 'charge')).toHaveLength(1);
    expect(await orderCount(customerNumber)).toBe(1);
  });

  test('when the card is declined, then 402, the cart stays PENDING and nothing is charged', async () => {
    const { customerNumber, id } = await readyCart();
    const res = await checkout(customerNumber, id, { payment: card('4000000000000002') });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ status: 402, title: 'Payment failed', detail: expect.stringMatching(/^Payment failed/) });
    expect((await call('GET', `/api/carts/${id}`, A())).body.status).toBe('PENDING');
    expect((await ledger(`checkout-${id}`)).filter((e) => e.kind === 'charge' && e.status === 'approved')).toHaveLength(0);
    const retry = await checkout(customerNumber, id, { payment: card() });
    expect(retry.status).toBe(200);
  });

  test('when data is missing, shipping absent, the cart empty or a SKU gone, then 400', async () => {
    const { customerNumber, sku } = await customerWithProduct(org);
    const empty = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { organizationId: org.organizationId, orderType: 'Standard', userId: org.adminUserId } });
    const id = empty.body.shoppingCartId;
    const r1 = await checkout(customerNumber, id, { payment: card() });
    expect(r1.status).toBe(400);
    expect(Object.keys(r1.body.errors).sort()).toEqual(['items', 'shippingAddress']);
    const r2 = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber } });
    expect(r2.status).toBe(400);
    expect(r2.body.errors.channel).toBeDefined();
    await call('POST', `/api/carts/${customerNumber}/${id}/items`, { ...A(), body: { customerNumber, sku, quantity: 1 } });
    await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
    const r3 = await checkout(customerNumber, id, {});
    expect(r3.status).toBe(400);
    expect(r3.body.errors.payment).toBeDefined();
    await call('PUT', '/api/products', { ...A(), body: { sku, active: false } });
    const r4 = await checkout(customerNumber, id, { payment: card() });
    expect(r4.status).toBe(400);
    expect(r4.body.errors.items[0]).toContain(sku);
    expect((await checkout(customerNumber, '00000000-0000-4000-8000-000000000000', { payment: card() })).status).toBe(404);
  });
});

/**
 * Runs in the sandbox environment (its own API, worker and Temporal namespace), so killing that
 * worker cannot delay workflows that other test files, running in parallel, wait for.
 */
describe('worker crash between charge and order', () => {
  const spawned: ChildProcess[] = [];
  let sb: OrgFixture;
  beforeAll(async () => {
    sb = await createOrg({ base: SANDBOX_API });
  });
  const S = () => ({ base: sb.base, token: sb.adminToken });
  const startWorker = (extraEnv: Record<string, string>, name: string) => {
    const child = spawn(process.execPath, [path.join(st.distDir!, 'worker.js')], {
      env: { ...process.env, ...stack.env.sandbox, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += String(d)));
    child.stderr.on('data', (d) => (out += String(d)));
    spawned.push(child);
    const ready = new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if (out.includes('"worker ready"')) {
          clearInterval(t);
          resolve();
        }
      }, 100);
      child.on('exit', (c) => {
        clearInterval(t);
        reject(new Error(`${name} exited ${c}: ${out.slice(-2000)}`));
      });
    });
    return { child, ready };
  };

  afterAll(async () => {
    // Leave exactly one normal sandbox worker running for later test files.
    for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    const keep = spawn(process.execPath, [path.join(st.distDir!, 'worker.js')], { env: { ...process.env, ...stack.env.sandbox }, stdio: 'ignore', detached: true });
    keep.unref();
    appendFileSync(st.extraPidsFile!, `${keep.pid}\n`);
    await new Promise((r) => setTimeout(r, 3000));
  });

  test('when the worker is SIGKILLed after the charge, then a new worker finishes with exactly one charge and one order', async () => {
    const { customerNumber, sku } = await customerWithProduct(sb, { price: 12.5 });
    const c = await call('POST', `/api/carts/${customerNumber}`, { ...S(), body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
    const id = c.body.shoppingCartId as string;
    await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...S(), body: { customerNumber, shippingAddress: address } });
    // Stop the sandbox stack's worker so only our pausing worker picks up the checkout.
    const stackWorker = st.pids!['worker-sandbox'];
    try {
      process.kill(stackWorker, 'SIGKILL');
    } catch {
      /* already replaced by an earlier run of this file */
    }
    const pausing = startWorker({ CHECKOUT_PAUSE_AFTER_CHARGE_MS: '4000' }, 'pausing worker');
    await pausing.ready;
    const pending = call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...S(), body: { customerNumber, channel: 'Web', payment: card() } });
    const deadline = Date.now() + 30_000;
    while ((await ledger(`checkout-${id}`)).filter((e) => e.kind === 'charge').length === 0) {
      if (Date.now() > deadline) throw new Error('charge never happened');
      await new Promise((r) => setTimeout(r, 100));
    }
    pausing.child.kill('SIGKILL');
    const normal = startWorker({}, 'replacement worker');
    await normal.ready;
    const res = await pending;
    expect(res.status).toBe(200);
    expect((await ledger(`checkout-${id}`)).filter((e) => e.kind === 'charge')).toHaveLength(1);
    const f = encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: customerNumber }]));
    expect((await call('GET', `/api/orders?filters=${f}`, S())).body.totalRecords).toBe(1);
    expect((await call('GET', `/api/carts/${id}`, S())).body.status).toBe('CLOSED');
  }, 90_000);
});
