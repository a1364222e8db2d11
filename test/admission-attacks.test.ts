/**
 * Admission of orders (issue 38 items 3, 5 and 13; docs/security.md "Admission of orders"): every
 * path to a buyer's order (checkout, quote accept, POST /api/orders by a customer user) goes through
 * the same spending limits (202 PendingApproval above them) and the same credit admission (the
 * balance read without the order being admitted, one customer at a time, only in the limit's
 * currency); a quote can be accepted by card like a checkout. Each test is named after the attack.
 */
import { call, createOrg, dbQuery, ensureCustomer, expectProblem, uniq, type OrgFixture } from './helpers';
import { ensurePriceTier, invoiceBody } from './matrix-fixtures';

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
    const moved = await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, pricing: 'Euro' } });
    expect([200, 201]).toContain(moved.status);
    const res = await accept(id);
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors)).toEqual(['currencyCode']);
    expect((await call('GET', `/api/quotes/${id}`, A())).body.status).toBe('Quoted');
  });
});
