/**
 * Payment terms, credit limits and on-account checkout over HTTP against the real stack
 * (issue 23 items 1-2; docs/credit.md). The dunning path is test/dunning.test.ts.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { call, createOrg, expectProblem, repToken, customerToken, stack, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';

jest.setTimeout(180_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const DAY = 86_400_000;

async function cartFor(customerNumber: string, sku: string, quantity: number) {
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity, orderType: 'Standard' } });
  expect(c.status).toBe(201);
  const id = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
  return id;
}
const onAccount = (customerNumber: string, id: string) =>
  call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: { method: 'OnAccount' } } });
const setCredit = (customerNumber: string, body: Record<string, unknown>, token = org.adminToken) => call('PUT', `/api/customers/${customerNumber}/credit`, { base: org.base, token, body });
const credit = async (customerNumber: string) => (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body;
async function invoiceOfOrder(orderNumber: string) {
  const orders = await call('GET', `/api/orders?filters=${encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: orderNumber }]))}`, A());
  const orderId = orders.body.data[0].orderId ?? orders.body.data[0].id;
  const inv = await call('GET', `/api/invoices?orderId=${orderId}`, A());
  return inv.body.items[0];
}

describe('payment terms', () => {
  test('when an Admin manages terms, then they are listed in the generic envelope; duplicates 409, bad Days 400, a term in use cannot be deleted', async () => {
    const net = await call('POST', '/api/organizations/payment-terms', { ...A(), body: { Name: 'Net 45', Type: 'Net', Days: 45 } });
    expect(net.status).toBe(201);
    expect(net.body).toEqual({ PaymentTermId: expect.any(String), Name: 'Net 45', Type: 'Net', Days: 45, Description: 'Net 45' });
    const eom = await call('POST', '/api/organizations/payment-terms', { ...A(), body: { Name: 'EOM 10', Type: 'EndOfMonth', Days: 10 } });
    expect(eom.body.Description).toBe('EOM + 10');
    expectProblem(await call('POST', '/api/organizations/payment-terms', { ...A(), body: { Name: 'net 45', Type: 'Net', Days: 30 } }), 409);
    expectProblem(await call('POST', '/api/organizations/payment-terms', { ...A(), body: { Name: 'Bad', Type: 'DueOnReceipt', Days: 5 } }), 400);
    const list = await call('GET', '/api/organizations/payment-terms?size=1&sort=Days&direction=desc', A());
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ Data: [expect.objectContaining({ Name: 'Net 45' })], TotalCount: 2, PageNumber: 1, PageSize: 1 });
    const changed = await call('PUT', `/api/organizations/payment-terms/${eom.body.PaymentTermId}`, { ...A(), body: { Name: 'EOM 15', Type: 'EndOfMonth', Days: 15 } });
    expect(changed.body).toMatchObject({ Name: 'EOM 15', Days: 15 });
    const { customerNumber } = await customerWithProduct(org);
    expect((await setCredit(customerNumber, { paymentTermId: net.body.PaymentTermId })).status).toBe(200);
    expectProblem(await call('DELETE', `/api/organizations/payment-terms/${net.body.PaymentTermId}`, A()), 409);
    expect((await call('DELETE', `/api/organizations/payment-terms/${eom.body.PaymentTermId}`, A())).status).toBe(204);
    expectProblem(await call('GET', `/api/organizations/payment-terms/${eom.body.PaymentTermId}`, A()), 404);
  });

  test('when a rep or a customer tries to change terms or limits, then 403; another organization sees neither the term nor the customer', async () => {
    const { customerNumber } = await customerWithProduct(org);
    const rep = await repToken(org, `R${Date.now().toString(36)}`);
    expectProblem(await setCredit(customerNumber, { creditLimit: 1_000_000 }, rep), 403);
    expectProblem(await call('POST', '/api/organizations/payment-terms', { base: org.base, token: rep, body: { Name: 'Rep terms', Type: 'Net', Days: 90 } }), 403);
    const buyer = await customerToken(org, { CustomerNumber: customerNumber });
    expectProblem(await setCredit(customerNumber, { creditLimit: 1_000_000 }, buyer), 403);
    expect((await call('GET', `/api/customers/${customerNumber}/credit`, { base: org.base, token: buyer })).status).toBe(200);
    const other = await createOrg();
    const t = await call('POST', '/api/organizations/payment-terms', { ...A(), body: { Name: 'Mine', Type: 'Net', Days: 10 } });
    expectProblem(await call('GET', `/api/organizations/payment-terms/${t.body.PaymentTermId}`, { base: other.base, token: other.adminToken }), 404);
    expectProblem(await call('GET', `/api/customers/${customerNumber}/credit`, { base: other.base, token: other.adminToken }), 404);
    // A term id of another organization is not a term here.
    const { customerNumber: theirs } = await customerWithProduct(other);
    expectProblem(await call('PUT', `/api/customers/${theirs}/credit`, { base: other.base, token: other.adminToken, body: { paymentTermId: t.body.PaymentTermId } }), 404);
  });
});

describe('on-account checkout', () => {
  test('when the order fits the limit, then an order without a charge and an Issued invoice due by the terms; above the limit 402 naming the available credit', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 40 });
    const term = await call('POST', '/api/organizations/payment-terms', { ...A(), body: { Name: `Net 30 ${customerNumber}`, Type: 'Net', Days: 30 } });
    const set = await setCredit(customerNumber, { paymentTermId: term.body.PaymentTermId, creditLimit: 100 });
    expect(set.body).toMatchObject({ creditLimit: 100, openBalance: 0, availableCredit: 100, creditHold: false, paymentTerms: { name: `Net 30 ${customerNumber}`, description: 'Net 30' } });

    const id = await cartFor(customerNumber, sku, 2);
    const before = Date.now();
    const res = await onAccount(customerNumber, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ orderNumber: expect.stringMatching(/^SO-/), confirmationId: expect.any(String) });
    const ledger = (await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=checkout-${id}`)).json()) as { entries: unknown[] };
    expect(ledger.entries).toHaveLength(0);
    const inv = await invoiceOfOrder(res.body.orderNumber);
    expect(inv).toMatchObject({ status: 'Issued', terms: `Net 30 ${customerNumber}`, total: 80, balance: 80 });
    const due = Date.parse(inv.dueDate);
    expect(due).toBeGreaterThanOrEqual(before + 30 * DAY - 60_000);
    expect(due).toBeLessThanOrEqual(Date.now() + 30 * DAY + 60_000);
    expect(await credit(customerNumber)).toMatchObject({ creditLimit: 100, openBalance: 80, availableCredit: 20 });

    const second = await cartFor(customerNumber, sku, 1);
    const refused = await onAccount(customerNumber, second);
    expectProblem(refused, 402);
    expect(refused.body.detail).toMatch(/Available credit is \$20\.00/);
    expect(refused.body.errors).toEqual({ payment: ['Available credit: $20.00.'] });
    expect((await call('GET', `/api/carts/${second}`, A())).body.status).toBe('PENDING');
  });

  test('when the customer has no credit limit, then on-account checkout is 402 and a card checkout still works', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 5 });
    const id = await cartFor(customerNumber, sku, 1);
    const res = await onAccount(customerNumber, id);
    expectProblem(res, 402);
    expect(res.body.detail).toMatch(/no credit limit/);
  });

  test('when ten on-account orders of one customer are recorded at once, then together they never exceed the limit', async () => {
    const { customerNumber } = await customerWithProduct(org);
    await setCredit(customerNumber, { creditLimit: 100 });
    // One on-account checkout first, over HTTP: 30 of the 100 are used.
    const { sku } = await customerWithProduct(org, { price: 30 });
    const id = await cartFor(customerNumber, sku, 1);
    expect((await onAccount(customerNumber, id)).status).toBe(200);
    // Ten orders of 25 at once through the checkout's order step (createOrder + reserveCredit), in ten overlapping transactions.
    const script = path.join((stack as unknown as { distDir: string }).distDir, 'scripts', 'chaos', 'credit-race.js');
    const { stdout } = await promisify(execFile)(process.execPath, [script, org.organizationId, customerNumber, '10', '25'], { env: { ...process.env, DATABASE_URL: stack.env.production.DATABASE_URL } });
    const out = JSON.parse(stdout.trim().split('\n').pop()!) as { placed: number; refused: string[] };
    expect(out.placed).toBe(2);
    expect(out.refused).toHaveLength(8);
    for (const r of out.refused) expect(r).toMatch(/Available credit is \$20\.00/);
    const after = await credit(customerNumber);
    expect(after).toMatchObject({ creditLimit: 100, openBalance: 80, availableCredit: 20 });
  });
});
