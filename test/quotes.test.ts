/**
 * Quotes over HTTP against the real stack (docs/quotes.md): workflow negotiateQuote, the order at
 * the quoted prices through createOrder, reminder and expiry timers (QUOTE_REMINDER_BEFORE is 5 s on
 * the test stack; an offer's expiresAt is set a few seconds ahead), visibility, the accept race.
 */
import { Client, Connection } from '@temporalio/client';
import { call, createOrg, customerToken, dbQuery, repToken, stack, uniq, waitForMail, type OrgFixture } from './support/helpers';

jest.setTimeout(120_000);

let org: OrgFixture;
let other: OrgFixture;
let connection: Connection;
let client: Client;
const A = () => ({ base: org.base, token: org.adminToken });
let skuA: string;
let skuB: string;

interface Party {
  customerNumber: string;
  email: string;
  buyer: string;
  rep: string;
}
const parties: Party[] = [];

async function product(prices: { price: number; atQuantity: number }[]) {
  const sku = uniq('QSKU-');
  const res = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Product ${sku}`, prices: prices.map((p) => ({ tier: 'Retail', ...p })) } });
  if (res.status !== 201) throw new Error(`product: ${res.status} ${res.text}`);
  return sku;
}

async function creditLimit(customerNumber: string, limit: number | null) {
  const r = await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: limit } });
  if (r.status !== 200) throw new Error(`credit: ${r.status} ${r.text}`);
}

async function party(): Promise<Party> {
  const customerNumber = uniq('QC');
  const repNumber = uniq('QR');
  const email = `${customerNumber.toLowerCase()}@example.com`;
  const rep = await repToken(org, repNumber);
  const c = await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: email, pricing: 'Retail', repNumber } });
  if (c.status !== 201 && c.status !== 200) throw new Error(`customer: ${c.status} ${c.text}`);
  // An accepted quote is bought on account (docs/credit.md): within the customer's credit limit.
  await creditLimit(customerNumber, 100_000);
  const buyer = await customerToken(org, { CustomerNumber: customerNumber, PriceTier: 'Retail', CurrencyCode: 'USD' });
  return { customerNumber, email, buyer, rep };
}

beforeAll(async () => {
  org = await createOrg();
  other = await createOrg();
  const t = await call('POST', '/api/organizations/price-tiers', { ...A(), body: { Name: 'Retail', CurrencyCode: 'USD' } });
  if (t.status !== 200 && t.status !== 409) throw new Error(`tier: ${t.status} ${t.text}`);
  skuA = await product([
    { price: 10, atQuantity: 1 },
    { price: 8, atQuantity: 10 },
  ]);
  skuB = await product([{ price: 25, atQuantity: 1 }]);
  parties.push(await party(), await party());
  connection = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection, namespace: 'default' });
});
afterAll(async () => {
  await connection?.close();
});

const as = (token: string) => ({ base: org.base, token });
const request = (p: Party, items: unknown[] = [{ sku: skuA, quantity: 12, targetPrice: 7 }, { sku: skuB, quantity: 2 }]) =>
  call('POST', '/api/quotes', { ...as(p.buyer), body: { customerNumber: p.customerNumber, items, notes: 'For the spring season' } });
const offer = (p: Party, id: string, body: Record<string, unknown> = {}) => call('POST', `/api/quotes/${id}/offers`, { ...as(p.rep), body });
const counter = (p: Party, id: string, items: unknown[], message = 'Can you do better?') => call('POST', `/api/quotes/${id}/counter`, { ...as(p.buyer), body: { items, message } });
const accept = (p: Party, id: string) => call('POST', `/api/quotes/${id}/accept`, { ...as(p.buyer), body: { poNumber: 'PO-Q1' } });
const events = async (quoteId: string) => (await dbQuery<{ type: string }>(`select type from webhook_event where organization_id = $1 and data->>'quoteId' = $2 order by occurred_at`, [org.organizationId, quoteId])).map((r) => r.type);

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('quotes', () => {
  test('when a buyer and the rep negotiate with two counter-offers and the buyer accepts, then one order at the quoted prices, its invoice, every version kept', async () => {
    const p = parties[0];
    const req = await request(p);
    expect(req.status).toBe(201);
    expect(req.headers.get('location')).toBe(`/api/quotes/${req.body.quoteId}`);
    expect(req.body).toMatchObject({ quoteNumber: expect.stringMatching(/^Q-\d{6}$/), status: 'Requested', customerNumber: p.customerNumber, currencyCode: 'USD' });
    const id = req.body.quoteId as string;
    // The rep's first answer defaults to the customer's tier prices with quantity breaks (12 units of A: 8, not 10).
    const o1 = await offer(p, id, { message: 'Our list prices' });
    expect(o1.status).toBe(200);
    expect(o1.body.status).toBe('Quoted');
    expect(o1.body.versions[1].lines).toEqual([
      expect.objectContaining({ sku: skuA, quantity: 12, listPrice: 8, unitPrice: 8, netUnitPrice: 8, lineTotal: 96, targetPrice: 7 }),
      expect.objectContaining({ sku: skuB, quantity: 2, listPrice: 25, unitPrice: 25, lineTotal: 50 }),
    ]);
    expect(o1.body.total).toBe(146);
    expect((await counter(p, id, [{ sku: skuA, quantity: 20, targetPrice: 7 }, { sku: skuB, quantity: 2, targetPrice: 22 }])).body.status).toBe('Countered');
    const o2 = await offer(p, id, { items: [{ sku: skuA, quantity: 20, unitPrice: 7.5 }, { sku: skuB, quantity: 2 }], discountPercent: 2, message: 'Volume price' });
    expect(o2.status).toBe(200);
    expect((await counter(p, id, [{ sku: skuA, quantity: 20, targetPrice: 7.2 }, { sku: skuB, quantity: 2, targetPrice: 23 }])).body.status).toBe('Countered');
    const o3 = await offer(p, id, { items: [{ sku: skuA, quantity: 20, unitPrice: 7.3 }, { sku: skuB, quantity: 2, unitPrice: 23.5 }], discountPercent: 5, message: 'Final offer' });
    expect(o3.status).toBe(200);
    // 7.30 less 5 % = 6.935 -> 6.94; 23.50 less 5 % = 22.325 -> 22.33: 138.80 + 44.66
    expect(o3.body.versions[5].lines.map((l: any) => [l.unitPrice, l.netUnitPrice, l.lineTotal])).toEqual([
      [7.3, 6.94, 138.8],
      [23.5, 22.33, 44.66],
    ]);
    expect(o3.body.total).toBe(183.46);
    const done = await accept(p, id);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'Accepted', orderId: expect.any(String), orderNumber: expect.stringMatching(/^SO-\d{6}$/) });
    expect(done.body.versions.map((v: any) => [v.version, v.kind, v.by.role])).toEqual([
      [1, 'Request', 'Customer'],
      [2, 'Offer', 'SalesRep'],
      [3, 'Counter', 'Customer'],
      [4, 'Offer', 'SalesRep'],
      [5, 'Counter', 'Customer'],
      [6, 'Offer', 'SalesRep'],
    ]);
    const order = await call('GET', `/api/orders/${done.body.orderId}`, A());
    expect(order.status).toBe(200);
    const o = order.body.data ?? order.body;
    expect(o).toMatchObject({ orderNumber: done.body.orderNumber, channel: 'Quote', poNumber: 'PO-Q1', total: 183.46, quoteId: id, customer: expect.objectContaining({ customerNumber: p.customerNumber }) });
    expect(o.items.map((l: any) => [l.sku, l.quantity, l.price, l.subTotal])).toEqual([
      [skuA, 20, 6.94, 138.8],
      [skuB, 2, 22.33, 44.66],
    ]);
    // The normal invoice path: an Issued invoice of the order, e-mailed with its PDF; the order confirmation too.
    const inv = await waitFor(
      () => dbQuery(`select invoice_number, status, total from invoice where organization_id = $1 and order_id = $2`, [org.organizationId, done.body.orderId]),
      (r) => r.length > 0,
    );
    expect(inv).toEqual([expect.objectContaining({ status: 'Issued', total: '183.4600' })]);
    await waitForMail(p.email, (m) => m.subject.includes(done.body.orderNumber));
    expect(await waitFor(() => events(id), (e) => e.includes('quote.accepted'))).toEqual(['quote.requested', 'quote.updated', 'quote.updated', 'quote.updated', 'quote.updated', 'quote.updated', 'quote.accepted']);
    // The workflow carries its business keys for the tenant's filter in the Temporal UI.
    const desc = await client.workflow.getHandle(`quote-${id}`).describe();
    expect(desc.searchAttributes).toMatchObject({ OrganizationId: [org.organizationId], CustomerNumber: [p.customerNumber], QuoteNumber: [req.body.quoteNumber] });
    expect((await accept(p, id)).status).toBe(409);
  });

  test('when ten accepts of one offer race, then exactly one succeeds and one order exists', async () => {
    const p = parties[0];
    const id = (await request(p, [{ sku: skuB, quantity: 1 }])).body.quoteId;
    expect((await offer(p, id, { discountPercent: 10 })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 10 }, () => accept(p, id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const orders = await dbQuery(`select id from sales_order where organization_id = $1 and quote_id = $2`, [org.organizationId, id]);
    expect(orders).toHaveLength(1);
    const winner = results.find((r) => r.status === 200)!;
    expect(winner.body.orderId).toBe(orders[0].id);
    expect(winner.body.total).toBe(22.5);
  });

  test('when the accepted offer exceeds the available credit (or the customer buys on account without a limit), then 402 naming the available credit, no order, the quote stays Quoted; within the limit it is accepted', async () => {
    const p = await party();
    // Open balance 0: a limit of 100 leaves 100 available; the offer is 4 x 27.50 = 110.
    await creditLimit(p.customerNumber, 100);
    const id = (await request(p, [{ sku: skuB, quantity: 4 }])).body.quoteId;
    expect((await offer(p, id, { items: [{ sku: skuB, quantity: 4, unitPrice: 27.5 }] })).body.total).toBe(110);
    const refused = await accept(p, id);
    expect(refused.status).toBe(402);
    expect(refused.body.detail).toContain('Available credit is $100.00');
    expect(refused.body.errors).toEqual({ payment: ['Available credit: $100.00.'] });
    expect((await call('GET', `/api/quotes/${id}`, as(p.buyer))).body).toMatchObject({ status: 'Quoted', orderId: null });
    expect(await dbQuery(`select id from sales_order where organization_id = $1 and quote_id = $2`, [org.organizationId, id])).toHaveLength(0);
    // No credit limit at all: on-account buying is not available.
    await creditLimit(p.customerNumber, null);
    const none = await accept(p, id);
    expect(none.status).toBe(402);
    expect(none.body.detail).toContain('no credit limit');
    // Within the limit: accepted, and the open invoice now uses the credit.
    await creditLimit(p.customerNumber, 110);
    const ok = await accept(p, id);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'Accepted', orderNumber: expect.stringMatching(/^SO-\d{6}$/) });
    const credit = await waitFor(
      () => call('GET', `/api/customers/${p.customerNumber}/credit`, A()),
      (r) => r.body.openBalance === 110,
    );
    expect(credit.body).toMatchObject({ creditLimit: 110, openBalance: 110, availableCredit: 0 });
  });

  test('when an offer is left open, then the buyer is reminded before expiresAt and the quote expires at expiresAt; accepting it then is a 409', async () => {
    const p = parties[1];
    const id = (await request(p, [{ sku: skuA, quantity: 1 }])).body.quoteId;
    const expiresAt = new Date(Date.now() + 9_000).toISOString();
    const o = await offer(p, id, { expiresAt });
    expect(o.status).toBe(200);
    expect(o.body.expiresAt).toBe(expiresAt);
    const mail = await waitForMail(p.email, (m) => m.subject.includes(o.body.quoteNumber) && m.subject.startsWith('Reminder'));
    expect(mail.text).toContain('$10.00');
    const expired = await waitFor(
      () => call('GET', `/api/quotes/${id}`, as(p.buyer)),
      (r) => r.body.status === 'Expired',
    );
    expect(expired.body.status).toBe('Expired');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    const late = await accept(p, id);
    expect(late.status).toBe(409);
    expect(await waitFor(() => events(id), (e) => e.includes('quote.expired'))).toContain('quote.expired');
    expect(await dbQuery(`select id from sales_order where organization_id = $1 and quote_id = $2`, [org.organizationId, id])).toHaveLength(0);
  });

  test('when another customer, another rep or another organization names a quote, then 404; a buyer cannot make an offer or set prices', async () => {
    const [mine, theirs] = parties;
    const id = (await request(mine, [{ sku: skuB, quantity: 3 }])).body.quoteId;
    for (const token of [theirs.buyer, theirs.rep]) {
      expect((await call('GET', `/api/quotes/${id}`, as(token))).status).toBe(404);
      expect((await call('POST', `/api/quotes/${id}/reject`, { ...as(token), body: { reason: 'mine now' } })).status).toBe(404);
    }
    expect((await offer(theirs, id)).status).toBe(404);
    expect((await call('POST', `/api/quotes/${id}/accept`, { ...as(theirs.buyer), body: {} })).status).toBe(404);
    expect((await call('GET', `/api/quotes/${id}`, { base: other.base, token: other.adminToken })).status).toBe(404);
    const listed = await call('GET', `/api/quotes?pageSize=500`, as(theirs.buyer));
    expect(listed.status).toBe(200);
    expect(listed.body.Data.map((q: any) => q.quoteId)).not.toContain(id);
    const repList = await call('GET', `/api/quotes?customerNumber=${mine.customerNumber}`, as(theirs.rep));
    expect(repList.body).toEqual({ Data: [], TotalCount: 0, PageNumber: 1, PageSize: 25 });
    // A customer cannot quote for another customer, nor make an offer, nor put a price in a counter.
    expect((await call('POST', '/api/quotes', { ...as(theirs.buyer), body: { customerNumber: mine.customerNumber, items: [{ sku: skuB, quantity: 1 }] } })).status).toBe(404);
    expect((await call('POST', `/api/quotes/${id}/offers`, { ...as(mine.buyer), body: {} })).status).toBe(403);
    expect((await offer(mine, id)).status).toBe(200);
    const priced = await call('POST', `/api/quotes/${id}/counter`, { ...as(mine.buyer), body: { items: [{ sku: skuB, quantity: 3, unitPrice: 1 }] } });
    expect(priced.status).toBe(400);
    // The owner's own list finds it; a wrong step is a 409 (the rep offering again while the offer is open).
    const own = await call('GET', `/api/quotes?status=Quoted&customerNumber=${mine.customerNumber}`, as(mine.rep));
    expect(own.body.Data.map((q: any) => q.quoteId)).toContain(id);
    expect((await offer(mine, id)).status).toBe(409);
    const rejected = await call('POST', `/api/quotes/${id}/reject`, { ...as(mine.buyer), body: { reason: 'Too expensive' } });
    expect(rejected.body).toMatchObject({ status: 'Rejected', rejectionReason: 'Too expensive' });
  });

  test('when a new organization requests quotes, then their numbers run Q-000001, Q-000002 without gaps', async () => {
    const fresh = await createOrg();
    const o = { base: fresh.base, token: fresh.adminToken };
    await call('POST', '/api/organizations/price-tiers', { ...o, body: { Name: 'Retail', CurrencyCode: 'USD' } });
    const sku = uniq('QN-');
    await call('PUT', '/api/products', { ...o, body: { sku, name: 'N', prices: [{ tier: 'Retail', price: 3, atQuantity: 1 }] } });
    const cn = uniq('QN');
    await call('PUT', '/api/customers', { ...o, body: { customerNumber: cn, companyName: 'N Co', companyEmail: `${cn.toLowerCase()}@example.com`, pricing: 'Retail' } });
    const numbers = [];
    for (let i = 0; i < 2; i++) numbers.push((await call('POST', '/api/quotes', { ...o, body: { customerNumber: cn, items: [{ sku, quantity: 1 }] } })).body.quoteNumber);
    expect(numbers).toEqual(['Q-000001', 'Q-000002']);
  });
});
