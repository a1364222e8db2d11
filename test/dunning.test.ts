/**
 * Dunning over HTTP against the real stack (issue 23 item 3; docs/credit.md "Dunning"). The test
 * stack shortens a dunning day to 1 s and puts the due date 12 s after the invoice is issued
 * (DUNNING_DAY_SECONDS, DUNNING_DUE_AFTER_SECONDS in scripts/lib/stack.ts): reminders at 5, 12, 19
 * and 26 s, the credit hold at 42 s. The worker-crash test is test/dunning-crash.test.ts.
 */
import { call, createOrg, dbQuery, expectProblem, mailsFor, waitForMail, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';

jest.setTimeout(240_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = {
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
};

async function cartFor(customerNumber: string, sku: string, quantity: number) {
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity, orderType: 'Standard' } });
  expect(c.status).toBe(201);
  const id = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
  return id;
}
const checkout = (customerNumber: string, id: string, payment: unknown) =>
  call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment } });
const credit = async (customerNumber: string) => (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body;
const events = (invoiceId: string) =>
  dbQuery<{ type: string; step: string | null }>(
    `select type, data->>'step' as step from webhook_event where organization_id = $1 and data->>'invoiceId' = $2 and type in ('invoice.reminder_sent', 'customer.credit_hold_placed', 'customer.credit_hold_released') order by occurred_at, type`,
    [org.organizationId, invoiceId],
  );

test('when an on-account invoice stays unpaid, then reminders at due-7, due, +7, +14 and a credit hold at +30; on hold on-account checkout is 409 and a card checkout works; paying releases the hold at once', async () => {
  const { customerNumber, sku } = await customerWithProduct(org, { price: 50 });
  const to = `${customerNumber.toLowerCase()}@example.com`;
  expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 500 } })).status).toBe(200);
  const first = await checkout(customerNumber, await cartFor(customerNumber, sku, 1), { method: 'OnAccount' });
  expect(first.status).toBe(200);
  const orders = await call('GET', `/api/orders?filters=${encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: first.body.orderNumber }]))}`, A());
  const inv = (await call('GET', `/api/invoices?orderId=${orders.body.data[0].id}`, A())).body.items[0];
  const n = inv.invoiceNumber as string;

  await waitForMail(to, (m) => m.subject.includes('credit hold'), 120_000);
  const subjects = (await mailsFor(to)).map((m) => m.subject).filter((s) => !s.startsWith('Order') && !s.startsWith('Invoice'));
  expect(subjects.sort()).toEqual(
    [`Overdue: invoice ${n} is 14 days past due`, `Overdue: invoice ${n} is 7 days past due`, `Reminder: invoice ${n} is due`, `Reminder: invoice ${n} is due`, expect.stringMatching(/is on credit hold$/)].sort(),
  );
  expect(await events(inv.id)).toEqual([
    { type: 'invoice.reminder_sent', step: 'due-7' },
    { type: 'invoice.reminder_sent', step: 'due' },
    { type: 'invoice.reminder_sent', step: 'due+7' },
    { type: 'invoice.reminder_sent', step: 'due+14' },
    { type: 'customer.credit_hold_placed', step: 'hold' },
  ]);
  expect(await credit(customerNumber)).toMatchObject({ creditHold: true, holdInvoiceNumbers: [n], openBalance: 50, availableCredit: 450 });

  // On hold: on account is refused naming the overdue invoice, though the order fits the limit; a card still works.
  const cart = await cartFor(customerNumber, sku, 1);
  const held = await checkout(customerNumber, cart, { method: 'OnAccount' });
  expectProblem(held, 409);
  expect(held.body.detail).toContain(n);
  expect((await checkout(customerNumber, cart, card)).status).toBe(200);

  // Paying the overdue invoice in full lifts the hold at once; the workflow records the release.
  const paid = await call('POST', `/api/invoices/${inv.id}/payments`, { ...A(), body: { amount: 50, currencyCode: 'USD', method: 'EFT', paymentDate: new Date().toISOString() } });
  expect(paid.status).toBe(200);
  expect(paid.body.status).toBe('Paid');
  expect(await credit(customerNumber)).toMatchObject({ creditHold: false, holdInvoiceNumbers: [], openBalance: 0 });
  expect((await checkout(customerNumber, await cartFor(customerNumber, sku, 1), { method: 'OnAccount' })).status).toBe(200);
  const deadline = Date.now() + 30_000;
  while (!(await events(inv.id)).some((e) => e.type === 'customer.credit_hold_released')) {
    if (Date.now() > deadline) throw new Error('no credit_hold_released event');
    await new Promise((r) => setTimeout(r, 250));
  }
  expect((await events(inv.id)).filter((e) => e.type === 'customer.credit_hold_released')).toHaveLength(1);
});

test('when an invoice is paid before its first reminder, then no reminder goes out and no hold follows', async () => {
  const { customerNumber, sku } = await customerWithProduct(org, { price: 20 });
  const to = `${customerNumber.toLowerCase()}@example.com`;
  await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 100 } });
  const res = await checkout(customerNumber, await cartFor(customerNumber, sku, 1), { method: 'OnAccount' });
  const orders = await call('GET', `/api/orders?filters=${encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: res.body.orderNumber }]))}`, A());
  const inv = (await call('GET', `/api/invoices?orderId=${orders.body.data[0].id}`, A())).body.items[0];
  expect((await call('POST', `/api/invoices/${inv.id}/payments`, { ...A(), body: { amount: 20, currencyCode: 'USD', method: 'Check', paymentDate: new Date().toISOString() } })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 22_000)); // past due-7, due and due+7 of the shortened schedule
  expect((await mailsFor(to)).filter((m) => /Reminder|Overdue|credit hold/.test(m.subject))).toEqual([]);
  expect(await events(inv.id)).toEqual([]);
  expect((await credit(customerNumber)).creditHold).toBe(false);
});
