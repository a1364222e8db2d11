import { call, createOrg, customerToken, uniq, type OrgFixture } from './support/helpers';

const PRODUCT_FIELDS = [
  'productId', 'organizationId', 'sku', 'name', 'description', 'category', 'price', 'priceFormatted', 'currencyCode', 'prices',
  'quantityOnHand', 'minimumOrderQuantity', 'quantityIncrement', 'weight', 'weightUnit', 'dimensions', 'dimensionsUnit', 'upc',
  'active', 'images', 'productAttributes', 'externalId', 'createdAt', 'updatedAt',
  // Stock (docs/fulfillment.md "Stock").
  'trackInventory', 'allowBackorder', 'leadTimeDays', 'available', 'backorder',
  // Quantity rules (docs/pricing.md "Quantity rules").
  'maximumOrderQuantity',
].sort();

function tierToken(org: OrgFixture, tier: string, currency = 'USD'): Promise<string> {
  return customerToken(org, { PriceTier: tier, CurrencyCode: currency, CustomerNumber: 'C1' });
}

async function addTier(org: OrgFixture, Name: string, CurrencyCode = 'USD') {
  const res = await call('POST', '/api/organizations/price-tiers', { token: org.adminToken, body: { Name, CurrencyCode } });
  expect(res.status).toBe(200);
}

const put = (org: OrgFixture, body: unknown, token = org.adminToken) => call('PUT', '/api/products', { token, body });

