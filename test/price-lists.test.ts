/**
 * Price lists over HTTP against the real stack (docs/pricing.md): the one resolver's priority rules
 * (priority, a direct assignment before a tier's, then the lower price, quantity breaks falling
 * through, Draft and other-currency lists ignored) in product reads, carts and rep orders; validity
 * around both boundaries of a scheduled list; a cart priced before an activation re-priced at
 * checkout; who may read and write lists.
 */
import { call, createOrg, customerToken, ensureCustomer, repToken, uniq, type OrgFixture } from './support/helpers';

jest.setTimeout(120_000);

let org: OrgFixture;
let other: OrgFixture;
const A = () => ({ base: org.base, token: org.adminToken });
let sku1: string;
let sku2: string;
const ids: Record<string, string> = {};
let c1: string;
let c2: string;
let rep: string;
const REP = uniq('PLR');

async function product(prices: { price: number; atQuantity: number }[]) {
  const sku = uniq('PL-');
  const r = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Product ${sku}`, prices: prices.map((p) => ({ tier: 'Retail', ...p })) } });
  if (r.status !== 201) throw new Error(`product: ${r.status} ${r.text}`);
  return sku;
}

async function list(name: string, body: Record<string, unknown>, entries: { sku: string; prices: { price: number; atQuantity: number }[] }[], assign: { customerNumbers?: string[]; priceTiers?: string[] }) {
  const r = await call('POST', '/api/price-lists', { ...A(), body: { name, currencyCode: 'USD', status: 'Active', ...body } });
  if (r.status !== 201) throw new Error(`list: ${r.status} ${r.text}`);
  const id = r.body.priceListId as string;
  const e = await call('PUT', `/api/price-lists/${id}/entries`, { ...A(), body: { entries } });
  if (e.status !== 200) throw new Error(`entries: ${e.status} ${e.text}`);
  const a = await call('PUT', `/api/price-lists/${id}/assignments`, { ...A(), body: assign });
  if (a.status !== 200) throw new Error(`assign: ${a.status} ${a.text}`);
  ids[name] = id;
  return id;
}

async function customer(repNumber?: string) {
  const n = uniq('PLC');
  await ensureCustomer(org, n);
  if (repNumber) {
    const body = { customerNumber: n, companyName: `Company ${n}`, companyEmail: `${n.toLowerCase()}@example.com`, pricing: 'Retail', repNumber };
    const r = await call('PUT', '/api/customers', { ...A(), body });
    if (r.status !== 200 && r.status !== 201) throw new Error(`rep: ${r.status} ${r.text}`);
  }
  return n;
}
const buyer = (n: string) => customerToken(org, { CustomerNumber: n, PriceTier: 'Retail', CurrencyCode: 'USD' });
const readAs = async (token: string, sku: string) => (await call('GET', `/api/products/${sku}`, { base: org.base, token })).body;
const sleepUntil = async (t: number) => {
  const ms = t - Date.now();
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
};

beforeAll(async () => {
  org = await createOrg();
  other = await createOrg();
  rep = await repToken(org, REP);
  c1 = await customer(REP);
  c2 = await customer();
  sku1 = await product([
    { price: 10, atQuantity: 1 },
    { price: 8, atQuantity: 10 },
  ]);
  sku2 = await product([{ price: 20, atQuantity: 1 }]);
  // The tier's lists: equal priority, the lower price wins.
  await list('tier-9', { priority: 10 }, [{ sku: sku1, prices: [{ price: 9, atQuantity: 1 }] }], { priceTiers: ['retail'] });
  await list('tier-8.5', { priority: 10 }, [{ sku: sku1, prices: [{ price: 8.5, atQuantity: 1 }] }], { priceTiers: ['Retail'] });
  // c1's direct list at the same priority wins over the tier's cheaper ones.
  await list('direct', { priority: 10 }, [{ sku: sku1, prices: [{ price: 9.5, atQuantity: 1 }, { price: 7, atQuantity: 10 }] }], { customerNumbers: [c1] });
  // A more urgent list whose only break is at 20: below it, the quantity falls through.
  await list('bulk', { priority: 5 }, [{ sku: sku1, prices: [{ price: 6, atQuantity: 20 }] }], { customerNumbers: [c1] });
  // Ignored: a Draft, an Archived and another currency's list.
  await list('draft', { priority: 1, status: 'Draft' }, [{ sku: sku1, prices: [{ price: 1, atQuantity: 1 }] }], { customerNumbers: [c1] });
  await list('archived', { priority: 1, status: 'Archived' }, [{ sku: sku1, prices: [{ price: 1, atQuantity: 1 }] }], { customerNumbers: [c1] });
  await list('eur', { priority: 1, currencyCode: 'EUR' }, [{ sku: sku1, prices: [{ price: 1, atQuantity: 1 }] }], { customerNumbers: [c1] });
  // Expired and not yet valid.
  await list('past', { priority: 1, validTo: new Date(Date.now() - 60_000).toISOString() }, [{ sku: sku1, prices: [{ price: 2, atQuantity: 1 }] }], { customerNumbers: [c1] });
  await list('future', { priority: 1, validFrom: new Date(Date.now() + 3_600_000).toISOString() }, [{ sku: sku1, prices: [{ price: 3, atQuantity: 1 }] }], { customerNumbers: [c1] });
});

describe('which price applies', () => {
  test('product reads: a customer sees its winning list price and priceListId; the tier-only answer is unchanged for admins and for SKUs no list prices', async () => {
    const p1 = await readAs(await buyer(c1), sku1);
    expect(p1).toMatchObject({ price: 9.5, priceListId: ids.direct, currencyCode: 'USD' });
    const p2 = await readAs(await buyer(c2), sku1);
    expect(p2).toMatchObject({ price: 8.5, priceListId: ids['tier-8.5'] });
    const tierOnly = await readAs(await buyer(c2), sku2);
    expect(tierOnly.price).toBe(20);
    expect(tierOnly).not.toHaveProperty('priceListId');
    const admin = await readAs(org.adminToken, sku1);
    expect(admin.price).toBe(10);
    expect(admin).not.toHaveProperty('priceListId');
    const page = await call('GET', `/api/products?filters=${encodeURIComponent(JSON.stringify([{ field: 'sku', operator: 'equals', value: sku1 }]))}`, { base: org.base, token: await buyer(c1) });
    expect(page.status).toBe(200);
    expect(page.body.data[0]).toMatchObject({ sku: sku1, price: 9.5, priceListId: ids.direct });
  });

  test('carts: breaks of the winning list, a quantity below a list’s first break falling through, each line naming its list', async () => {
    const c = await call('POST', `/api/carts/${c1}`, { ...A(), body: { customerNumber: c1, sku: sku1, quantity: 1, orderType: 'Standard' } });
    expect(c.status).toBe(201);
    const cartId = c.body.shoppingCartId as string;
    expect(c.body.items[0]).toMatchObject({ unitPrice: 9.5, priceListId: ids.direct });
    const at = async (quantity: number) =>
      (await call('PUT', `/api/carts/${c1}/${cartId}/items/${sku1}`, { ...A(), body: { quantity } })).body.items.find((i: { sku: string }) => i.sku === sku1);
    expect(await at(9)).toMatchObject({ unitPrice: 9.5, priceListId: ids.direct });
    expect(await at(10)).toMatchObject({ unitPrice: 7, priceListId: ids.direct });
    expect(await at(19)).toMatchObject({ unitPrice: 7, priceListId: ids.direct });
    expect(await at(20)).toMatchObject({ unitPrice: 6, priceListId: ids.bulk, lineTotal: 120 });
    const add = await call('POST', `/api/carts/${c1}/${cartId}/items`, { ...A(), body: { customerNumber: c1, sku: sku2, quantity: 1 } });
    const tierLine = add.body.items.find((i: { sku: string }) => i.sku === sku2);
    expect(tierLine).toEqual({ itemId: expect.any(String), sku: sku2, name: expect.any(String), quantity: 1, unitPrice: 20, lineTotal: 20 });
  });

  test("a quote's list prices come from the same resolver, each line naming the list that set it", async () => {
    const q = await call('POST', '/api/quotes', { ...A(), body: { customerNumber: c1, items: [{ sku: sku1, quantity: 20 }, { sku: sku2, quantity: 1 }] } });
    expect([q.status, q.text]).toEqual([201, expect.any(String)]);
    const lines = q.body.versions[0].lines as { sku: string }[];
    expect(lines.find((l) => l.sku === sku1)).toMatchObject({ listPrice: 6, priceListId: ids.bulk });
    const tierLine = lines.find((l) => l.sku === sku2);
    expect(tierLine).toMatchObject({ listPrice: 20 });
    expect(tierLine).not.toHaveProperty('priceListId');
  });

  test("a rep's order for the customer is priced by the same resolver, each line naming the list that priced it", async () => {
    const r = await call('POST', '/api/orders', {
      base: org.base,
      token: rep,
      body: {
        customer: { customerNumber: c1, companyName: 'x' },
        orderType: 'Direct',
        poNumber: uniq('PO'),
        priceTier: 'Retail',
        currencyCode: 'USD',
        primarySalesRep: { repNumber: REP },
        items: [
          { sku: sku1, productName: 'x', quantity: 20, price: 0.01 },
          { sku: sku2, productName: 'y', quantity: 2, price: 0.01 },
        ],
        user: { userId: 'u', userType: 'SalesRep' },
      },
    });
    expect([r.status, r.text]).toEqual([201, expect.any(String)]);
    const o = await call('GET', `/api/orders/${r.body.data.id}`, A());
    const lines = (o.body.data ?? o.body).items as { sku: string; price: number }[];
    expect(lines.find((l) => l.sku === sku1)).toMatchObject({ price: 6, priceListId: ids.bulk });
    const tierLine = lines.find((l) => l.sku === sku2);
    expect(tierLine?.price).toBe(20);
    // The tier priced it: no priceListId, as in tier-only answers.
    expect(tierLine).not.toHaveProperty('priceListId');
  });
});

describe('validity', () => {
  test('a scheduled list prices from validFrom (inclusive) until validTo (exclusive), and a cart priced before it is re-priced at checkout', async () => {
    const c3 = await customer();
    const token = await buyer(c3);
    const sku = await product([{ price: 10, atQuantity: 1 }]);
    const from = Date.now() + 8_000;
    const to = from + 15_000;
    await list('scheduled', { priority: 1, validFrom: new Date(from).toISOString(), validTo: new Date(to).toISOString() }, [{ sku, prices: [{ price: 5, atQuantity: 1 }] }], {
      customerNumbers: [c3],
    });
    // Priced before the activation.
    const cart = await call('POST', `/api/carts/${c3}`, { ...A(), body: { customerNumber: c3, sku, quantity: 3, orderType: 'Standard' } });
    expect(cart.body.items[0]).toMatchObject({ unitPrice: 10 });
    const cartId = cart.body.shoppingCartId as string;
    await call('PUT', `/api/carts/${c3}/${cartId}/shipping`, { ...A(), body: { customerNumber: c3, shippingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' } } });
    await call('PUT', `/api/customers/${c3}/credit`, { ...A(), body: { creditLimit: 10_000 } });
    await sleepUntil(from - 1_500);
    expect((await readAs(token, sku)).price).toBe(10);
    await sleepUntil(from + 50);
    const during = await readAs(token, sku);
    expect(during).toMatchObject({ price: 5, priceListId: ids.scheduled });
    // Checked out after the activation: the changed line is re-priced and says so.
    const done = await call('POST', `/api/carts/${c3}/${cartId}/complete-checkout`, { ...A(), body: { customerNumber: c3, channel: 'Web', payment: { method: 'OnAccount' } } });
    expect(done.status).toBe(200);
    const after = await call('GET', `/api/carts/${cartId}`, A());
    expect(after.body.items[0]).toMatchObject({ unitPrice: 5, lineTotal: 15, repriced: true, previousUnitPrice: 10, priceListId: ids.scheduled });
    const orders = await call('GET', `/api/orders?filters=${encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: c3 }]))}`, A());
    expect(orders.body.data[0].subtotal).toBe(15);
    // The order's line says which list priced it at checkout.
    const placed = await call('GET', `/api/orders/${orders.body.data[0].id}`, A());
    expect((placed.body.data ?? placed.body).items[0]).toMatchObject({ sku, price: 5, priceListId: ids.scheduled });
    await sleepUntil(to - 1_500);
    expect((await readAs(token, sku)).price).toBe(5);
    await sleepUntil(to + 50);
    const expired = await readAs(token, sku);
    expect(expired.price).toBe(10);
    expect(expired).not.toHaveProperty('priceListId');
  });
});

describe('price list resources', () => {
  test('reads for admins and reps, paged entries; writes for admins only; another organization gets 404; a customer gets 403', async () => {
    const id = ids.direct;
    const got = await call('GET', `/api/price-lists/${id}`, { base: org.base, token: rep });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ priceListId: id, priority: 10, status: 'Active', customerNumbers: [c1], priceTiers: [], entryCount: 1, validFrom: null, validTo: null });
    const entries = await call('GET', `/api/price-lists/${id}/entries`, A());
    expect(entries.body).toMatchObject({ totalRecords: 1, data: [{ sku: sku1, prices: [{ price: 9.5, atQuantity: 1 }, { price: 7, atQuantity: 10 }] }] });
    const page = await call('GET', `/api/price-lists?filters=${encodeURIComponent(JSON.stringify([{ field: 'status', operator: 'equals', value: 'Draft' }]))}`, A());
    expect(page.body.data.map((l: { priceListId: string }) => l.priceListId)).toEqual([ids.draft]);
    expect((await call('PUT', `/api/price-lists/${id}`, { base: org.base, token: rep, body: { name: 'x', currencyCode: 'USD' } })).status).toBe(403);
    expect((await call('GET', `/api/price-lists/${id}`, { base: other.base, token: other.adminToken })).status).toBe(404);
    expect((await call('GET', '/api/price-lists', { base: org.base, token: await buyer(c1) })).status).toBe(403);
    const negative = await call('PUT', `/api/price-lists/${id}/entries`, { ...A(), body: { entries: [{ sku: sku1, prices: [{ price: 1 }] }, { sku: sku1, prices: [{ price: -1, atQuantity: 1 }] }] } });
    expect(negative.status).toBe(400);
    expect(Object.keys(negative.body.errors)).toEqual(['entries[1].prices[0].price']);
    const bad = await call('PUT', `/api/price-lists/${id}/entries`, { ...A(), body: { entries: [{ sku: 'NOPE', prices: [{ price: 1, atQuantity: 1 }] }, { sku: sku1, prices: [{ price: 1 }] }, { sku: sku1, prices: [{ price: 2 }] }] } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['entries[0].sku', 'entries[2].sku']);
    // Nothing of a refused call was stored.
    expect((await call('GET', `/api/price-lists/${id}/entries`, A())).body.data[0].prices).toHaveLength(2);
    const window = await call('POST', '/api/price-lists', { ...A(), body: { name: 'w', currencyCode: 'USD', validFrom: '2027-01-01T00:00:00Z', validTo: '2027-01-01T00:00:00Z' } });
    expect(window.status).toBe(400);
    expect(window.body.errors).toHaveProperty('validTo');
    const unknown = await call('PUT', `/api/price-lists/${id}/assignments`, { ...A(), body: { customerNumbers: ['NOBODY'], priceTiers: ['Gold'] } });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.errors).sort()).toEqual(['customerNumbers[0]', 'priceTiers[0]']);
  });
});
