/**
 * The webhook events written by features through the outbox (not by triggers): import.completed,
 * commission_statement.approved and payment.failed, each arriving once at a subscribed receiver
 * with the data of the change it reports.
 */
import { call, createOrg, dbQuery, ensureCustomer, saveCard, uniq, type OrgFixture } from './support/helpers';
import { runJson } from './support/import-helpers';
import { createSalesRep, customerWithProduct, invoiceBody } from './support/matrix-fixtures';
import { startReceiver, type Receiver, type Received } from './support/webhook-receiver';

jest.setTimeout(120_000);
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

async function subscribe(o: OrgFixture, p: string, events: string[]) {
  const res = await call('POST', '/api/webhooks', { base: o.base, token: o.adminToken, body: { url: rx.url(p), events } });
  expect(res.status).toBe(201);
}

/** Waits for the first event of `type` at `p`, then a little longer, and answers all of that type (to prove there is one). */
async function arrivals(p: string, type: string): Promise<Received[]> {
  await rx.waitFor(p, (l) => l.some((r) => r.json?.type === type), 60_000);
  await new Promise((r) => setTimeout(r, 3000));
  return (await rx.waitFor(p, () => true)).filter((r) => r.json?.type === type);
}

test('when an import job finishes, then import.completed arrives once with its status and counts', async () => {
  const o = await createOrg();
  await subscribe(o, '/imports', ['import.completed']);
  const p = uniq('SKU');
  const job = await runJson(o, { kind: 'products', records: [{ sku: `${p}-1`, name: 'A' }, { sku: `${p}-2`, name: 'B' }, { sku: `${p}-3` }] });
  expect(job.status).toBe('SucceededWithErrors');
  const got = await arrivals('/imports', 'import.completed');
  expect(got).toHaveLength(1);
  expect(got[0].json).toEqual({
    type: 'import.completed',
    timestamp: expect.any(String),
    data: {
      jobId: job.jobId,
      kind: 'products',
      mode: 'apply',
      status: 'SucceededWithErrors',
      counts: { totalRecords: 3, processed: 3, created: 2, updated: 0, unchanged: 0, failed: 1 },
    },
  });
});

test('when a commission statement is approved, then commission_statement.approved arrives once with its totals', async () => {
  const o = await createOrg();
  await subscribe(o, '/commissions', ['commission_statement.approved']);
  const O = { base: o.base, token: o.adminToken };
  const rep = await createSalesRep(o);
  const plan = await call('POST', '/api/commissions/plans', { ...O, body: { SalesRepId: rep.salesRepId, Name: 'Flat', DefaultRate: 0.1, EffectiveStartDate: '2026-01-01T00:00:00Z', Active: true } });
  expect(plan.status).toBe(201);
  const body = invoiceBody({ invoiceDate: '2026-03-05T12:00:00.000Z', dueDate: '2026-12-31T00:00:00.000Z', items: [{ sku: 'W-1', productName: 'Widget', quantity: 3, price: 33.33 }] });
  body.primarySalesRep = { ...body.primarySalesRep, repNumber: rep.repNumber };
  const inv = await call('POST', '/api/invoices', { ...O, body });
  expect(inv.status).toBe(201);
  expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, O)).status).toBe(200);
  const req = await call('POST', '/api/commissions/statements', { ...O, body: { salesRepId: rep.salesRepId, startDate: '2026-03-01', endDate: '2026-03-31' } });
  expect(req.status).toBe(202);
  const id = req.body.statementId as string;
  const deadline = Date.now() + 60_000;
  while ((await call('GET', `/api/commissions/statements/${id}`, O)).body.status !== 'Draft') {
    if (Date.now() > deadline) throw new Error('statement not Draft');
    await new Promise((r) => setTimeout(r, 250));
  }
  const ap = await call('POST', `/api/commissions/statements/${id}/approve`, O);
  expect(ap.status).toBe(200);
  const got = await arrivals('/commissions', 'commission_statement.approved');
  expect(got).toHaveLength(1);
  expect(got[0].json.data).toEqual({
    statementId: id,
    salesRepId: rep.salesRepId,
    repNumber: rep.repNumber,
    period: { startDate: '2026-03-01', endDate: '2026-03-31' },
    currencyCode: 'USD',
    totalCommission: 10,
    payableTotal: 10,
    approvedAt: expect.any(String),
    approvedBy: o.adminUserId,
  });
});