describe('products', () => {
  let org: OrgFixture;
  let other: OrgFixture;
  let retail: string;
  let wholesale: string;
  let sku: string;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(), createOrg()]);
    retail = uniq('Retail');
    wholesale = uniq('Wholesale');
    await addTier(org, retail);
    await addTier(org, wholesale);
    sku = uniq('SKU-');
    const res = await put(org, {
      sku,
      name: 'Claw hammer',
      description: 'A sturdy steel hammer',
      category: 'Hand tools',
      quantityOnHand: 40,
      minimumOrderQuantity: 2,
      quantityIncrement: 2,
      weight: 1.25,
      weightUnit: 'lb',
      dimensions: '12x5x1',
      dimensionsUnit: 'in',
      upc: '012345678905',
      productAttributes: { color: 'red' },
      externalId: `ext-${sku}`,
      images: ['hammer-front'],
      prices: [
        { tier: retail, price: 19.995, atQuantity: 1 },
        { tier: retail, price: 17.5, atQuantity: 10 },
        { tier: wholesale, price: 12, atQuantity: 1 },
      ],
    });
    expect(res.status).toBe(201);
  });

  test('when an admin creates a product, then it answers 201 with exactly the SPEC fields', async () => {
    const res = await call('GET', `/api/products/${encodeURIComponent(sku)}`, { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PRODUCT_FIELDS);
    expect(res.body).toMatchObject({
      organizationId: org.organizationId,
      sku,
      name: 'Claw hammer',
      description: 'A sturdy steel hammer',
      category: 'Hand tools',
      quantityOnHand: 40,
      minimumOrderQuantity: 2,
      quantityIncrement: 2,
      weight: 1.25,
      weightUnit: 'lb',
      dimensions: '12x5x1',
      dimensionsUnit: 'in',
      upc: '012345678905',
      active: true,
      images: [],
      productAttributes: { color: 'red' },
      externalId: `ext-${sku}`,
    });
    expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  test('when an admin reads a product, then all tiers are listed and price uses the first tier by name', async () => {
    const res = await call('GET', `/api/products/${encodeURIComponent(sku)}`, { token: org.adminToken });
    const [first] = [retail, wholesale].sort();
    expect(res.body.prices).toEqual(
      [
        { tier: retail, price: 20, priceFormatted: '$20.00', atQuantity: 1 },
        { tier: retail, price: 17.5, priceFormatted: '$17.50', atQuantity: 10 },
        { tier: wholesale, price: 12, priceFormatted: '$12.00', atQuantity: 1 },
      ].sort((a, b) => a.tier.localeCompare(b.tier) || a.atQuantity - b.atQuantity),
    );
    expect(res.body.currencyCode).toBe('USD');
    expect(res.body.price).toBe(first === retail ? 20 : 12);
  });

  test('when a customer of a tier reads a product, then it sees its tier price at quantity 1 and its breaks only', async () => {
    const res = await call('GET', `/api/products/${encodeURIComponent(sku)}`, { token: await tierToken(org, retail) });
    expect(res.status).toBe(200);
    expect(res.body.price).toBe(20);
    expect(res.body.priceFormatted).toBe('$20.00');
    expect(res.body.currencyCode).toBe('USD');
    expect(res.body.prices).toEqual([
      { tier: retail, price: 20, priceFormatted: '$20.00', atQuantity: 1 },
      { tier: retail, price: 17.5, priceFormatted: '$17.50', atQuantity: 10 },
    ]);
    const w = await call('GET', `/api/products/${encodeURIComponent(sku)}`, { token: await tierToken(org, wholesale) });
    expect(w.body.price).toBe(12);
    expect(w.body.prices).toEqual([{ tier: wholesale, price: 12, priceFormatted: '$12.00', atQuantity: 1 }]);
  });

  test('when a product is deactivated, then customers no longer see it but the admin does; activate restores it', async () => {
    const s = uniq('SKU-');
    expect((await put(org, { sku: s, name: 'Hidden' })).status).toBe(201);
    const de = await call('POST', `/api/products/${s}/deactivate`, { token: org.adminToken });
    expect(de.status).toBe(200);
    expect(de.body.active).toBe(false);
    const cust = await tierToken(org, retail);
    expect((await call('GET', `/api/products/${s}`, { token: cust })).status).toBe(404);
    const list = await call('GET', `/api/products?pageSize=500&filters=${encodeURIComponent(JSON.stringify([{ field: 'sku', operator: 'equals', value: s }]))}`, { token: cust });
    expect(list.body.totalRecords).toBe(0);
    expect((await call('GET', `/api/products/${s}`, { token: org.adminToken })).body.active).toBe(false);
    const act = await call('POST', `/api/products/${s}/activate`, { token: org.adminToken });
    expect(act.status).toBe(200);
    expect((await call('GET', `/api/products/${s}`, { token: cust })).status).toBe(200);
  });

  test('when the same sku is put twice, then the product is updated, not duplicated', async () => {
    const s = uniq('SKU-');
    const a = await put(org, { sku: s, name: 'First', prices: [{ tier: retail, price: 5, atQuantity: 1 }] });
    expect(a.status).toBe(201);
    const b = await put(org, { sku: s, name: 'Second' });
    expect(b.status).toBe(200);
    expect(b.body.productId).toBe(a.body.productId);
    expect(b.body.name).toBe('Second');
    expect(b.body.prices).toHaveLength(1);
    const list = await call('GET', `/api/products?filters[0][field]=sku&filters[0][operator]=equals&filters[0][value]=${s}`, { token: org.adminToken });
    expect(list.body.totalRecords).toBe(1);
  });

  test('when the same externalId comes with a new sku, then the existing product is updated', async () => {
    const ext = uniq('ext');
    const a = await put(org, { sku: uniq('SKU-'), name: 'Imported', externalId: ext });
    const newSku = uniq('SKU-');
    const b = await put(org, { sku: newSku, name: 'Imported again', externalId: ext });
    expect(b.status).toBe(200);
    expect(b.body.productId).toBe(a.body.productId);
    expect(b.body.sku).toBe(newSku);
  });

  test('when a product is given an externalId another product holds, then 409 and neither changes', async () => {
    const ext = uniq('ext');
    const holder = await put(org, { sku: uniq('SKU-'), name: 'Holder', externalId: ext });
    const s = uniq('SKU-');
    expect((await put(org, { sku: s, name: 'Taker' })).status).toBe(201);
    const res = await put(org, { sku: s, name: 'Renamed', externalId: ext });
    expect(res.status).toBe(409);
    expect(res.body.detail ?? res.body.title).toMatch(/externalId/);
    expect((await call('GET', `/api/products/${s}`, { token: org.adminToken })).body).toMatchObject({ name: 'Taker', externalId: null });
    expect((await call('GET', `/api/products/${holder.body.sku}`, { token: org.adminToken })).body.externalId).toBe(ext);
  });

  test('when a bad field and a taken externalId come together, then 400 names the bad field', async () => {
    const ext = uniq('ext');
    await put(org, { sku: uniq('SKU-'), name: 'Holder', externalId: ext });
    const s = uniq('SKU-');
    await put(org, { sku: s, name: 'Taker' });
    const res = await put(org, { sku: s, externalId: ext, prices: [{ tier: 'NoSuchTier', price: 1, atQuantity: 1 }] });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['prices[0].tier']);
  });

  test('when several fields are bad, then one 400 names each of them', async () => {
    const res = await put(org, { sku: uniq('SKU-'), name: 'Bad', minimumOrderQuantity: 0, quantityIncrement: 1.5, weight: 'heavy', prices: [{ tier: retail, price: -1, atQuantity: 0 }] });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(expect.arrayContaining(['minimumOrderQuantity', 'quantityIncrement', 'weight', 'prices[0].price', 'prices[0].atQuantity']));
    const missing = await put(org, { name: 'No sku' });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors)).toEqual(['sku']);
  });

  test('when a price names an unknown tier, then 400 names the tier field', async () => {
    const res = await put(org, { sku: uniq('SKU-'), name: 'X', prices: [{ tier: 'NoSuchTier', price: 1, atQuantity: 1 }] });
    expect(res.status).toBe(400);
    expect(res.body.errors['prices[0].tier'][0]).toMatch(/not a price tier/);
  });

  test('when a customer tries to write, then it is 403', async () => {
    const cust = await tierToken(org, retail);
    expect((await put(org, { sku: uniq('SKU-'), name: 'Nope' }, cust)).status).toBe(403);
    expect((await call('PUT', '/api/products/prices', { token: cust, body: { productUpdates: [{ sku, prices: [] }] } })).status).toBe(403);
    expect((await call('POST', `/api/products/${sku}/deactivate`, { token: cust })).status).toBe(403);
  });

  test('when another organization asks for the product, then it is 404', async () => {
    expect((await call('GET', `/api/products/${sku}`, { token: other.adminToken })).status).toBe(404);
    expect((await call('POST', `/api/products/${sku}/activate`, { token: other.adminToken })).status).toBe(404);
  });

  test('when prices are replaced in bulk, then good entries apply and bad ones are reported', async () => {
    const s1 = uniq('SKU-');
    const s2 = uniq('SKU-');
    await put(org, { sku: s1, name: 'One', prices: [{ tier: retail, price: 1, atQuantity: 1 }, { tier: retail, price: 0.5, atQuantity: 5 }] });
    await put(org, { sku: s2, name: 'Two', prices: [{ tier: retail, price: 2, atQuantity: 1 }] });
    const res = await call('PUT', '/api/products/prices', {
      token: org.adminToken,
      body: {
        productUpdates: [
          { sku: s1, prices: [{ tier: wholesale, price: 3.3, atQuantity: 1 }] },
          { sku: s2, prices: [{ tier: 'Bogus', price: 1, atQuantity: 1 }] },
          { sku: 'missing-sku', prices: [] },
          { sku: s2, prices: [{ tier: retail, price: 'x' }] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.updated).toEqual([s1]);
    expect(res.body.errors.map((e: { sku: string }) => e.sku)).toEqual([s2, 'missing-sku', s2]);
    for (const e of res.body.errors) expect(Object.keys(e).sort()).toEqual(['reason', 'sku']);
    const p1 = await call('GET', `/api/products/${s1}`, { token: org.adminToken });
    expect(p1.body.prices).toEqual([{ tier: wholesale, price: 3.3, priceFormatted: '$3.30', atQuantity: 1 }]);
    const p2 = await call('GET', `/api/products/${s2}`, { token: org.adminToken });
    expect(p2.body.prices).toEqual([{ tier: retail, price: 2, priceFormatted: '$2.00', atQuantity: 1 }]);
    const bad = await call('PUT', '/api/products/prices', { token: org.adminToken, body: {} });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['productUpdates']);
  });

  test('when searching, then sku, name, description and upc all match; a missing searchTerm is 400', async () => {
    const tag = uniq('zq').toLowerCase();
    await put(org, { sku: `${tag}-sku`, name: 'Plain' });
    await put(org, { sku: uniq('SKU-'), name: `Widget ${tag}` });
    await put(org, { sku: uniq('SKU-'), name: 'Other', description: `long text with ${tag.toUpperCase()} inside` });
    await put(org, { sku: uniq('SKU-'), name: 'Coded', upc: `${tag}99` });
    const res = await call('GET', `/api/products/search?searchTerm=${tag}`, { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['currentPage', 'data', 'totalPages', 'totalRecords']);
    expect(res.body.totalRecords).toBe(4);
    const none = await call('GET', `/api/products/search?searchTerm=${tag}`, { token: other.adminToken });
    expect(none.body.totalRecords).toBe(0);
    const missing = await call('GET', '/api/products/search', { token: org.adminToken });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors)).toEqual(['searchTerm']);
  });

  test('when listing, then the envelope pages, sorts by Sku, Name and Price, and filters in both encodings', async () => {
    const o = await createOrg();
    const t = uniq('T');
    await addTier(o, t);
    for (const [s, n, p] of [['B-1', 'Zeta', 3], ['A-1', 'Beta', 2], ['C-1', 'Alpha', 1]] as const)
      expect((await put(o, { sku: s, name: n, category: 'Gear', prices: [{ tier: t, price: p, atQuantity: 1 }] })).status).toBe(201);
    const bySku = await call('GET', '/api/products?pageSize=2', { token: o.adminToken });
    expect(bySku.status).toBe(200);
    expect(Object.keys(bySku.body).sort()).toEqual(['currentPage', 'data', 'totalPages', 'totalRecords']);
    expect(bySku.body).toMatchObject({ totalRecords: 3, currentPage: 1, totalPages: 2 });
    expect(bySku.body.data.map((p: { sku: string }) => p.sku)).toEqual(['A-1', 'B-1']);
    const byName = await call('GET', '/api/products?sortOn=Name&sortDirection=desc', { token: o.adminToken });
    expect(byName.body.data.map((p: { name: string }) => p.name)).toEqual(['Zeta', 'Beta', 'Alpha']);
    const byPrice = await call('GET', '/api/products?sortOn=Price', { token: await tierToken(o, t) });
    expect(byPrice.body.data.map((p: { price: number }) => p.price)).toEqual([1, 2, 3]);
    const json = await call('GET', `/api/products?filters=${encodeURIComponent(JSON.stringify([{ field: 'name', operator: 'startswith', value: 'be' }]))}`, { token: o.adminToken });
    expect(json.body.data.map((p: { sku: string }) => p.sku)).toEqual(['A-1']);
    const qs = await call('GET', '/api/products?filters[0][field]=category&filters[0][operator]=equals&filters[0][value]=gear&filters[1][field]=sku&filters[1][operator]=notequals&filters[1][value]=C-1', { token: o.adminToken });
    expect(qs.body.data.map((p: { sku: string }) => p.sku)).toEqual(['A-1', 'B-1']);
    const bad = await call('GET', '/api/products?sortOn=Color&pageSize=501', { token: o.adminToken });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['pageSize', 'sortOn']);
  });

  test('when a tier is renamed, then product prices follow; a tier used by prices cannot be deleted', async () => {
    const o = await createOrg();
    const t = uniq('Old');
    await addTier(o, t);
    await put(o, { sku: 'R-1', name: 'Renamed', prices: [{ tier: t, price: 4, atQuantity: 1 }] });
    const renamed = uniq('New');
    expect((await call('PUT', '/api/organizations/price-tiers', { token: o.adminToken, body: { CurrentName: t, NewName: renamed, CurrencyCode: 'USD' } })).status).toBe(200);
    const p = await call('GET', '/api/products/R-1', { token: o.adminToken });
    expect(p.body.prices).toEqual([{ tier: renamed, price: 4, priceFormatted: '$4.00', atQuantity: 1 }]);
    const del = await call('DELETE', '/api/organizations/price-tiers', { token: o.adminToken, body: { Name: renamed } });
    expect(del.status).toBe(400);
    expect(Object.keys(del.body.errors)).toEqual(['Name']);
  });
});
