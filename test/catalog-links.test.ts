import { call, createOrg, uniq, type OrgFixture } from './support/helpers';
import { makeImage, postMultipart, uploadImage } from './support/image-helpers';

describe('catalog links between products, categories and images', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  test('when an image is uploaded for a SKU, then the product returns it in images with loadable variant URLs', async () => {
    const sku = uniq('IMG-');
    expect((await call('PUT', '/api/products', { token: org.adminToken, body: { sku, name: 'Pictured product' } })).status).toBe(201);
    const imageId = await uploadImage(org, { sku, data: await makeImage(800, 400) });
    const res = await call('GET', `/api/products/${sku}`, { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(res.body.images).toHaveLength(1);
    expect(res.body.images[0]).toMatchObject({ id: imageId, sku, format: 'png' });
    const medium = await fetch(res.body.images[0].mediumUrl);
    expect(medium.status).toBe(200);
    expect(medium.headers.get('content-type')).toBe('image/png');
    const list = await call('GET', `/api/products?filters=${encodeURIComponent(JSON.stringify([{ field: 'sku', operator: 'equals', value: sku }]))}`, { token: org.adminToken });
    expect(list.body.data[0].images.map((i: { id: string }) => i.id)).toEqual([imageId]);
  });

  test('when a category image is uploaded, then the category shows its medium URL as imageUrl', async () => {
    const name = `Power Tools ${uniq('')}`;
    expect((await call('PUT', '/api/categories', { token: org.adminToken, body: { name, parentName: null, active: true } })).status).toBe(201);
    const up = await postMultipart('/api/images/category', {
      token: org.adminToken,
      fields: { categoryName: name },
      file: { name: 'cat.png', data: await makeImage(300, 300), type: 'image/png' },
    });
    expect(up.status).toBe(200);
    expect(up.body.imageUrl).toMatch(/\/medium$/);
    const cats = await call('GET', '/api/categories', { token: org.adminToken });
    const cat = (cats.body.categories as { name: string; imageUrl: string | null }[]).find((c) => c.name === name)!;
    expect(cat.imageUrl).toBe(up.body.imageUrl);
    expect((await fetch(cat.imageUrl!.replace(/\/medium$/, '/small'))).status).toBe(200);
  });
});