test('when the provider refuses the charge of an invoice card payment, then 402 and payment.failed arrives once', async () => {
  const o = await createOrg();
  await subscribe(o, '/payments', ['payment.failed', 'payment.succeeded']);
  const O = { base: o.base, token: o.adminToken };
  const inv = await call('POST', '/api/invoices', { ...O, body: invoiceBody({ items: [{ sku: 'SKU-1', productName: 'Widget', quantity: 3, price: 33.33 }] }) });
  expect(inv.status).toBe(201);
  expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, O)).status).toBe(200);
  const customerNumber = inv.body.customer.customerNumber as string;
  await ensureCustomer(o, customerNumber);
  const saved = await saveCard(o, customerNumber);
  // The card on file is gone at the provider (the provider answers payment_profile_not_found, a 402 refusal).
  const gone = uniq('pp_gone_');
  await dbQuery('update payment_method set payment_profile_id = $1 where organization_id = $2 and payment_profile_id = $3', [gone, o.organizationId, saved]);
  const pay = await call('POST', `/api/invoices/${inv.body.id}/payments`, {
    ...O,
    body: { amount: 50, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: gone },
  });
  expect(pay.status).toBe(402);
  const got = await arrivals('/payments', 'payment.failed');
  expect(got).toHaveLength(1);
  expect(got[0].json.data).toEqual({
    source: 'invoice',
    invoiceId: inv.body.id,
    invoiceNumber: inv.body.invoiceNumber,
    cartId: null,
    orderNumber: null,
    customerNumber,
    amount: 50,
    currencyCode: 'USD',
    code: 'payment_profile_not_found',
    message: expect.any(String),
  });
  expect((await rx.waitFor('/payments', () => true)).filter((r) => r.json?.type === 'payment.succeeded')).toHaveLength(0);
});

test('when the provider refuses the charge of a checkout, then 402, the cart stays PENDING and payment.failed arrives once', async () => {
  const o = await createOrg();
  await subscribe(o, '/checkout', ['payment.failed', 'order.created']);
  const O = { base: o.base, token: o.adminToken };
  const { customerNumber, sku } = await customerWithProduct(o, { price: 12.5 });
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...O, body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  const cartId = c.body.shoppingCartId as string;
  const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
  expect((await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...O, body: { customerNumber, shippingAddress: address } })).status).toBeLessThan(300);
  const saved = await saveCard(o, customerNumber);
  const gone = uniq('pp_gone_');
  await dbQuery('update payment_method set payment_profile_id = $1 where organization_id = $2 and payment_profile_id = $3', [gone, o.organizationId, saved]);
  const res = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...O, body: { customerNumber, channel: 'Web', paymentProfileId: gone } });
  expect(res.status).toBe(402);
  expect((await call('GET', `/api/carts/${cartId}`, O)).body.status).toBe('PENDING');
  const got = await arrivals('/checkout', 'payment.failed');
  expect(got).toHaveLength(1);
  expect(got[0].json.data).toEqual({
    source: 'checkout',
    invoiceId: null,
    invoiceNumber: null,
    cartId,
    orderNumber: expect.stringMatching(/^SO-\d{6}$/),
    customerNumber,
    amount: 25,
    currencyCode: 'USD',
    code: 'payment_profile_not_found',
    message: expect.any(String),
  });
  expect((await rx.waitFor('/checkout', () => true)).filter((r) => r.json?.type === 'order.created')).toHaveLength(0);
});
