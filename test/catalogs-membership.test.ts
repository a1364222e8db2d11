/**
 * Catalog membership (issue 40 item 6, docs/catalogs.md "How it is computed"): a customer's list
 * page and its exact total come from the membership the database keeps per catalog. Each kind of
 * change shows on the next page: a rule change, products written through the API and through a
 * `products` import (created, re-categorized, deactivated), and a category moved in and out of an
 * included subtree; a customer with two overlapping catalogs counts a product once.
 */
import { call, createOrg, customerToken, dbQuery, ensureCustomer, uniq, type OrgFixture } from './support/helpers';
import { counts, runJson } from './support/import-helpers';

const tier = 'Retail';

describe('catalog membership', () => {
  let org: OrgFixture;
  const A = () => ({ token: org.adminToken });
  let p = '';
  const name = { tools: '', power: '', garden: '' };
  let one = '';
  let two = '';
  const tok = { one: '', two: '' };

  const s = (k: string) => `${p}-${k}`;
  const put = (body: Record<string, unknown>) => call('PUT', '/api/products', { ...A(), body: { prices: [{ tier, price: 5 }], ...body } });
  const moveCategory = (n: string, parentName: string | null) => call('PUT', '/api/categories', { ...A(), body: { name: n, parentName, active: true } });

  /** Every page of the customer's list (pageSize 2, so the total and the paging are both exercised), checking totalRecords against it. */
  async function listed(token: string, query = ''): Promise<string[]> {
    const out: string[] = [];
    let total = -1;
    for (let page = 1; page < 50; page++) {
      const res = await call('GET', `/api/products?pageSize=2&pageNumber=${page}${query}`, { token });
      expect(res.status).toBe(200);
      total = res.body.totalRecords;
      out.push(...res.body.data.map((x: { sku: string }) => x.sku));
      if (res.body.data.length < 2) break;
    }
    expect(out.length).toBe(total);
    return out;
  }
  const held = async (token = tok.one) => {
    const asc = await listed(token);
    // The same set in descending order, and by keyset (after= the last sku seen).
    expect(await listed(token, '&sortDirection=desc')).toEqual([...asc].reverse());
    if (asc.length > 1) {
      const after = await call('GET', `/api/products?pageSize=50&after=${encodeURIComponent(asc[0])}`, { token });
      expect(after.body.data.map((x: { sku: string }) => x.sku)).toEqual(asc.slice(1));
    }
    return asc;
  };
  const expected = (...keys: string[]) => keys.map(s).sort();

  beforeAll(async () => {
    org = await createOrg();
    p = uniq('M');
    expect((await call('POST', '/api/organizations/price-tiers', { ...A(), body: { Name: tier, CurrencyCode: 'USD' } })).status).toBe(200);
    name.tools = `${p} Tools`;
    name.power = `${p} Power`;
    name.garden = `${p} Garden`;
    expect((await moveCategory(name.tools, null)).status).toBe(201);
    expect((await moveCategory(name.power, name.tools)).status).toBe(201);
    expect((await moveCategory(name.garden, null)).status).toBe(201);
    for (const [k, category] of [['ham', name.tools], ['drill', name.power], ['rake', name.garden], ['glove', null]] as const)
      expect((await put({ sku: s(k), name: k, category })).status).toBe(201);
    const cn = { one: uniq('C1-'), two: uniq('C2-') };
    for (const k of ['one', 'two'] as const) {
      await ensureCustomer(org, cn[k], tier);
      tok[k] = await customerToken(org, { CustomerNumber: cn[k], PriceTier: tier, CurrencyCode: 'USD' });
    }
    const a = await call('POST', '/api/catalogs', {
      ...A(),
      body: { name: 'Tools but power', selections: [{ category: name.tools }, { category: name.power, mode: 'Exclude' }], customerNumbers: [cn.one, cn.two] },
    });
    expect(a.status).toBe(201);
    one = a.body.catalogId;
    const b = await call('POST', '/api/catalogs', { ...A(), body: { name: 'Contract', selections: [{ sku: s('ham') }, { sku: s('rake') }], customerNumbers: [cn.two] } });
    expect(b.status).toBe(201);
    two = b.body.catalogId;
  }, 300_000);

  test('when a customer has two catalogs holding the same product, then the list shows it once and counts it once', async () => {
    expect(await held()).toEqual(expected('ham'));
    expect(await held(tok.two)).toEqual(expected('ham', 'rake'));
    const members = await dbQuery<{ catalog_id: string; n: number }>(
      'select catalog_id, count(*)::int as n from catalog_member where organization_id = $1 group by catalog_id order by n',
      [org.organizationId],
    );
    expect(members).toEqual(expect.arrayContaining([{ catalog_id: one, n: 1 }, { catalog_id: two, n: 2 }]));
  });

  test('when the rules change, then the next page and total follow them', async () => {
    const res = await call('PUT', `/api/catalogs/${one}`, { ...A(), body: { selections: [{ category: name.tools }, { sku: s('glove') }] } });
    expect(res.status).toBe(200);
    expect(await held()).toEqual(expected('drill', 'glove', 'ham'));
    const back = await call('PUT', `/api/catalogs/${one}`, { ...A(), body: { selections: [{ category: name.tools }, { category: name.power, mode: 'Exclude' }] } });
    expect(back.status).toBe(200);
    expect(await held()).toEqual(expected('ham'));
  });

  test('when products are created, re-categorized and deactivated through the API, then the list follows', async () => {
    expect((await put({ sku: s('saw'), name: 'saw', category: name.tools })).status).toBe(201);
    expect((await put({ sku: s('nail'), name: 'nail', category: name.power })).status).toBe(201);
    expect(await held()).toEqual(expected('ham', 'saw'));
    expect((await put({ sku: s('rake'), name: 'rake', category: name.tools })).status).toBe(200);
    expect((await put({ sku: s('ham'), name: 'ham', category: name.power })).status).toBe(200);
    expect(await held()).toEqual(expected('rake', 'saw'));
    expect((await call('POST', `/api/products/${encodeURIComponent(s('saw'))}/deactivate`, A())).status).toBe(200);
    expect(await held()).toEqual(expected('rake'));
    expect((await call('POST', `/api/products/${encodeURIComponent(s('saw'))}/activate`, A())).status).toBe(200);
    expect(await held()).toEqual(expected('rake', 'saw'));
    // The second customer: rake and ham by SKU (ham is now a power tool) plus the first catalog's rake and saw.
    expect(await held(tok.two)).toEqual(expected('ham', 'rake', 'saw'));
  });

  test('when a products import creates and re-categorizes products, then the list follows', async () => {
    const job = await runJson(org, {
      kind: 'products',
      records: [
        { sku: s('plane'), name: 'plane', category: name.tools, prices: [{ tier, price: 3 }] },
        { sku: s('hose'), name: 'hose', category: name.garden, prices: [{ tier, price: 3 }] },
        { sku: s('glove'), name: 'glove', category: name.tools },
        { sku: s('rake'), name: 'rake', category: name.garden },
        { sku: s('old'), name: 'old', category: name.tools, active: false },
      ],
    });
    expect(counts(job)).toMatchObject({ status: 'Succeeded', failed: 0 });
    expect(await held()).toEqual(expected('glove', 'plane', 'saw'));
  });

  test('when a category moves into or out of an included category, then its products join or leave the list', async () => {
    expect((await moveCategory(name.garden, name.tools)).status).toBe(200);
    expect(await held()).toEqual(expected('glove', 'hose', 'plane', 'rake', 'saw'));
    // Under the excluded Power tools: excluded with it.
    expect((await moveCategory(name.garden, name.power)).status).toBe(200);
    expect(await held()).toEqual(expected('glove', 'plane', 'saw'));
    expect((await moveCategory(name.power, null)).status).toBe(200);
    expect(await held()).toEqual(expected('glove', 'plane', 'saw'));
    expect((await moveCategory(name.power, name.tools)).status).toBe(200);
    expect((await moveCategory(name.garden, null)).status).toBe(200);
    expect(await held()).toEqual(expected('glove', 'plane', 'saw'));
    // What the admin sees of the catalog is the same set, and the membership table holds exactly it.
    const admin = await call('GET', `/api/catalogs/${one}/products?pageSize=50`, A());
    expect(admin.body.data.map((x: { sku: string }) => x.sku)).toEqual(expected('glove', 'plane', 'saw'));
    expect(admin.body.totalRecords).toBe(3);
    const rows = await dbQuery<{ sku: string }>('select sku from catalog_member where organization_id = $1 and catalog_id = $2 order by sku', [org.organizationId, one]);
    expect(rows.map((r) => r.sku)).toEqual(expected('glove', 'plane', 'saw'));
    const [count] = await dbQuery<{ held: string }>('select held from catalog_member_count where organization_id = $1 and catalog_id = $2', [org.organizationId, one]);
    expect(Number(count.held)).toBe(3);
  });

  test('when a catalog is deleted, then its membership goes with it and its customers see everything again', async () => {
    expect((await call('DELETE', `/api/catalogs/${one}`, A())).status).toBe(204);
    expect(await dbQuery('select 1 from catalog_member where organization_id = $1 and catalog_id = $2', [org.organizationId, one])).toEqual([]);
    expect((await listed(tok.one)).length).toBe(8);
  });
});
