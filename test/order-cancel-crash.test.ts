/**
 * A worker killed inside the cancellation's card refund (issue 42 item 1; docs/returns.md
 * "Cancellation"): the refund activity is held open after the provider accepted the refund
 * (FAULT_INJECTION=hang-after:refundCharge:<ms>:order-cancel-, honoured because the test stack sets
 * ENABLE_TEST_HOOKS), the worker is SIGKILLed, a replacement re-runs the activity with the same
 * provider key: the provider ledger holds one refund of the cancelled amount, and the cancellation
 * is recorded as Refunded. Runs in the sandbox environment like test/crash.test.ts.
 */
import { call, stack, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';
import { sandboxSuite } from './support/sandbox-workers';

jest.setTimeout(180_000);
const PROVIDER = stack.urls.provider;
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});
const ledger = async (query: string) => ((await (await fetch(`${PROVIDER}/ledger?${query}`)).json()) as { entries: { kind: string; amount: string; chargeId: string; idempotencyKey?: string }[] }).entries;

let sb: OrgFixture;
const workers = sandboxSuite((org) => {
  sb = org;
});
const S = () => ({ base: sb.base, token: sb.adminToken });

test('when the worker is SIGKILLed inside the cancellation refund after the provider refunded, then a new worker finishes with exactly one refund of the cancelled amount', async () => {
  const { customerNumber, sku } = await customerWithProduct(sb, { price: 12.5 });
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...S(), body: { customerNumber, sku, quantity: 4, orderType: 'Standard' } });
  const cartId = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...S(), body: { customerNumber, shippingAddress: address } });
  const done = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...S(), body: { customerNumber, channel: 'Web', payment: card() } });
  expect(done.status).toBe(200);
  const chargeId = done.body.confirmationId as string;
  const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
  const orderId = (await call('GET', `/api/orders?filters=${f}`, S())).body.data[0].id as string;

  workers.killOwn();
  workers.killOthers();
  const hanging = workers.start({ FAULT_INJECTION: 'hang-after:refundCharge:120000:order-cancel-' }, 'hanging worker');
  await hanging.ready;
  const pending = call('POST', `/api/orders/${orderId}/cancel`, { ...S(), headers: { 'Idempotency-Key': `cancel-${orderId}` }, body: { lines: [{ sku, quantity: 3 }], reason: 'Three not needed' } });
  const deadline = Date.now() + 30_000;
  while (!(await ledger(`chargeId=${chargeId}`)).some((e) => e.kind === 'refund')) {
    if (Date.now() > deadline) throw new Error('refund never happened');
    await new Promise((r) => setTimeout(r, 100));
  }
  hanging.child.kill('SIGKILL');
  const normal = workers.start({}, 'replacement worker');
  await normal.ready;
  const res = await pending;
  // The request waits at most CHECKOUT_WAIT_MS for the refund; when the worker came back later it answers 503 and the workflow finishes on its own.
  expect([200, 503]).toContain(res.status);
  const until = Date.now() + 60_000;
  for (;;) {
    const cn = (await call('GET', `/api/credit-notes?orderId=${orderId}`, S())).body.Data[0];
    if (cn?.refundStatus === 'Refunded') {
      expect(cn).toMatchObject({ source: 'Cancellation', amount: 37.5, amountRefunded: 37.5, available: 0 });
      break;
    }
    if (Date.now() > until) throw new Error(`cancellation refund not recorded: ${JSON.stringify(cn)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const refunds = (await ledger(`chargeId=${chargeId}`)).filter((e) => e.kind === 'refund');
  expect(refunds).toHaveLength(1);
  expect(refunds[0].amount).toBe('37.50');
});
