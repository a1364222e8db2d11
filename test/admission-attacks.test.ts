/**
 * Admission of orders (issue 38 items 3, 5 and 13; docs/security.md "Admission of orders"): every
 * path to a buyer's order (checkout, quote accept, POST /api/orders by a customer user) goes through
 * the same spending limits (202 PendingApproval above them) and the same credit admission (the
 * balance read without the order being admitted, one customer at a time, only in the limit's
 * currency); a quote can be accepted by card like a checkout. Each test is named after the attack.
 */
import { call, createOrg, dbQuery, ensureCustomer, expectProblem, saveCard, uniq, type OrgFixture } from './support/helpers';
import { buyerWorld, card } from './support/approval-fixtures';
import { ensurePriceTier, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(180_000);

let org: OrgFixture;
let sku: string;
const A = () => ({ base: org.base, token: org.adminToken });

beforeAll(async () => {
  org = await createOrg();
  await ensurePriceTier(org, 'Retail', 'USD');
  sku = uniq('ASKU-');
  const p = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Product ${sku}`, prices: [{ tier: 'Retail', price: 100, atQuantity: 1 }] } });
  if (p.status !== 201) throw new Error(`product: ${p.status} ${p.text}`);
});

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Waits until the request's first level has been asked (the workflow asks it just after the request is stored). */
const asked = (approvalId: string, token: string) =>
  waitFor(async () => (await call('GET', `/api/approvals/${approvalId}`, { base: org.base, token })).body, (b: any) => b.chain?.some((e: any) => e.type === 'Asked'));

async function customer(creditLimit: number | null): Promise<string> {
  const customerNumber = uniq('AC');
  await ensureCustomer(org, customerNumber);
  const r = await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit } });
  if (r.status !== 200) throw new Error(`credit: ${r.status} ${r.text}`);
  return customerNumber;
}

/** A quote of the customer offered at `total` (one line of `sku` at that unit price), requested and offered by the admin. */
async function quoteOf(customerNumber: string, total: number, token = org.adminToken): Promise<string> {
  const q = await call('POST', '/api/quotes', { base: org.base, token, body: { customerNumber, items: [{ sku, quantity: 1 }] } });
  if (q.status !== 201) throw new Error(`quote: ${q.status} ${q.text}`);
  const o = await call('POST', `/api/quotes/${q.body.quoteId}/offers`, { ...A(), body: { items: [{ sku, quantity: 1, unitPrice: total }] } });
  if (o.status !== 200) throw new Error(`offer: ${o.status} ${o.text}`);
  return q.body.quoteId as string;
}

const accept = (quoteId: string, body: Record<string, unknown> = { poNumber: 'PO-A' }, token = org.adminToken) => call('POST', `/api/quotes/${quoteId}/accept`, { base: org.base, token, body });
const credit = async (customerNumber: string) => (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body;

describe('credit admission (item 5)', () => {
  it('a customer with 250.00 of credit and nothing owed accepts a 200.00 on-account quote (its own order is not counted against it)', async () => {
    const customerNumber = await customer(250);
    const id = await quoteOf(customerNumber, 200);
    const res = await accept(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Accepted', orderNumber: expect.any(String) });
    const after = await waitFor(() => credit(customerNumber), (c) => c.openBalance === 200);
    expect(after).toMatchObject({ creditLimit: 250, openBalance: 200, availableCredit: 50 });
  });

  it('ten concurrent accepts of 25.00 quotes against 70.00 of credit place exactly two', async () => {
    const customerNumber = await customer(70);
    const ids = await Promise.all(Array.from({ length: 10 }, () => quoteOf(customerNumber, 25)));
    const results = await Promise.all(ids.map((id) => accept(id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 402, 402, 402, 402, 402, 402, 402, 402]);
    for (const r of results.filter((x) => x.status === 402)) {
      expect(r.body.detail).toBe('Available credit is $20.00 (limit $70.00, open balance $50.00); this order is $25.00.');
      expect(r.body.errors).toEqual({ payment: ['Available credit: $20.00.'] });
    }
    const orders = await dbQuery<{ n: string }>(`select count(*)::text as n from sales_order where organization_id = $1 and customer_number = $2`, [org.organizationId, customerNumber]);
    expect(orders[0].n).toBe('2');
    const quotes = await Promise.all(ids.map(async (id) => (await call('GET', `/api/quotes/${id}`, A())).body.status));
    expect(quotes.filter((s) => s === 'Accepted')).toHaveLength(2);
    expect(quotes.filter((s) => s === 'Quoted')).toHaveLength(8);
  });

  it('a EUR 10.00 invoice is not added to a USD open balance as 10.00', async () => {
    const customerNumber = await customer(100);
    const body = invoiceBody({ currencyCode: 'EUR', items: [{ sku: 'EU-1', productName: 'Euro widget', quantity: 1, price: 10 }] });
    body.customer.customerNumber = customerNumber;
    const created = await call('POST', '/api/invoices', { ...A(), body });
    expect(created.status).toBe(201);
    expect((await call('POST', `/api/invoices/${created.body.id}/issue`, A())).status).toBe(200);
    expect(await credit(customerNumber)).toMatchObject({ currencyCode: 'USD', creditLimit: 100, openBalance: 0, availableCredit: 100 });
  });

  it('buying on account in another currency than the credit limit is refused naming currencyCode', async () => {
    const customerNumber = await customer(1000);
    const id = await quoteOf(customerNumber, 50);
    // The customer moves to a EUR price tier: its limit is now in EUR, the quote (and its order) in USD.
    await ensurePriceTier(org, 'Euro', 'EUR');
    const moved = await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Euro' } });
    expect([200, 201]).toContain(moved.status);
    const res = await accept(id);
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['currencyCode']);
    expect((await call('GET', `/api/quotes/${id}`, A())).body.status).toBe('Quoted');
  });
});

describe('spending limits on every path (item 3)', () => {
  it('a buyer limited to 150.00 cannot place a 1,000.00 order by accepting a quote', async () => {
    const w = await buyerWorld(org, { orderLimit: 150 });
    expect((await call('PUT', `/api/customers/${w.customerNumber}/credit`, { ...A(), body: { creditLimit: 100_000 } })).status).toBe(200);
    const id = await quoteOf(w.customerNumber, 1000, w.buyer.token);
    const held = await accept(id, { poNumber: 'PO-L' }, w.buyer.token);
    expect(held.status).toBe(202);
    expect(held.body).toEqual({ status: 'PendingApproval', approvalId: expect.any(String) });
    // Asked again while it waits: the same request; the quote stays Quoted, no order.
    expect((await accept(id, { poNumber: 'PO-L' }, w.buyer.token)).body.approvalId).toBe(held.body.approvalId);
    expect((await call('GET', `/api/quotes/${id}`, A())).body).toMatchObject({ status: 'Quoted', orderId: null });
    const approval = await call('GET', `/api/approvals/${held.body.approvalId}`, { base: org.base, token: w.approver1.token });
    expect(approval.body).toMatchObject({ subject: 'Quote', quoteId: id, total: 1000, status: 'Pending' });
    await asked(held.body.approvalId, w.approver1.token);
    const approved = await call('POST', `/api/approvals/${held.body.approvalId}/approve`, { base: org.base, token: w.approver1.token });
    expect(approved.status).toBe(200);
    const q = await waitFor(async () => (await call('GET', `/api/quotes/${id}`, A())).body, (b) => b.status === 'Accepted');
    expect(q).toMatchObject({ status: 'Accepted', orderNumber: expect.any(String) });
    const orders = await dbQuery<{ n: string }>(`select count(*)::text as n from sales_order where organization_id = $1 and quote_id = $2`, [org.organizationId, id]);
    expect(orders[0].n).toBe('1');
    const a = await waitFor(async () => (await call('GET', `/api/approvals/${held.body.approvalId}`, A())).body, (b) => b.orderNumber !== null);
    expect(a).toMatchObject({ status: 'Approved', orderNumber: q.orderNumber });
  });

  it('a buyer limited to 150.00 per order cannot post a 2,000.00 order through POST /api/orders: it waits as PendingApproval, is neither fulfilled nor invoiced, and a reject cancels it', async () => {
    const w = await buyerWorld(org, { orderLimit: 150 });
    const body = {
      customer: { customerNumber: w.customerNumber, companyName: 'Buyer Co' },
      orderType: 'Standard',
      poNumber: uniq('PO'),
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber: 'R1' },
      items: [{ sku: w.sku, productName: 'x', quantity: 20, price: 0.01 }],
      user: { userId: w.buyer.userId, userType: 'Customer' },
    };
    const res = await call('POST', '/api/orders', { base: org.base, token: w.buyer.token, body });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'PendingApproval', approvalId: expect.any(String), data: { id: expect.any(String) } });
    const orderId = res.body.data.id as string;
    expect((await call('GET', `/api/orders/${orderId}`, A())).body).toMatchObject({ orderStatus: 'PendingApproval', total: 2000 });
    expectProblem(await call('PUT', `/api/orders/${orderId}`, { ...A(), body: { orderStatus: 'Processing' } }), 400);
    const inv = invoiceBody({ orderId, orderNumber: res.body.data.orderNumber });
    inv.customer.customerNumber = w.customerNumber;
    expectProblem(await call('POST', '/api/invoices', { ...A(), body: inv }), 409);
    await asked(res.body.approvalId, w.approver1.token);
    const rejected = await call('POST', `/api/approvals/${res.body.approvalId}/reject`, { base: org.base, token: w.approver1.token, body: { reason: 'Too much' } });
    expect(rejected.status).toBe(200);
    expect((await call('GET', `/api/orders/${orderId}`, A())).body.orderStatus).toBe('Cancelled');
  });

  it('an approved posted order is released to Pending', async () => {
    const w = await buyerWorld(org, { orderLimit: 150 });
    const body = {
      customer: { customerNumber: w.customerNumber, companyName: 'Buyer Co' },
      orderType: 'Standard',
      poNumber: uniq('PO'),
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber: 'R1' },
      items: [{ sku: w.sku, productName: 'x', quantity: 2, price: 0.01 }],
      user: { userId: w.buyer.userId, userType: 'Customer' },
    };
    const res = await call('POST', '/api/orders', { base: org.base, token: w.buyer.token, body });
    expect(res.status).toBe(202);
    expect((await call('POST', `/api/approvals/${res.body.approvalId}/approve`, A())).status).toBe(200);
    expect((await call('GET', `/api/orders/${res.body.data.id}`, A())).body.orderStatus).toBe('Pending');
  });
});

describe('card accepts (item 13)', () => {
  it('a customer without a credit limit who pays by card accepts a quote with a saved card: one charge, the invoice paid', async () => {
    const customerNumber = await customer(null);
    const paymentProfileId = await saveCard(org, customerNumber);
    const id = await quoteOf(customerNumber, 120);
    expectProblem(await accept(id), 402);
    const res = await accept(id, { poNumber: 'PO-C', paymentProfileId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Accepted', orderNumber: expect.any(String) });
    const inv = await waitFor(
      async () => (await dbQuery<{ status: string; terms: string }>(`select status, terms from invoice where organization_id = $1 and order_number = $2`, [org.organizationId, res.body.orderNumber]))[0],
      (i) => i?.status === 'Paid',
    );
    expect(inv.status).toBe('Paid');
    expect((await accept(id, { paymentProfileId })).status).toBe(409);
  });

  it('card details given on accept are tokenized and never come back in the answer', async () => {
    const customerNumber = await customer(null);
    const id = await quoteOf(customerNumber, 80);
    const res = await accept(id, { poNumber: 'PO-D', payment: card() });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Accepted');
    expect(res.text).not.toContain('4111111111111111');
  });

  it('another customer\'s saved card cannot pay an accept (404)', async () => {
    const mine = await customer(null);
    const theirs = await customer(null);
    const theirCard = await saveCard(org, theirs);
    const id = await quoteOf(mine, 50);
    expectProblem(await accept(id, { paymentProfileId: theirCard }), 404);
    expect((await call('GET', `/api/quotes/${id}`, A())).body.status).toBe('Quoted');
  });
});
