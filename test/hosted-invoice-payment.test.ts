import { call, createOrg, stack, uniq, type OrgFixture } from './helpers';
import { ensurePriceTier, invoiceBody } from './matrix-fixtures';

/** A hosted payment set up for an invoice: the provider's callback records one payment and moves the invoice. */
const PROVIDER = stack.urls.provider;
const RETURN_URL = 'https://shop.example.com/pay/return';
const nextYear = String(new Date().getUTCFullYear() + 2);

async function payOnProviderPage(hostedPaymentUrl: string, cardNumber = '4111111111111111') {
  const page = await fetch(hostedPaymentUrl);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? new URL(hostedPaymentUrl).pathname;
  const res = await fetch(new URL(action, hostedPaymentUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ cardholderName: 'Ada Buyer', cardNumber, expMonth: '12', expYear: nextYear, cvv: '123' }).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') };
}

/**
 * The callback answers after at most ~5 s; reconciliation is durable but asynchronous (a worker may be
 * restarting, e.g. during the checkout crash test), so wait for the invoice to reach the expected state.
 */
async function invoiceWhen(org: OrgFixture, id: string, status: string, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call('GET', `/api/invoices/${id}`, { token: org.adminToken });
    if (res.body.status === status || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 300));
  }
}

jest.setTimeout(90_000);

describe('hosted payment against an invoice', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
    await ensurePriceTier(org);
  });

  async function issuedInvoiceFor(customerNumber: string, price: number) {
    const body = invoiceBody({ items: [{ sku: 'SKU-1', productName: 'Widget', quantity: 1, price }] });
    body.customer.customerNumber = customerNumber;
    const created = await call('POST', '/api/invoices', { token: org.adminToken, body });
    expect(created.status).toBe(201);
    expect((await call('POST', `/api/invoices/${created.body.id}/issue`, { token: org.adminToken })).status).toBe(200);
    return created.body as { id: string; invoiceNumber: string };
  }

  async function customer(): Promise<string> {
    const customerNumber = uniq('C');
    const res = await call('PUT', '/api/customers', { token: org.adminToken, body: { customerNumber, companyName: `Co ${customerNumber}`, companyEmail: 'co@example.com', pricing: 'Retail' } });
    expect(res.status).toBe(201);
    return customerNumber;
  }

  test('when the customer pays part of an invoice on the hosted page and the callback arrives three times, then one payment is recorded and the invoice is PartiallyPaid', async () => {
    const customerNumber = await customer();
    const inv = await issuedInvoiceFor(customerNumber, 100);
    const setup = await call('POST', '/api/payments/hosted/transaction-setup', {
      token: org.adminToken,
      body: { customerNumber, transactionAmount: 40, applicationReturnUrl: RETURN_URL, invoiceNumber: inv.invoiceNumber },
    });
    expect(setup.status).toBe(201);
    const paid = await payOnProviderPage(setup.body.hostedPaymentUrl);
    expect(paid.status).toBe(302);
    expect(paid.location).toContain('result=Approved');
    await invoiceWhen(org, inv.id, 'PartiallyPaid');
    for (let i = 0; i < 2; i++) expect((await call('POST', `/hosted/callbacks/${setup.body.transactionSetupId}/resend`, { base: PROVIDER })).status).toBe(200);
    const after = await call('GET', `/api/invoices/${inv.id}`, { token: org.adminToken });
    expect(after.body.status).toBe('PartiallyPaid');
    expect(after.body.amountPaid).toBe(40);
    expect(after.body.balance).toBe(60);
    expect(after.body.payments).toHaveLength(1);
    expect(after.body.payments[0]).toMatchObject({ amount: 40, method: 'Card', last4Digits: '1111' });
  });

  test('when the hosted payment covers the balance, then the invoice is Paid', async () => {
    const customerNumber = await customer();
    const inv = await issuedInvoiceFor(customerNumber, 25.5);
    const setup = await call('POST', '/api/payments/hosted/transaction-setup', {
      token: org.adminToken,
      body: { customerNumber, transactionAmount: 25.5, applicationReturnUrl: RETURN_URL, invoiceId: inv.id },
    });
    expect(setup.status).toBe(201);
    expect((await payOnProviderPage(setup.body.hostedPaymentUrl)).location).toContain('result=Approved');
    const after = await invoiceWhen(org, inv.id, 'Paid');
    expect(after.body.status).toBe('Paid');
    expect(after.body.balance).toBe(0);
  });

  test('when the invoice is still Draft or belongs to another customer, then the setup is refused with a field error', async () => {
    const customerNumber = await customer();
    const draftBody = invoiceBody();
    draftBody.customer.customerNumber = customerNumber;
    const draft = await call('POST', '/api/invoices', { token: org.adminToken, body: draftBody });
    const refused = await call('POST', '/api/payments/hosted/transaction-setup', {
      token: org.adminToken,
      body: { customerNumber, transactionAmount: 5, applicationReturnUrl: RETURN_URL, invoiceId: draft.body.id },
    });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors)).toContain('invoiceId');
    const otherCustomer = await customer();
    const inv = await issuedInvoiceFor(customerNumber, 10);
    const wrong = await call('POST', '/api/payments/hosted/transaction-setup', {
      token: org.adminToken,
      body: { customerNumber: otherCustomer, transactionAmount: 5, applicationReturnUrl: RETURN_URL, invoiceId: inv.id },
    });
    expect(wrong.status).toBe(400);
  });
});
