/**
 * Worker crashes inside the charge: the worker is SIGKILLed while the charge activity is still
 * running, after the provider accepted the charge (a test-only fault injection holds the finished
 * activity open: FAULT_INJECTION=hang-after:chargeProfile:<ms>, honoured because the test stack sets
 * ENABLE_TEST_HOOKS). A replacement worker re-runs the activity (attempt 2) with the same provider
 * idempotency key: the provider ledger holds one charge, the database one order or one payment.
 *
 * Runs in the sandbox environment (its own API, worker and Temporal namespace), so killing that
 * worker cannot delay workflows other test files wait for. The stack's sandbox worker is replaced
 * by workers this file spawns; afterAll leaves one normal worker running (its pid goes to
 * stack.extraPidsFile so the stack stops it at the end of the run).
 */
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { call, createOrg, ensureCustomer, saveCard, SANDBOX_API, stack, uniq, type OrgFixture } from './support/helpers';
import { customerWithProduct, invoiceBody } from './support/matrix-fixtures';
import { SandboxWorkers } from './support/sandbox-workers';

jest.setTimeout(150_000);
const PROVIDER = stack.urls.provider;
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});
const ledger = async (query: string) =>
  ((await (await fetch(`${PROVIDER}/ledger?${query}`)).json()) as { entries: { kind: string; amount: string; chargeId: string }[] }).entries;

const workers = new SandboxWorkers();
let sb: OrgFixture;
let connection: Connection;
let client: Client;

/** Stops every sandbox worker (the stack's and ours) and starts one with `env`. */
async function replaceWorker(env: Record<string, string>, name: string) {
  workers.killOwn();
  workers.killOthers();
  const w = workers.start(env, name);
  await w.ready;
  return w;
}

/** Waits (at most 30 s) until the provider's ledger holds a charge matching `chargeQuery`. */
async function untilCharged(chargeQuery: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await ledger(chargeQuery)).filter((e) => e.kind === 'charge').length === 0) {
    if (Date.now() > deadline) throw new Error('charge never happened');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Replaces whatever sandbox worker runs with one that hangs inside the charge activity, runs `start`, and kills it once the provider holds the charge. */
async function crashInsideCharge<T>(start: () => Promise<T>, chargeQuery: string): Promise<T> {
  const hanging = await replaceWorker({ FAULT_INJECTION: 'hang-after:chargeProfile:120000' }, 'hanging worker');
  const pending = start();
  await untilCharged(chargeQuery);
  hanging.child.kill('SIGKILL');
  const normal = workers.start({}, 'replacement worker');
  await normal.ready;
  return pending;
}

/** The attempts of the workflow's chargeProfile activity that started (from its history). */
async function chargeAttempts(workflowId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Set<string>();
  const attempts: number[] = [];
  for (const e of history.events ?? []) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'chargeProfile') scheduled.add(String(e.eventId));
    const started = e.activityTaskStartedEventAttributes;
    if (started && scheduled.has(String(started.scheduledEventId))) attempts.push(started.attempt ?? 0);
  }
  return attempts;
}

beforeAll(async () => {
  await workers.acquire();
  sb = await createOrg({ base: SANDBOX_API });
  connection = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection, namespace: 'sandbox' });
}, 600_000);

afterAll(async () => {
  await connection?.close();
  await workers.leaveOneRunning();
});

const S = () => ({ base: sb.base, token: sb.adminToken });

test('when the worker is SIGKILLed inside the checkout charge after the provider accepted it, then a new worker finishes with exactly one charge and one order', async () => {
  const { customerNumber, sku } = await customerWithProduct(sb, { price: 12.5 });
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...S(), body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  const id = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...S(), body: { customerNumber, shippingAddress: address } });
  const res = await crashInsideCharge(
    () => call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...S(), body: { customerNumber, channel: 'Web', payment: card() } }),
    `idempotencyKey=checkout-${id}`,
  );
  expect(res.status).toBe(200);
  const charges = (await ledger(`idempotencyKey=checkout-${id}`)).filter((e) => e.kind === 'charge');
  expect(charges).toHaveLength(1);
  expect(charges[0]).toMatchObject({ amount: '25.00', chargeId: res.body.confirmationId });
  // The kill landed inside the activity: it completed only on its second attempt.
  expect(await chargeAttempts(`checkout-${id}`)).toEqual([2]);
  const f = encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: customerNumber }]));
  expect((await call('GET', `/api/orders?filters=${f}`, S())).body.totalRecords).toBe(1);
  expect((await call('GET', `/api/carts/${id}`, S())).body.status).toBe('CLOSED');
});

async function issuedInvoice(): Promise<{ id: string; customer: { customerNumber: string } }> {
  const created = await call('POST', '/api/invoices', {
    ...S(),
    body: invoiceBody({ items: [{ sku: 'SKU-1', productName: 'Widget', quantity: 3, price: 33.33 }] }),
  });
  expect(created.status).toBe(201);
  expect((await call('POST', `/api/invoices/${created.body.id}/issue`, S())).status).toBe(200);
  return created.body as { id: string; customer: { customerNumber: string } };
}

/** A card saved through the API for the invoice's customer (only saved cards of that customer are charged). */
async function savedCard(inv: { customer: { customerNumber: string } }): Promise<string> {
  await ensureCustomer(sb, inv.customer.customerNumber);
  return saveCard(sb, inv.customer.customerNumber);
}

