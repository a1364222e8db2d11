/**
 * Which price list priced a line, carried past the order (docs/pricing.md, docs/invoices.md,
 * docs/imports.md): the invoice of an order checked out at a contract list's price names that list
 * on its lines (GET one and the list), a rep's invoice is priced by the same resolver, and an
 * `orders` import line without a price is priced by the resolver and names its list, while a line
 * with a price keeps it as given without one.
 */
import { call, createOrg, dbQuery, repToken, uniq, type OrgFixture } from './support/helpers';
import { counts, errorsOf, runJson } from './support/import-helpers';

jest.setTimeout(120_000);

let org: OrgFixture;
const A = () => ({ base: org.base, token: org.adminToken });
let contractSku: string;
let tierSku: string;
let contractId: string;
let customerNumber: string;
const REP = uniq('PLLR');
let rep: string;

async function product(price: number) {
  const sku = uniq('PLL-');
  const r = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Product ${sku}`, prices: [{ tier: 'Retail', price, atQuantity: 1 }] } });
  if (r.status !== 201) throw new Error(`product: ${r.status} ${r.text}`);
  return sku;
}

beforeAll(async () => {
  org = await createOrg();
  rep = await repToken(org, REP);
  const t = await call('POST', '/api/organizations/price-tiers', { ...A(), body: { Name: 'Retail', CurrencyCode: 'USD' } });
  if (t.status !== 200 && t.status !== 409) throw new Error(`tier: ${t.status} ${t.text}`);
  customerNumber = uniq('PLLC');
  const c = await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', repNumber: REP } });
  if (c.status !== 201 && c.status !== 200) throw new Error(`customer: ${c.status} ${c.text}`);
  contractSku = await product(10);
  tierSku = await product(20);
  const l = await call('POST', '/api/price-lists', { ...A(), body: { name: 'contract', currencyCode: 'USD', status: 'Active', priority: 10 } });
  if (l.status !== 201) throw new Error(`list: ${l.status} ${l.text}`);
  contractId = l.body.priceListId as string;
  expect((await call('PUT', `/api/price-lists/${contractId}/entries`, { ...A(), body: { entries: [{ sku: contractSku, prices: [{ price: 7.25, atQuantity: 1 }] }] } })).status).toBe(200);
  expect((await call('PUT', `/api/price-lists/${contractId}/assignments`, { ...A(), body: { customerNumbers: [customerNumber] } })).status).toBe(200);
  expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 10_000 } })).status).toBe(200);
});

const bySku = <T extends { sku: string }>(lines: T[], sku: string) => lines.find((l) => l.sku === sku);

describe('invoice lines', () => {
  test("the invoice of an order checked out at a contract list's price names the list on that line, and not on the tier's line", async () => {
    const cart = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku: contractSku, quantity: 2, orderType: 'Standard' } });
    expect(cart.status).toBe(201);
    const cartId = cart.body.shoppingCartId as string;
    expect((await call('POST', `/api/carts/${customerNumber}/${cartId}/items`, { ...A(), body: { customerNumber, sku: tierSku, quantity: 1 } })).status).toBeLessThan(300);
    await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' } } });
    const done = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: { method: 'OnAccount' } } });
    expect([done.status, done.text]).toEqual([200, expect.any(String)]);
    const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
    const order = (await call('GET', `/api/orders?filters=${f}`, A())).body.data[0];

    const listed = await call('GET', `/api/invoices?orderId=${order.id}`, A());
    expect(listed.body.totalCount).toBe(1);
    const listedLines = listed.body.items[0].items as { sku: string }[];
    expect(bySku(listedLines, contractSku)).toMatchObject({ quantity: 2, price: 7.25, priceListId: contractId });
    const inv = (await call('GET', `/api/invoices/${listed.body.items[0].id}`, A())).body;
    expect(bySku(inv.items, contractSku)).toMatchObject({ quantity: 2, price: 7.25, priceListId: contractId });
    expect(bySku(inv.items, tierSku)).toMatchObject({ quantity: 1, price: 20 });
    expect(bySku(inv.items, tierSku)).not.toHaveProperty('priceListId');
    // Stored with the invoice's lines, not derived at read time.
    const [row] = await dbQuery<{ items: { sku: string; priceListId?: string }[] }>('select items from invoice where organization_id = $1 and id = $2', [org.organizationId, inv.id]);
    expect(bySku(row.items, contractSku)?.priceListId).toBe(contractId);
  });

  test("a rep's invoice for the rep's order is priced by the same resolver, each line naming the list that priced it", async () => {
    const o = await call('POST', '/api/orders', {
      base: org.base,
      token: rep,
      body: {
        customer: { customerNumber, companyName: 'x' },
        orderType: 'Direct',
        poNumber: uniq('PO'),
        priceTier: 'Retail',
        currencyCode: 'USD',
        primarySalesRep: { repNumber: REP },
        items: [{ sku: contractSku, productName: 'x', quantity: 3, price: 0.01 }],
        user: { userId: 'u', userType: 'SalesRep' },
      },
    });
    expect([o.status, o.text]).toEqual([201, expect.any(String)]);
    const body = {
      orderId: o.body.data.id,
      customer: { customerNumber, companyName: 'x' },
      primarySalesRep: { repNumber: REP },
      invoiceDate: '2026-01-10T00:00:00.000Z',
      dueDate: '2026-02-09T00:00:00.000Z',
      terms: 'Net30',
      currencyCode: 'USD',
      items: [
        { sku: contractSku, productName: 'x', quantity: 3, price: 0.01 },
        { sku: tierSku, productName: 'y', quantity: 1, price: 0.01 },
      ],
    };
    const inv = await call('POST', '/api/invoices', { base: org.base, token: rep, body });
    expect([inv.status, inv.text]).toEqual([201, expect.any(String)]);
    expect(bySku(inv.body.items, contractSku)).toMatchObject({ price: 7.25, priceListId: contractId });
    expect(bySku(inv.body.items, tierSku)).toMatchObject({ price: 20 });
    expect(bySku(inv.body.items, tierSku)).not.toHaveProperty('priceListId');
    // An Admin's invoice takes its lines as given: a priceListId it sends is not stored.
    const admin = await call('POST', '/api/invoices', { ...A(), body: { ...body, items: [{ sku: contractSku, productName: 'x', quantity: 1, price: 9, priceListId: contractId }] } });
    expect(admin.status).toBe(201);
    expect(admin.body.items[0]).not.toHaveProperty('priceListId');
  });
});

describe('order import lines', () => {
  test('a line without a price is priced by the resolver and names its list; a given price is kept without one; a line nothing prices fails its record', async () => {
    const p = uniq('PLLI');
    const row = (n: string, items: Record<string, unknown>[]) => ({
      externalId: `${p}-${n}`,
      customer: { customerNumber, companyName: 'Acme' },
      orderType: 'Direct',
      poNumber: `${p}-${n}`,
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber: REP },
      items,
      user: { userId: 'erp', userType: 'Admin' },
    });
    const records = [
      row('1', [
        { sku: contractSku, productName: 'Contract', quantity: 4 },
        { sku: tierSku, productName: 'Tier', quantity: 1 },
        { sku: contractSku, productName: 'Given', quantity: 1, price: 6 },
      ]),
      row('2', [{ sku: 'NO-SUCH-SKU', productName: 'Nothing', quantity: 1 }]),
    ];
    const job = await runJson(org, { kind: 'orders', records });
    expect(counts(job)).toMatchObject({ created: 1, failed: 1 });
    expect((await errorsOf(org, job.jobId)).Data).toEqual([expect.objectContaining({ record: 2, field: 'items[0].price' })]);

    const f = encodeURIComponent(JSON.stringify([{ field: 'poNumber', operator: 'equals', value: `${p}-1` }]));
    const listed = (await call('GET', `/api/orders?filters=${f}`, A())).body.data;
    expect(listed).toHaveLength(1);
    const order = (await call('GET', `/api/orders/${listed[0].id}`, A())).body;
    const lines = (order.data ?? order).items as { sku: string; productName: string }[];
    expect(lines[0]).toMatchObject({ sku: contractSku, quantity: 4, price: 7.25, subTotal: 29, priceListId: contractId });
    expect(lines[1]).toMatchObject({ sku: tierSku, price: 20 });
    expect(lines[1]).not.toHaveProperty('priceListId');
    expect(lines[2]).toMatchObject({ sku: contractSku, price: 6 });
    expect(lines[2]).not.toHaveProperty('priceListId');
    expect((order.data ?? order).subtotal).toBe(55);

    // The same records again: nothing changed, nothing written.
    const again = await runJson(org, { kind: 'orders', records: [records[0]] });
    expect(counts(again)).toMatchObject({ created: 0, updated: 0, unchanged: 1, failed: 0 });
  });
});
