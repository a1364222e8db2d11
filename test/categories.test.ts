import { call, createOrg, customerToken, type OrgFixture } from './support/helpers';

const putCat = (org: OrgFixture, body: unknown, token = org.adminToken) => call('PUT', '/api/categories', { token, body });
const CATEGORY_FIELDS = ['active', 'breadcrumb', 'id', 'imageUrl', 'name', 'organizationId', 'parentId', 'subCategories'];

describe('categories', () => {
  let org: OrgFixture;
  let other: OrgFixture;
  let customer: string;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(), createOrg()]);
    customer = await customerToken(org, { PriceTier: 'Retail', CurrencyCode: 'USD', CustomerNumber: 'C1' });
    expect((await putCat(org, { name: 'Tools', parentName: null, active: true })).status).toBe(201);
    expect((await putCat(org, { name: 'Hammers', parentName: 'tools', active: true })).status).toBe(201);
    expect((await putCat(org, { name: 'Claw', parentName: 'Hammers', active: true })).status).toBe(201);
    expect((await putCat(org, { name: 'Saws', parentName: 'Tools', active: false })).status).toBe(201);
  });

  test('when the tree is read, then roots carry nested subCategories with breadcrumbs and exact fields', async () => {
    const res = await call('GET', '/api/categories', { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['categories']);
    const [tools] = res.body.categories;
    expect(Object.keys(tools).sort()).toEqual(CATEGORY_FIELDS);
    expect(tools).toMatchObject({ organizationId: org.organizationId, name: 'Tools', breadcrumb: 'Tools', parentId: null, active: true, imageUrl: null });
    expect(tools.subCategories.map((c: { name: string }) => c.name)).toEqual(['Hammers', 'Saws']);
    const hammers = tools.subCategories[0];
    expect(hammers.parentId).toBe(tools.id);
    expect(hammers.subCategories[0]).toMatchObject({ name: 'Claw', breadcrumb: 'Tools Hammers Claw', parentId: hammers.id, subCategories: [] });
  });

  test('when a customer reads the tree, then inactive categories are left out', async () => {
    const res = await call('GET', '/api/categories', { token: customer });
    expect(res.status).toBe(200);
    expect(res.body.categories[0].subCategories.map((c: { name: string }) => c.name)).toEqual(['Hammers']);
  });

  test('when the children of a category are asked, then the name matches case-insensitively; unknown or foreign is 404', async () => {
    const res = await call('GET', '/api/categories/TOOLS', { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(res.body.map((c: { name: string }) => c.name)).toEqual(['Hammers', 'Saws']);
    expect((await call('GET', '/api/categories/nothing-here', { token: org.adminToken })).status).toBe(404);
    expect((await call('GET', '/api/categories/Tools', { token: other.adminToken })).status).toBe(404);
  });

  test('when a category is put again, then it is updated (moved, deactivated) not duplicated', async () => {
    const res = await putCat(org, { name: 'claw', parentName: 'Tools', active: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'claw', breadcrumb: 'Tools claw', active: false });
    const back = await putCat(org, { name: 'Claw', parentName: 'Hammers', active: true });
    expect(back.status).toBe(200);
    expect(back.body.breadcrumb).toBe('Tools Hammers Claw');
  });

  test('when a category would sit under its own subcategory, then it is 400', async () => {
    const res = await putCat(org, { name: 'Tools', parentName: 'Claw', active: true });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(['parentName']);
  });

  test('when the body is bad or the parent unknown, then 400 names the fields', async () => {
    const res = await putCat(org, { parentName: 5, active: 'yes' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['active', 'name', 'parentName']);
    const unknown = await putCat(org, { name: 'Orphan', parentName: 'No such parent' });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.errors)).toEqual(['parentName']);
  });

  test('when a customer tries to write, then it is 403', async () => {
    expect((await putCat(org, { name: 'Nope', parentName: null, active: true }, customer)).status).toBe(403);
  });

  test('when a product names an unknown category, then the category is created at the root', async () => {
    const res = await call('PUT', '/api/products', { token: org.adminToken, body: { sku: 'CAT-1', name: 'Glove', category: 'Safety' } });
    expect(res.status).toBe(201);
    expect(res.body.category).toBe('Safety');
    const tree = await call('GET', '/api/categories', { token: org.adminToken });
    const safety = tree.body.categories.find((c: { name: string }) => c.name === 'Safety');
    expect(safety).toMatchObject({ parentId: null, breadcrumb: 'Safety', active: true });
  });
});
