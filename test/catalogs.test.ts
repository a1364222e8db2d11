/**
 * Customer catalogs (issue 40 item 3, docs/catalogs.md): CRUD and roles, which products a
 * customer sees in reads and lists (direct assignments replace the tier's, several catalogs are a
 * union, an excluded category hides its subtree), and the refusal of a SKU outside the catalog on
 * every write path: carts, orders by the customer, its rep and an admin, quotes, the bulk order
 * import and checkout after the catalog changed.
 */
import { call, createOrg, customerToken, ensureCustomer, repToken, uniq, type OrgFixture } from './support/helpers';
import { counts, errorsOf, runJson, waitJob } from './support/import-helpers';

const A = (org: OrgFixture) => ({ token: org.adminToken });
const skusOf = (res: { body: { data: { sku: string }[] } }) => res.body.data.map((p) => p.sku);

describe('catalogs', () => {
  let org: OrgFixture;
  let other: OrgFixture;
  const retail = 'Retail';
  const contract = 'Contract';
  const sku = { ham: '', drill: '', saw: '', rake: '', glove: '' };
  const cn = { direct: '', tierOnly: '', directOverTier: '', none: '', union: '' };
  const tok = { direct: '', tierOnly: '', directOverTier: '', none: '', union: '' };
  let repNumber: string;
  let rep: string;
  let noPowerTools: string;
  let garden: string;

  const put = (body: unknown) => call('PUT', '/api/products', { ...A(org), body });
  const cat = (name: string, parentName?: string) => call('PUT', '/api/categories', { ...A(org), body: { name, parentName: parentName ?? null, active: true } });

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(), createOrg()]);
    for (const t of [retail, contract]) expect((await call('POST', '/api/organizations/price-tiers', { ...A(org), body: { Name: t, CurrencyCode: 'USD' } })).status).toBe(200);
    expect((await cat('Tools')).status).toBe(201);
    expect((await cat('Power tools', 'Tools')).status).toBe(201);
    expect((await cat('Garden')).status).toBe(201);
    const products: [keyof typeof sku, string | null][] = [['ham', 'Tools'], ['drill', 'Power tools'], ['saw', 'Power tools'], ['rake', 'Garden'], ['glove', null]];
    for (const [k, category] of products) {
      sku[k] = uniq(`${k.toUpperCase()}-`);
      const res = await put({ sku: sku[k], name: k, category, prices: [{ tier: retail, price: 10 }, { tier: contract, price: 8 }] });
      expect(res.status).toBe(201);
    }
    repNumber = uniq('R');
    rep = await repToken(org, repNumber);
    const customer = async (key: keyof typeof cn, tier: string) => {
      cn[key] = uniq(`C-${key}-`);
      await ensureCustomer(org, cn[key], tier);
      expect((await call('PUT', '/api/customers', { ...A(org), body: { customerNumber: cn[key], companyName: `Co ${key}`, companyEmail: `${uniq('c')}@example.com`, pricing: tier, repNumber } })).status).toBe(200);
      tok[key] = await customerToken(org, { CustomerNumber: cn[key], PriceTier: tier, CurrencyCode: 'USD' });
    };
    await Promise.all([customer('direct', retail), customer('tierOnly', contract), customer('directOverTier', contract), customer('none', retail), customer('union', retail)]);

    const a = await call('POST', '/api/catalogs', {
      ...A(org),
      body: {
        name: 'No power tools',
        selections: [{ category: 'Tools' }, { category: 'power tools', mode: 'Exclude' }, { sku: sku.glove }],
        customerNumbers: [cn.direct, cn.directOverTier, cn.union],
      },
    });
    expect(a.status).toBe(201);
    noPowerTools = a.body.catalogId;
    const b = await call('POST', '/api/catalogs', { ...A(org), body: { name: 'Garden', selections: [{ category: 'Garden' }], customerNumbers: [cn.union], priceTiers: [contract] } });
    expect(b.status).toBe(201);
    garden = b.body.catalogId;
  }, 300_000);

  test('when an admin creates a catalog, then it answers its selection count and assignments; reps read it, customers and other organizations cannot', async () => {
    const got = await call('GET', `/api/catalogs/${noPowerTools}`, { token: rep });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      catalogId: noPowerTools,
      organizationId: org.organizationId,
      name: 'No power tools',
      description: null,
      selectionCount: 3,
      customerNumbers: [cn.direct, cn.directOverTier, cn.union].sort(),
      priceTiers: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await call('GET', `/api/catalogs/${noPowerTools}`, { token: tok.direct })).status).toBe(403);
    expect((await call('POST', '/api/catalogs', { token: rep, body: { name: uniq('x') } })).status).toBe(403);
    expect((await call('GET', `/api/catalogs/${noPowerTools}`, A(other))).status).toBe(404);
    expect((await call('PUT', `/api/catalogs/${noPowerTools}`, { ...A(other), body: { name: 'stolen' } })).status).toBe(404);
    expect((await call('DELETE', `/api/catalogs/${noPowerTools}`, A(other))).status).toBe(404);
    const list = await call('GET', '/api/catalogs?sortOn=Name', A(org));
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ totalRecords: 2, data: [{ name: 'Garden', priceTiers: [contract] }, { name: 'No power tools' }] });
  });

  test('when a catalog body is invalid, then one 400 names every bad entry; a taken name is a 409', async () => {
    const res = await call('POST', '/api/catalogs', {
      ...A(org),
      body: { name: uniq('Bad'), selections: [{ category: 'Nope' }, { sku: 'X', category: 'Tools' }, { sku: 'Y' }, { sku: 'Y', mode: 'Exclude' }], customerNumbers: ['NOBODY'], priceTiers: ['Gold'] },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['customerNumbers[0]', 'priceTiers[0]', 'selections[0].category', 'selections[1]', 'selections[3]'].sort());
    // Another organization's customer is unknown here.
    expect((await call('POST', '/api/catalogs', { ...A(other), body: { name: 'x', customerNumbers: [cn.direct] } })).body.errors).toHaveProperty(['customerNumbers[0]']);
    expect((await call('POST', '/api/catalogs', { ...A(org), body: { name: 'garden' } })).status).toBe(409);
  });

  test('when a customer with a catalog reads products, then what the catalog does not hold is a 404; reps and admins see everything', async () => {
    const read = (s: string, token: string) => call('GET', `/api/products/${encodeURIComponent(s)}`, { token });
    expect((await read(sku.ham, tok.direct)).status).toBe(200);
    expect((await read(sku.glove, tok.direct)).status).toBe(200);
    expect((await read(sku.drill, tok.direct)).status).toBe(404);
    expect((await read(sku.rake, tok.direct)).status).toBe(404);
    expect((await read(sku.drill, org.adminToken)).status).toBe(200);
    expect((await read(sku.drill, rep)).status).toBe(200);
    expect((await read(sku.drill, tok.none)).status).toBe(200);
    // Through the tier: the Garden catalog only.
    expect((await read(sku.rake, tok.tierOnly)).status).toBe(200);
    expect((await read(sku.ham, tok.tierOnly)).status).toBe(404);
    // A direct assignment replaces the tier's catalogs.
    expect((await read(sku.ham, tok.directOverTier)).status).toBe(200);
    expect((await read(sku.rake, tok.directOverTier)).status).toBe(404);
  });

  test('when customers list and search products, then only what their catalogs hold is listed, with exact totals', async () => {
    const list = (token: string, qs = '') => call('GET', `/api/products?pageSize=50${qs}`, { token });
    const direct = await list(tok.direct);
    expect(direct.status).toBe(200);
    expect(direct.body.totalRecords).toBe(2);
    expect(skusOf(direct).sort()).toEqual([sku.glove, sku.ham].sort());
    const paged = await call('GET', '/api/products?pageSize=1&pageNumber=2', { token: tok.direct });
    expect(paged.body).toMatchObject({ totalRecords: 2, currentPage: 2, totalPages: 2 });
    expect(paged.body.data).toHaveLength(1);
    expect((await list(tok.union)).body.totalRecords).toBe(3);
    expect(skusOf(await list(tok.union)).sort()).toEqual([sku.glove, sku.ham, sku.rake].sort());
    expect(skusOf(await list(tok.tierOnly))).toEqual([sku.rake]);
    expect(skusOf(await list(tok.directOverTier)).sort()).toEqual([sku.glove, sku.ham].sort());
    expect((await list(tok.none)).body.totalRecords).toBe(5);
    expect((await list(rep)).body.totalRecords).toBe(5);
    const filtered = await list(tok.direct, `&filters=${encodeURIComponent(JSON.stringify([{ field: 'category', operator: 'equals', value: 'Tools' }]))}`);
    expect(filtered.body).toMatchObject({ totalRecords: 1, data: [{ sku: sku.ham }] });
    const search = await call('GET', `/api/products/search?searchTerm=${encodeURIComponent(sku.drill)}`, { token: tok.direct });
    expect(search.body.totalRecords).toBe(0);
    expect((await call('GET', `/api/products/search?searchTerm=${encodeURIComponent(sku.drill)}`, { token: tok.none })).body.totalRecords).toBe(1);
    const keyset = await call('GET', `/api/products?pageSize=1&after=${encodeURIComponent([sku.glove, sku.ham].sort()[0])}`, { token: tok.direct });
    expect(skusOf(keyset)).toEqual([[sku.glove, sku.ham].sort()[1]]);
  });

  test('when an admin lists a catalog selection and its products, then both are paged and filtered', async () => {
    const sel = await call('GET', `/api/catalogs/${noPowerTools}/selections?filters=${encodeURIComponent(JSON.stringify([{ field: 'mode', operator: 'equals', value: 'Exclude' }]))}`, { token: rep });
    expect(sel.status).toBe(200);
    expect(sel.body).toMatchObject({ totalRecords: 1, data: [{ mode: 'Exclude', category: 'Power tools', sku: null }] });
    const products = await call('GET', `/api/catalogs/${noPowerTools}/products?sortOn=Sku`, A(org));
    expect(products.status).toBe(200);
    expect(products.body.totalRecords).toBe(2);
    expect(skusOf(products)).toEqual([sku.glove, sku.ham].sort());
    expect((await call('GET', `/api/catalogs/${garden}/products`, A(other))).status).toBe(404);
    expect((await call('GET', `/api/catalogs/${garden}/selections`, A(other))).status).toBe(404);
  });

  test('when a customer puts a SKU outside its catalog in a cart, then 400 names the line; inside it works', async () => {
    const refused = await call('POST', `/api/carts/${cn.direct}`, { token: tok.direct, body: { customerNumber: cn.direct, sku: sku.drill, quantity: 1, orderType: 'Direct' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.sku[0]).toContain(sku.drill);
    // The same answer for a SKU that exists nowhere: the refusal says nothing about the catalog of others.
    const unknown = await call('POST', `/api/carts/${cn.direct}`, { token: tok.direct, body: { customerNumber: cn.direct, sku: 'NO-SUCH', quantity: 1, orderType: 'Direct' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.sku[0]).toBe(`The product "NO-SUCH" is not in the customer's catalog.`);
    const cart = await call('POST', `/api/carts/${cn.direct}`, { token: tok.direct, body: { customerNumber: cn.direct, sku: sku.ham, quantity: 1, orderType: 'Direct' } });
    expect(cart.status).toBe(201);
    const path = `/api/carts/${cn.direct}/${cart.body.shoppingCartId}`;
    const add = await call('POST', `${path}/items`, { token: tok.direct, body: { customerNumber: cn.direct, sku: sku.saw, quantity: 2 } });
    expect(add.status).toBe(400);
    expect(add.body.errors).toHaveProperty('sku');
    // A rep or an admin filling the customer's cart is refused the same way.
    expect((await call('POST', `${path}/items`, { token: rep, body: { customerNumber: cn.direct, sku: sku.saw, quantity: 2 } })).status).toBe(400);
    expect((await call('POST', `${path}/items`, { ...A(org), body: { customerNumber: cn.direct, sku: sku.rake, quantity: 2 } })).status).toBe(400);
    expect((await call('POST', `${path}/items`, { ...A(org), body: { customerNumber: cn.direct, sku: sku.glove, quantity: 2 } })).status).toBe(200);

    // The catalog changes under the cart: checkout refuses the line no longer held.
    const tighten = await call('PUT', `/api/catalogs/${noPowerTools}`, { ...A(org), body: { selections: [{ category: 'Tools' }, { category: 'Power tools', mode: 'Exclude' }] } });
    expect(tighten.status).toBe(200);
    expect(tighten.body.selectionCount).toBe(2);
    const checkout = await call('POST', `${path}/complete-checkout`, { token: tok.direct, body: { customerNumber: cn.direct, channel: 'Web' } });
    expect(checkout.status).toBe(400);
    expect(JSON.stringify(checkout.body.errors.items)).toContain(sku.glove);
    expect((await call('GET', `/api/products/${encodeURIComponent(sku.glove)}`, { token: tok.direct })).status).toBe(404);
    await call('PUT', `/api/catalogs/${noPowerTools}`, { ...A(org), body: { selections: [{ category: 'Tools' }, { category: 'Power tools', mode: 'Exclude' }, { sku: sku.glove }] } });
    expect((await call('GET', `/api/products/${encodeURIComponent(sku.glove)}`, { token: tok.direct })).status).toBe(200);
  });

  const orderBody = (customerNumber: string, items: { sku: string; quantity: number; price?: number }[]) => ({
    customer: { customerNumber, companyName: 'Co', companyEmail: 'ap@example.com', billingAddress: { address1: '1 Main', city: 'Springfield', zipPostalCode: '62701', country: 'US' } },
    orderType: 'Direct',
    poNumber: uniq('PO'),
    priceTier: retail,
    currencyCode: 'USD',
    primarySalesRep: { repNumber, firstName: 'Rita', lastName: 'Rep' },
    items: items.map((i) => ({ productName: 'x', price: 10, ...i })),
    user: { userId: 'u-1', userType: 'Admin' },
  });

  test('when an order names a SKU outside the customer catalog, then 400 names the line, whoever places it', async () => {
    const lines = [{ sku: sku.ham, quantity: 1 }, { sku: sku.drill, quantity: 1 }];
    for (const token of [tok.direct, rep, org.adminToken]) {
      const res = await call('POST', '/api/orders', { token, body: orderBody(cn.direct, lines) });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors)).toEqual(['items[1].sku']);
    }
    expect((await call('POST', '/api/orders', { token: tok.direct, body: orderBody(cn.direct, [{ sku: sku.ham, quantity: 1 }]) })).status).toBe(201);
    // A customer without a catalog buys anything, as before.
    expect((await call('POST', '/api/orders', { ...A(org), body: orderBody(cn.none, lines) })).status).toBe(201);
  });

  test('when the bulk order import names a SKU outside the customer catalog, then that order is refused naming the line', async () => {
    const res = await call('POST', '/api/orders/bulk', { ...A(org), body: { orders: [orderBody(cn.none, [{ sku: sku.drill, quantity: 1 }]), orderBody(cn.tierOnly, [{ sku: sku.rake, quantity: 1 }, { sku: sku.ham, quantity: 1 }])] } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('items[1].sku');
    expect(res.text).not.toContain('items[0].sku');
  });

  test('when a quote asks for a SKU outside the customer catalog, then 400 names the line', async () => {
    const res = await call('POST', '/api/quotes', { token: tok.tierOnly, body: { customerNumber: cn.tierOnly, items: [{ sku: sku.rake, quantity: 1 }, { sku: sku.ham, quantity: 2 }] } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['items[1].sku']);
    expect((await call('POST', '/api/quotes', { token: tok.tierOnly, body: { customerNumber: cn.tierOnly, items: [{ sku: sku.rake, quantity: 1 }] } })).status).toBe(201);
  });

  test('when a catalog is deleted, then its customers see what remains (or everything) at once', async () => {
    const c = await call('POST', '/api/catalogs', { ...A(org), body: { name: uniq('Temp'), selections: [{ sku: sku.saw }], customerNumbers: [cn.none] } });
    expect(c.status).toBe(201);
    expect((await call('GET', '/api/products', { token: tok.none })).body.totalRecords).toBe(1);
    expect((await call('DELETE', `/api/catalogs/${c.body.catalogId}`, A(org))).status).toBe(204);
    expect((await call('GET', `/api/catalogs/${c.body.catalogId}`, A(org))).status).toBe(404);
    expect((await call('GET', '/api/products', { token: tok.none })).body.totalRecords).toBe(5);
  });

  test('when catalog assignments are imported, then dry run writes nothing, bad records are reported, retry applies them once fixed, and re-import is unchanged', async () => {
    const name = uniq('Imported');
    expect((await call('POST', '/api/catalogs', { ...A(org), body: { name, selections: [{ sku: sku.saw }] } })).status).toBe(201);
    const records = [
      { catalog: name.toLowerCase(), customerNumber: cn.none },
      { catalog: name, priceTier: 'Gold' },
      { catalog: 'No such catalog', customerNumber: cn.none },
      { catalog: name, customerNumber: cn.none, priceTier: retail },
    ];
    const dry = await runJson(org, { kind: 'catalog-assignments', mode: 'validate', records });
    expect(counts(dry)).toMatchObject({ totalRecords: 4, created: 1, failed: 3 });
    expect((await call('GET', '/api/products', { token: tok.none })).body.totalRecords).toBe(5);
    const job = await runJson(org, { kind: 'catalog-assignments', records });
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 4, processed: 4, created: 1, updated: 0, unchanged: 0, failed: 3 });
    const report = (await errorsOf(org, job.jobId)).Data.map((e) => [e.record, e.field]);
    expect(report).toEqual([[2, 'priceTier'], [3, 'catalog'], [4, 'customerNumber']]);
    expect(skusOf(await call('GET', '/api/products', { token: tok.none }))).toEqual([sku.saw]);
    // The tier appears; retry applies the records that failed for it.
    expect((await call('POST', '/api/organizations/price-tiers', { ...A(org), body: { Name: 'Gold', CurrencyCode: 'USD' } })).status).toBe(200);
    expect((await call('POST', `/api/imports/${job.jobId}/retry`, A(org))).status).toBe(202);
    const retried = await waitJob(org, job.jobId, (j) => j.status === 'SucceededWithErrors' && j.created === 2);
    expect(counts(retried)).toMatchObject({ created: 2, failed: 2 });
    expect((await call('GET', `/api/catalogs/${(await call('GET', `/api/catalogs?filters=${encodeURIComponent(JSON.stringify([{ field: 'name', operator: 'equals', value: name }]))}`, A(org))).body.data[0].catalogId}`, A(org))).body).toMatchObject({ customerNumbers: [cn.none], priceTiers: ['Gold'] });
    const again = await runJson(org, { kind: 'catalog-assignments', records: [records[0]] });
    expect(counts(again)).toMatchObject({ created: 0, unchanged: 1, failed: 0 });
    const removed = await runJson(org, { kind: 'catalog-assignments', records: [{ ...records[0], assigned: false }] });
    expect(counts(removed)).toMatchObject({ created: 0, updated: 1, failed: 0 });
    expect((await call('GET', '/api/products', { token: tok.none })).body.totalRecords).toBe(5);
  }, 300_000);
});
