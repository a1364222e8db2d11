import { call, createOrg, dbQuery, stack, uniq, type OrgFixture } from './support/helpers';
import { ensurePriceTier, invoiceBody } from './support/matrix-fixtures';

/** A hosted payment set up for an invoice: the provider's callback records one payment and moves the invoice. */
const PROVIDER = stack.urls.provider;
const RETURN_URL = 'https://shop.example.com/pay/return';
const nextYear = String(new Date().getUTCFullYear() + 2);

const ledger = async (query: string) =>
  ((await (await fetch(`${PROVIDER}/ledger?${query}`)).json()) as { entries: { kind: string; chargeId: string; amount: string }[] }).entries;

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
  test('when a hosted setup for an invoice asks for more than its balance (500.00 on 100.00), then 400 names transactionAmount and no page is set up', async () => {
    const customerNumber = await customer();
    const inv = await issuedInvoiceFor(customerNumber, 100);
    for (const ref of [{ invoiceId: inv.id }, { invoiceNumber: inv.invoiceNumber }]) {
      const refused = await call('POST', '/api/payments/hosted/transaction-setup', {
        token: org.adminToken,
        body: { customerNumber, transactionAmount: 500, applicationReturnUrl: RETURN_URL, ...ref },
      });
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
      expect(Object.keys(refused.body.errors)).toEqual(['transactionAmount']);
    }
    expect(await dbQuery('select 1 from hosted_payment_setup where invoice_id = $1', [inv.id])).toHaveLength(0);
    // The whole balance is still accepted.
    const whole = await call('POST', '/api/payments/hosted/transaction-setup', {
      token: org.adminToken,
      body: { customerNumber, transactionAmount: 100, applicationReturnUrl: RETURN_URL, invoiceId: inv.id },
    });
    expect(whole.status).toBe(201);
  });

  test('when another payment reduces the balance after a hosted setup and the provider approves the hosted charge, then the charge is voided at the provider, not recorded, and the setup says Voided', async () => {
    const customerNumber = await customer();
    const inv = await issuedInvoiceFor(customerNumber, 100);
    const setup = await call('POST', '/api/payments/hosted/transaction-setup', {
      token: org.adminToken,
      body: { customerNumber, transactionAmount: 80, applicationReturnUrl: RETURN_URL, invoiceId: inv.id },
    });
    expect(setup.status).toBe(201);
    const transactionSetupId = setup.body.transactionSetupId as string;
    // Meanwhile the customer pays 50.00 by wire: 50.00 is left, less than the 80.00 on the hosted page.
    const wire = await call('POST', `/api/invoices/${inv.id}/payments`, {
      token: org.adminToken,
      body: { amount: 50, currencyCode: 'USD', method: 'Wire', paymentDate: '2026-02-01T00:00:00.000Z' },
    });
    expect(wire.status).toBe(200);
    const paid = await payOnProviderPage(setup.body.hostedPaymentUrl);
    expect(paid.status).toBe(302);
    expect(new URL(paid.location!).searchParams.get('result')).toBe('Voided');
    const [row] = await dbQuery('select status, result, provider_transaction_id, invoice_payment_id from hosted_payment_setup where transaction_setup_id = $1', [transactionSetupId]);
    expect(row).toMatchObject({ result: 'Voided', invoice_payment_id: null, provider_transaction_id: expect.any(String) });
    const entries = await ledger(`chargeId=${encodeURIComponent(row.provider_transaction_id)}`);
    expect(entries.map((e) => [e.kind, e.amount])).toEqual([
      ['charge', '80.00'],
      ['void', '80.00'],
    ]);
    const after = await call('GET', `/api/invoices/${inv.id}`, { token: org.adminToken });
    expect(after.body).toMatchObject({ status: 'PartiallyPaid', amountPaid: 50, balance: 50 });
    expect(after.body.payments).toHaveLength(1);
    // The provider calling back again voids nothing more and records nothing.
    expect((await call('POST', `/hosted/callbacks/${transactionSetupId}/resend`, { base: PROVIDER })).status).toBe(200);
    expect((await ledger(`chargeId=${encodeURIComponent(row.provider_transaction_id)}`)).map((e) => e.kind)).toEqual(['charge', 'void']);
    expect((await call('GET', `/api/invoices/${inv.id}`, { token: org.adminToken })).body.payments).toHaveLength(1);
  });
});
