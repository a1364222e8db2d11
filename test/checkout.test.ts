/**
 * Checkout over HTTP against the real stack: workflow checkout-<cartId>, provider sandbox
 * ledger, SMTP catcher. The worker-crash tests are in test/crash.test.ts.
 */
import { call, createOrg, saveCard, stack, waitForMail, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';

jest.setTimeout(120_000);
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
