/**
 * Quantity rules over HTTP against the real stack (issue 40 item 4, docs/pricing.md "Quantity
 * rules"): a product's minimum, maximum and increment, overridden by the entry of the price list
 * that prices the SKU for a customer (and not for another customer); product reads carrying the
 * rules in force for the customer asking; and every write path refusing a bad quantity with a 400
 * naming the line and the rule: cart lines (add, change), checkout (re-check after a rule changed),
 * quotes, orders by the customer, its rep and an admin, and the bulk order import. Also the
 * `price-lists` import kind (issue 40 item 5) that writes list entries and their overrides in bulk.
 */
import { call, createOrg, customerToken, ensureCustomer, repToken, uniq, type OrgFixture } from './support/helpers';
import { counts, errorsOf, runJson, waitJob } from './support/import-helpers';

jest.setTimeout(120_000);

let org: OrgFixture;
const A = () => ({ base: org.base, token: org.adminToken });
const REP = uniq('QRR');
/** ruled: product rules min 2, max 100, increment 2; the contract list overrides min and increment to 6 for `contract` only. */
let ruled: string;
let plain: string;
let contract: string;
let other: string;
const tok = { contract: '', other: '', rep: '' };
let listId: string;

async function product(rules: Record<string, unknown>) {
  const sku = uniq('QR-');
  const r = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Product ${sku}`, prices: [{ tier: 'Retail', price: 10, atQuantity: 1 }], ...rules } });
  if (r.status !== 201) throw new Error(`product: ${r.status} ${r.text}`);
  return sku;
}

async function customer() {
  const n = uniq('QRC');
  await ensureCustomer(org, n);
  const body = { customerNumber: n, companyName: `Company ${n}`, companyEmail: `${n.toLowerCase()}@example.com`, pricing: 'Retail', repNumber: REP };
  const r = await call('PUT', '/api/customers', { ...A(), body });
  if (r.status !== 200 && r.status !== 201) throw new Error(`customer: ${r.status} ${r.text}`);
  return n;
}

const orderBody = (customerNumber: string, items: { sku: string; quantity: number }[]) => ({
  customer: { customerNumber, companyName: 'Co', companyEmail: 'ap@example.com', billingAddress: { address1: '1 Main', city: 'Springfield', zipPostalCode: '62701', country: 'US' } },
  orderType: 'Direct',
  poNumber: uniq('PO'),
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: REP, firstName: 'Rita', lastName: 'Rep' },
  items: items.map((i) => ({ productName: 'x', price: 10, ...i })),
  user: { userId: 'u-1', userType: 'Admin' },
});

const MULTIPLE_OF_6 = 'quantity must be a multiple of 6 (quantityIncrement).';

beforeAll(async () => {
  org = await createOrg();
  tok.rep = await repToken(org, REP);
  contract = await customer();
  other = await customer();
  ruled = await product({ minimumOrderQuantity: 2, maximumOrderQuantity: 100, quantityIncrement: 2 });
  plain = await product({});
  const l = await call('POST', '/api/price-lists', { ...A(), body: { name: uniq('Contract '), currencyCode: 'USD', status: 'Active', priority: 10 } });
  expect(l.status).toBe(201);
  listId = l.body.priceListId;
  const e = await call('PUT', `/api/price-lists/${listId}/entries`, {
    ...A(),
    body: { entries: [{ sku: ruled, prices: [{ price: 9, atQuantity: 1 }], minimumOrderQuantity: 6, quantityIncrement: 6, maximumOrderQuantity: null }] },
  });
  expect(e.status).toBe(200);
  expect((await call('PUT', `/api/price-lists/${listId}/assignments`, { ...A(), body: { customerNumbers: [contract] } })).status).toBe(200);
  tok.contract = await customerToken(org, { CustomerNumber: contract, PriceTier: 'Retail', CurrencyCode: 'USD' });
  tok.other = await customerToken(org, { CustomerNumber: other, PriceTier: 'Retail', CurrencyCode: 'USD' });
}, 300_000);

describe('rules as given', () => {
  test('when a price list entry sets overrides, then its entries answer them (null: the product rule) and bad overrides are a 400 naming the entry', async () => {
    const page = await call('GET', `/api/price-lists/${listId}/entries`, A());
    expect(page.body.data[0]).toMatchObject({ sku: ruled, minimumOrderQuantity: 6, maximumOrderQuantity: null, quantityIncrement: 6 });
    const bad = await call('PUT', `/api/price-lists/${listId}/entries`, {
      ...A(),
      body: { entries: [{ sku: plain, prices: [{ price: 1 }], minimumOrderQuantity: 10, maximumOrderQuantity: 5 }] },
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['entries[0].maximumOrderQuantity']);
  });

  test('when a product maximum is below its minimum, then 400 names maximumOrderQuantity', async () => {
    const r = await call('PUT', '/api/products', { ...A(), body: { sku: uniq('QR-'), name: 'Bad', minimumOrderQuantity: 10, maximumOrderQuantity: 4 } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toHaveProperty('maximumOrderQuantity');
  });
});

describe('product reads carry the rules in force for the customer asking', () => {
  test('the list customer sees the entry overrides, another customer and staff the product rules, in reads and lists alike', async () => {
    const read = async (token: string) => (await call('GET', `/api/products/${ruled}`, { base: org.base, token })).body;
    expect(await read(tok.contract)).toMatchObject({ minimumOrderQuantity: 6, maximumOrderQuantity: 100, quantityIncrement: 6, priceListId: listId });
    expect(await read(tok.other)).toMatchObject({ minimumOrderQuantity: 2, maximumOrderQuantity: 100, quantityIncrement: 2 });
    expect(await read(org.adminToken)).toMatchObject({ minimumOrderQuantity: 2, maximumOrderQuantity: 100, quantityIncrement: 2 });
    expect(await read(tok.rep)).toMatchObject({ minimumOrderQuantity: 2, quantityIncrement: 2 });
    expect((await call('GET', `/api/products/${plain}`, { base: org.base, token: tok.contract })).body).toMatchObject({ minimumOrderQuantity: 1, maximumOrderQuantity: null, quantityIncrement: 1 });
    const filters = encodeURIComponent(JSON.stringify([{ field: 'sku', operator: 'equals', value: ruled }]));
    const list = async (token: string) => (await call('GET', `/api/products?filters=${filters}`, { base: org.base, token })).body.data[0];
    expect(await list(tok.contract)).toMatchObject({ sku: ruled, minimumOrderQuantity: 6, quantityIncrement: 6 });
    expect(await list(tok.other)).toMatchObject({ sku: ruled, minimumOrderQuantity: 2, quantityIncrement: 2 });
  });
});

describe('every write path refuses a quantity that breaks a rule, naming the line and the rule', () => {
  test('carts: adding and changing a line; the override applies to its customer only', async () => {
    const start = (customerNumber: string, token: string, quantity: number) =>
      call('POST', `/api/carts/${customerNumber}`, { base: org.base, token, body: { customerNumber, sku: ruled, quantity, orderType: 'Direct' } });
    const low = await start(contract, tok.contract, 4);
    expect(low.status).toBe(400);
    expect(low.body.errors.quantity).toEqual(['quantity must be at least the minimum order quantity of 6 (minimumOrderQuantity).']);
    // 4 is fine for the other customer (the product's minimum 2, increment 2).
    expect((await start(other, tok.other, 4)).status).toBe(201);
    const cart = await start(contract, tok.contract, 12);
    expect(cart.status).toBe(201);
    const path = `/api/carts/${contract}/${cart.body.shoppingCartId}`;
    const step = await call('PUT', `${path}/items/${ruled}`, { base: org.base, token: tok.contract, body: { customerNumber: contract, quantity: 8 } });
    expect(step.status).toBe(400);
    expect(step.body.errors.quantity).toEqual([MULTIPLE_OF_6]);
    // The product's maximum is inherited by the entry (null override).
    const high = await call('PUT', `${path}/items/${ruled}`, { base: org.base, token: tok.contract, body: { customerNumber: contract, quantity: 102 } });
    expect(high.status).toBe(400);
    expect(high.body.errors.quantity).toEqual(['quantity must be at most the maximum order quantity of 100 (maximumOrderQuantity).']);
    // A rep filling the customer's cart meets the customer's rules.
    const byRep = await call('POST', `${path}/items`, { base: org.base, token: tok.rep, body: { customerNumber: contract, sku: plain, quantity: 3 } });
    expect(byRep.status).toBe(200);
    const repBad = await call('PUT', `${path}/items/${ruled}`, { base: org.base, token: tok.rep, body: { customerNumber: contract, quantity: 9 } });
    expect(repBad.status).toBe(400);
  });

  test('checkout re-checks the lines: a rule tightened after the line was added refuses the checkout naming the line', async () => {
    const sku = await product({ quantityIncrement: 1 });
    // A customer of its own (one open cart per customer).
    const other = await customer();
    const tok = { other: await customerToken(org, { CustomerNumber: other, PriceTier: 'Retail', CurrencyCode: 'USD' }) };
    const cart = await call('POST', `/api/carts/${other}`, { base: org.base, token: tok.other, body: { customerNumber: other, sku: plain, quantity: 1, orderType: 'Direct' } });
    expect(cart.status).toBe(201);
    const path = `/api/carts/${other}/${cart.body.shoppingCartId}`;
    expect((await call('POST', `${path}/items`, { base: org.base, token: tok.other, body: { customerNumber: other, sku, quantity: 5 } })).status).toBe(200);
    const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US', phone: '555-0100', addressType: 'Shipping', isPrimary: true };
    expect((await call('PUT', `${path}/shipping`, { base: org.base, token: tok.other, body: { customerNumber: other, shippingAddress: address } })).status).toBe(200);
    expect((await call('PUT', '/api/products', { ...A(), body: { sku, quantityIncrement: 4 } })).status).toBe(200);
    const checkout = await call('POST', `${path}/complete-checkout`, { base: org.base, token: tok.other, body: { customerNumber: other, channel: 'Web', payment: { method: 'OnAccount' } } });
    expect(checkout.status).toBe(400);
    expect(checkout.body.errors).toEqual({ 'items[1].quantity': [`${sku}: quantity must be a multiple of 4 (quantityIncrement).`] });
  });

  test('orders: the customer, its rep and an admin are refused the same line; another customer orders the same quantity', async () => {
    const lines = [{ sku: plain, quantity: 1 }, { sku: ruled, quantity: 8 }];
    for (const token of [tok.contract, tok.rep, org.adminToken]) {
      const res = await call('POST', '/api/orders', { base: org.base, token, body: orderBody(contract, lines) });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual({ 'items[1].quantity': [MULTIPLE_OF_6] });
    }
    expect((await call('POST', '/api/orders', { base: org.base, token: tok.contract, body: orderBody(contract, [{ sku: ruled, quantity: 12 }]) })).status).toBe(201);
    expect((await call('POST', '/api/orders', { ...A(), body: orderBody(other, lines) })).status).toBe(201);
    expect((await call('POST', '/api/orders', { base: org.base, token: tok.other, body: orderBody(other, [{ sku: ruled, quantity: 3 }]) })).body.errors).toEqual({
      'items[0].quantity': ['quantity must be a multiple of 2 (quantityIncrement).'],
    });
  });

  test('the bulk order import refuses the order with the bad line and names it; the others are applied', async () => {
    const res = await call('POST', '/api/orders/bulk', {
      ...A(),
      body: { orders: [orderBody(other, [{ sku: ruled, quantity: 8 }]), orderBody(contract, [{ sku: plain, quantity: 1 }, { sku: ruled, quantity: 8 }])] },
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain('items[1].quantity');
    expect(res.text).toContain('(quantityIncrement)');
    expect(res.text).not.toContain('items[0].quantity');
  });

  test('quotes: a request with a bad line is refused naming it; the same request from another customer is taken', async () => {
    const items = [{ sku: plain, quantity: 1 }, { sku: ruled, quantity: 4 }];
    const res = await call('POST', '/api/quotes', { base: org.base, token: tok.contract, body: { customerNumber: contract, items } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual({ 'items[1].quantity': ['quantity must be at least the minimum order quantity of 6 (minimumOrderQuantity).'] });
    expect((await call('POST', '/api/quotes', { base: org.base, token: tok.other, body: { customerNumber: other, items } })).status).toBe(201);
    const ok = await call('POST', '/api/quotes', { base: org.base, token: tok.contract, body: { customerNumber: contract, items: [{ sku: ruled, quantity: 6 }] } });
    expect(ok.status).toBe(201);
    const offer = await call('POST', `/api/quotes/${ok.body.quoteId}/offers`, { base: org.base, token: tok.rep, body: { items: [{ sku: ruled, quantity: 9, unitPrice: 8 }] } });
    expect(offer.status).toBe(400);
    expect(offer.body.errors).toEqual({ 'items[0].quantity': [MULTIPLE_OF_6] });
  });
});

describe('the price-lists import kind', () => {
  test('dry run reports errors per record and writes nothing; a run writes breaks and overrides; retry applies fixed records; a re-import is unchanged', async () => {
    const name = uniq('Imported ');
    const l = await call('POST', '/api/price-lists', { ...A(), body: { name, currencyCode: 'USD', status: 'Active' } });
    expect(l.status).toBe(201);
    const id = l.body.priceListId as string;
    const late = uniq('QR-LATE-');
    const records = [
      { priceList: name.toLowerCase(), sku: plain, price: 5 },
      { priceList: id, sku: plain, atQuantity: 10, price: 4, quantityIncrement: 5 },
      { priceList: 'No such list', sku: plain, price: 1 },
      { priceList: name, sku: late, price: 3 },
      { priceList: name, sku: ruled, atQuantity: 20, price: 1.23456 },
      { priceList: name, sku: ruled, price: 2, minimumOrderQuantity: 10, maximumOrderQuantity: 5 },
    ];
    const entries = async () => (await call('GET', `/api/price-lists/${id}/entries`, A())).body;
    const dry = await runJson(org, { kind: 'price-lists', mode: 'validate', records });
    expect(counts(dry)).toMatchObject({ totalRecords: 6, created: 2, failed: 4 });
    expect((await entries()).totalRecords).toBe(0);

    const job = await runJson(org, { kind: 'price-lists', records });
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 6, processed: 6, created: 2, updated: 0, unchanged: 0, failed: 4 });
    const report = (await errorsOf(org, job.jobId)).Data.map((e) => [e.record, e.field]);
    expect(report).toEqual([[3, 'priceList'], [4, 'sku'], [5, 'price'], [6, 'maximumOrderQuantity']]);
    expect((await entries()).data).toEqual([
      {
        sku: plain,
        prices: [
          { price: 5, priceFormatted: expect.any(String), atQuantity: 1 },
          { price: 4, priceFormatted: expect.any(String), atQuantity: 10 },
        ],
        minimumOrderQuantity: null,
        maximumOrderQuantity: null,
        quantityIncrement: 5,
      },
    ]);

    // The product appears; retry applies the record that failed for it, and nothing twice.
    expect((await call('PUT', '/api/products', { ...A(), body: { sku: late, name: 'Late', prices: [{ tier: 'Retail', price: 10 }] } })).status).toBe(201);
    expect((await call('POST', `/api/imports/${job.jobId}/retry`, A())).status).toBe(202);
    const retried = await waitJob(org, job.jobId, (j) => j.status === 'SucceededWithErrors' && j.created === 3);
    expect(counts(retried)).toMatchObject({ created: 3, failed: 3 });
    expect((await entries()).totalRecords).toBe(2);

    const again = await runJson(org, { kind: 'price-lists', records: records.slice(0, 2) });
    expect(counts(again)).toMatchObject({ created: 0, updated: 0, unchanged: 2, failed: 0 });
    const changed = await runJson(org, { kind: 'price-lists', records: [{ priceList: name, sku: plain, price: 4.5 }] });
    expect(counts(changed)).toMatchObject({ created: 0, updated: 1, unchanged: 0, failed: 0 });
    expect((await entries()).data.find((e: { sku: string }) => e.sku === plain).prices[0].price).toBe(4.5);
  }, 300_000);
});