test('when the provider refuses the service (401), then the payment fails at once without retrying and nothing is charged or recorded', async () => {
  const inv = await issuedInvoice();
  const profile = await savedCard(inv);
  // A worker whose provider credentials are missing: the provider sandbox answers 401.
  await replaceWorker({ PAYMENT_PROVIDER_API_KEY: '' }, 'misconfigured worker');
  const key = uniq('rejected-');
  const res = await call('POST', `/api/invoices/${inv.id}/payments`, {
    ...S(),
    headers: { 'Idempotency-Key': key },
    body: { amount: 99.99, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: profile },
  });
  expect(res.status).toBe(500);
  expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  const workflowId = `invoice-payment-invoice-payment:${inv.id}:${key}`;
  const desc = await client.workflow.getHandle(workflowId).describe();
  expect(desc.status.name).toBe('FAILED');
  expect(await chargeAttempts(workflowId)).toEqual([1]);
  expect((await ledger(`paymentProfileId=${encodeURIComponent(profile)}`)).filter((e) => e.kind === 'charge')).toEqual([]);
  const after = await call('GET', `/api/invoices/${inv.id}`, S());
  expect(after.body).toMatchObject({ status: 'Issued', payments: [] });
});

test('when the worker is SIGKILLed inside an invoice card charge after the provider accepted it, then a new worker finishes with exactly one charge and one payment', async () => {
  const inv = await issuedInvoice();
  const profile = await savedCard(inv);
  const key = uniq('crash-');
  const res = await crashInsideCharge(
    () =>
      call('POST', `/api/invoices/${inv.id}/payments`, {
        ...S(),
        headers: { 'Idempotency-Key': key },
        body: { amount: 99.99, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: profile },
      }),
    `paymentProfileId=${encodeURIComponent(profile)}`,
  );
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'Paid', balance: 0, amountPaid: 99.99 });
  expect(res.body.payments).toHaveLength(1);
  const charges = (await ledger(`paymentProfileId=${encodeURIComponent(profile)}`)).filter((e) => e.kind === 'charge');
  expect(charges).toHaveLength(1);
  expect(charges[0].amount).toBe('99.99');
  expect(res.body.payments[0]).toMatchObject({ amount: 99.99, method: 'Card' });
  expect(await chargeAttempts(`invoice-payment-invoice-payment:${inv.id}:${key}`)).toEqual([2]);
});

test('when the cart is edited while its charge runs, then 409 and the charge voided; checking out again charges the new total under a new key and orders it', async () => {
  const { customerNumber, sku } = await customerWithProduct(sb, { price: 12.5 });
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...S(), body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  const id = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...S(), body: { customerNumber, shippingAddress: address } });
  // The charge activity is held open for 4 s after the provider accepted 25.00: the edit lands in between.
  await replaceWorker({ FAULT_INJECTION: 'hang-after:chargeProfile:4000' }, 'slow-charge worker');
  const first = call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...S(), body: { customerNumber, channel: 'Web', payment: card() } });
  await untilCharged(`idempotencyKey=checkout-${id}`);
  const edit = await call('POST', `/api/carts/${customerNumber}/${id}/items`, { ...S(), body: { customerNumber, sku, quantity: 1 } });
  expect(edit.status).toBe(200);
  const refused = await first;
  expect(refused.status).toBe(409);
  expect(refused.body.detail).toMatch(/cart changed while it was being checked out/);
  // The 25.00 charge is voided, nothing was ordered, and the cart keeps the edit.
  const firstCharges = (await ledger(`idempotencyKey=checkout-${id}`)).filter((e) => e.kind === 'charge');
  expect(firstCharges).toEqual([expect.objectContaining({ amount: '25.00' })]);
  expect(await ledger(`idempotencyKey=void-checkout-${id}`)).toEqual([expect.objectContaining({ kind: 'void', chargeId: firstCharges[0].chargeId })]);
  const f = encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: customerNumber }]));
  expect((await call('GET', `/api/orders?filters=${f}`, S())).body.totalRecords).toBe(0);
  const cart = await call('GET', `/api/carts/${id}`, S());
  expect(cart.body).toMatchObject({ status: 'PENDING', items: [expect.objectContaining({ quantity: 3 })] });

  await replaceWorker({}, 'normal worker');
  const again = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, {
    ...S(),
    body: { customerNumber, channel: 'Web', payment: card() },
  });
  expect(again.status).toBe(200);
  // A new key for the second attempt: under the first, the provider would answer the voided charge again.
  expect((await ledger(`idempotencyKey=checkout-${id}-2`)).filter((e) => e.kind === 'charge')).toEqual([
    expect.objectContaining({ amount: '37.50', chargeId: again.body.confirmationId }),
  ]);
  const orders = await call('GET', `/api/orders?filters=${f}`, S());
  expect(orders.body.data).toEqual([expect.objectContaining({ orderNumber: again.body.orderNumber, total: 37.5 })]);
  expect((await call('GET', `/api/carts/${id}`, S())).body.status).toBe('CLOSED');
  // complete-checkout admitted the run for the cart's total at that time (the reservation refuses a cart that changed since).
  const history = await client.workflow.getHandle(`checkout-${id}`).fetchHistory();
  const startedWith = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
  expect(defaultPayloadConverter.fromPayload(startedWith)).toMatchObject({ cartId: id, expectedAmount: '37.50' });
  // And the closed cart refuses edits.
  expect((await call('POST', `/api/carts/${customerNumber}/${id}/items`, { ...S(), body: { customerNumber, sku, quantity: 1 } })).status).toBe(400);
});
