import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, createOrg, uniq, type OrgFixture } from './support/helpers';
import { makeImage, postMultipart, startIngestion, uploadImage, waitForIngestion, widthOf } from './support/image-helpers';

async function fetchNoAuth(url: string): Promise<{ status: number; type: string | null; data: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), data: Buffer.from(await res.arrayBuffer()) };
}

async function getImage(org: OrgFixture, id: string) {
  return call('GET', `/api/images/${id}`, { token: org.adminToken });
}

describe('images', () => {
  let org: OrgFixture;
  let other: OrgFixture;
  beforeAll(async () => {
    [org, other] = await Promise.all([createOrg(), createOrg()]);
  });

  test('when a PNG is uploaded from local, then its three unsigned URLs return PNG images of three distinct widths', async () => {
    const name = uniq('photo');
    const id = await uploadImage(org, { name: `${name}.png`, data: await makeImage(1600, 1000, 'png') });
    const res = await getImage(org, id);
    expect(res.status).toBe(200);
    const img = res.body;
    expect(img).toMatchObject({ id, organizationId: org.organizationId, name, width: 1600, height: 1000, source: 'local', format: 'png', active: true, sku: null });
    expect(typeof img.contentSize).toBe('number');
    expect(img.contentSize).toBeGreaterThan(0);
    expect(img.baseUrl.endsWith('/')).toBe(true);
    expect(img.smallUrl).toBe(`${img.baseUrl}small`);
    expect(img.mediumUrl).toBe(`${img.baseUrl}medium`);
    expect(img.largeUrl).toBe(`${img.baseUrl}large`);
    expect(img.mediumUrl).not.toMatch(/X-Amz-|Signature/i);
    const widths: number[] = [];
    for (const url of [img.smallUrl, img.mediumUrl, img.largeUrl]) {
      const got = await fetchNoAuth(url);
      expect(got.status).toBe(200);
      expect(got.type).toBe('image/png');
      widths.push(await widthOf(got.data));
    }
    expect(widths).toEqual([150, 600, 1200]);
  });

  test('when a JPEG is uploaded with extractSkuFromImageName, then the SKU is the file name and the variants are JPEGs of distinct widths', async () => {
    const sku = uniq('SKU-');
    const id = await uploadImage(org, { name: `${sku}.jpg`, sku: 'IGNORED', extract: true, data: await makeImage(1400, 700, 'jpeg'), type: 'image/jpeg' });
    const img = (await getImage(org, id)).body;
    expect(img).toMatchObject({ name: sku, sku, format: 'jpg', width: 1400, height: 700 });
    const widths = [];
    for (const url of [img.smallUrl, img.mediumUrl, img.largeUrl]) {
      const got = await fetchNoAuth(url);
      expect(got.type).toBe('image/jpeg');
      widths.push(await widthOf(got.data));
    }
    expect(new Set(widths).size).toBe(3);
    expect(widths).toEqual([150, 600, 1200]);
  });

  test('when an image is uploaded with sku and without extraction, then it links to that sku; without sku it stays unlinked', async () => {
    const linked = await uploadImage(org, { name: 'a.webp', sku: 'SKU-LINK-1', data: await makeImage(300, 300, 'webp'), type: 'image/webp' });
    expect((await getImage(org, linked)).body).toMatchObject({ sku: 'SKU-LINK-1', format: 'webp', name: 'a' });
    const loose = await uploadImage(org, { name: 'loose.gif', data: await makeImage(200, 100, 'gif'), type: 'image/gif' });
    const img = (await getImage(org, loose)).body;
    expect(img).toMatchObject({ sku: null, format: 'gif' });
    const small = await fetchNoAuth(img.smallUrl);
    expect(small.type).toBe('image/png');
    expect(await widthOf(small.data)).toBe(150);
  });

  test('when the upload is not an image, then 400 names image; when fields are missing, then 400 names each', async () => {
    const notImage = await postMultipart('/api/images/from-local', { token: org.adminToken, file: { name: 'notes.png', data: Buffer.from('hello, not a picture'), type: 'image/png' } });
    expect(notImage.status).toBe(400);
    expect(Object.keys(notImage.body.errors)).toEqual(['image']);

    const none = await postMultipart('/api/images/from-local', { token: org.adminToken, fields: { extractSkuFromImageName: 'perhaps' } });
    expect(none.status).toBe(400);
    expect(Object.keys(none.body.errors).sort()).toEqual(['extractSkuFromImageName', 'image']);

    const textField = await postMultipart('/api/images/category', { token: org.adminToken, fields: { image: 'just text' } });
    expect(textField.status).toBe(400);
    expect(Object.keys(textField.body.errors).sort()).toEqual(['categoryName', 'image']);

    const remote = await call('POST', '/api/images/from-remote', { token: org.adminToken, body: { images: [{ imageName: 'x' }, { imageUrl: 'ftp://example.com/a.png' }, { imageUrl: 'https://example.com/ok.png' }] } });
    expect(remote.status).toBe(400);
    expect(Object.keys(remote.body.errors).sort()).toEqual(['images[0].imageUrl', 'images[1].imageUrl']);

    const empty = await call('POST', '/api/images/from-remote', { token: org.adminToken, body: { images: [] } });
    expect(empty.status).toBe(400);
    expect(Object.keys(empty.body.errors)).toEqual(['images']);

    const tooMany = await call('POST', '/api/images/from-remote', { token: org.adminToken, body: { images: Array.from({ length: 501 }, (_, i) => ({ imageUrl: `https://example.com/${i}.png` })) } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors.images[0]).toMatch(/500/);
  });

  test('when an upload is larger than 20 MB, then 413', async () => {
    const big = Buffer.alloc(21 * 1024 * 1024, 1);
    const res = await postMultipart('/api/images/from-local', { token: org.adminToken, file: { name: 'big.png', data: big, type: 'image/png' } });
    expect(res.status).toBe(413);
    expect(res.body.status).toBe(413);
  });

  test('when a category image is uploaded, then the name is normalised and imageUrl is the medium variant', async () => {
    const res = await postMultipart('/api/images/category', {
      token: org.adminToken,
      fields: { categoryName: '  Power Tools ' },
      file: { name: 'whatever.png', data: await makeImage(900, 900), type: 'image/png' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imageName: 'power-tools', imageUrl: expect.stringMatching(/\/medium$/) });
    const medium = await fetchNoAuth(res.body.imageUrl);
    expect(await widthOf(medium.data)).toBe(600);
    const large = await fetchNoAuth(res.body.imageUrl.replace(/\/medium$/, '/large'));
    expect(await widthOf(large.data)).toBe(900);
  });

  test('when images are listed, then the envelope has data of { entity, links }, totals and pageSize, sorted by Name by default', async () => {
    const lister = await createOrg();
    for (const n of ['charlie', 'alpha', 'bravo']) await uploadImage(lister, { name: `${n}.png`, data: await makeImage(60, 40) });
    const res = await call('GET', '/api/images?pageSize=2', { token: lister.adminToken });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['currentPage', 'data', 'pageSize', 'totalPages', 'totalRecords']);
    expect(res.body).toMatchObject({ totalRecords: 3, currentPage: 1, totalPages: 2, pageSize: 2 });
    expect(res.body.data.map((d: any) => d.entity.name)).toEqual(['alpha', 'bravo']);
    const first = res.body.data[0];
    expect(Object.keys(first).sort()).toEqual(['entity', 'links']);
    expect(first.links[0]).toEqual({ action: 'GET', href: `/api/images/${first.entity.id}`, rel: 'self' });
    for (const l of first.links) expect(Object.keys(l).sort()).toEqual(['action', 'href', 'rel']);
    const desc = await call('GET', '/api/images?sortOn=Name&sortDirection=desc&pageNumber=1', { token: lister.adminToken });
    expect(desc.body.data.map((d: any) => d.entity.name)).toEqual(['charlie', 'bravo', 'alpha']);
    const filtered = await call('GET', `/api/images?filters=${encodeURIComponent(JSON.stringify([{ field: 'name', operator: 'startswith', value: 'br' }]))}`, { token: lister.adminToken });
    expect(filtered.body.data.map((d: any) => d.entity.name)).toEqual(['bravo']);
    const bad = await call('GET', '/api/images?sortOn=Size&pageSize=0', { token: lister.adminToken });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['pageSize', 'sortOn']);
  });

  test("when another organization's image is read or deleted, then 404 and it stays", async () => {
    const id = await uploadImage(org, { name: 'mine.png', data: await makeImage(50, 50) });
    expect((await getImage(other, id)).status).toBe(404);
    const del = await call('DELETE', '/api/images', { token: other.adminToken, body: { ids: id } });
    expect(del.status).toBe(404);
    expect((await getImage(org, id)).status).toBe(200);
    expect((await call('GET', '/api/images/not-a-uuid', { token: org.adminToken })).status).toBe(404);
  });

  test('when images are deleted by comma-separated ids, then 204, they are gone and their objects no longer load', async () => {
    const a = await uploadImage(org, { name: 'del-a.png', data: await makeImage(400, 200) });
    const b = await uploadImage(org, { name: 'del-b.png', data: await makeImage(400, 200) });
    const urls = [(await getImage(org, a)).body, (await getImage(org, b)).body].flatMap((i) => [i.smallUrl, i.mediumUrl, i.largeUrl]);
    for (const u of urls) expect((await fetchNoAuth(u)).status).toBe(200);
    const bad = await call('DELETE', '/api/images', { token: org.adminToken, body: { ids: `${a}, nope` } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['ids']);
    const missing = await call('DELETE', '/api/images', { token: org.adminToken, body: {} });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors)).toEqual(['ids']);
    const res = await call('DELETE', '/api/images', { token: org.adminToken, body: { ids: `${a}, ${b}` } });
    expect(res.status).toBe(204);
    expect((await getImage(org, a)).status).toBe(404);
    expect((await getImage(org, b)).status).toBe(404);
    for (const u of urls) expect([403, 404]).toContain((await fetchNoAuth(u)).status);
  });

  test('when the OpenAPI document is read, then the image upload is multipart with a binary image field', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const op = res.body.paths['/api/images/from-local'].post;
    const schema = op.requestBody.content['multipart/form-data'].schema;
    expect(schema.properties.image).toMatchObject({ type: 'string', format: 'binary' });
    expect(schema.required).toContain('image');
    expect(res.body.paths['/api/images/ingestions/{jobId}'].get).toBeDefined();
  });

  describe('remote ingestion', () => {
    let server: http.Server;
    let base: string;
    const hits: Record<string, number> = {};
    beforeAll(async () => {
      const png = await makeImage(1300, 650, 'png');
      const jpg = await makeImage(700, 700, 'jpeg');
      server = http.createServer((req, res) => {
        const path = (req.url ?? '').split('?')[0];
        hits[path] = (hits[path] ?? 0) + 1;
        res.on('error', () => undefined);
        if (path === '/img/GOOD-PNG.png') {
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
          res.end(png);
        } else if (path === '/img/good.jpg') {
          res.writeHead(200, { 'content-type': 'image/jpeg' });
          res.end(jpg);
        } else if (path === '/img/notes.txt') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('this is not an image');
        } else if (path === '/img/huge.png') {
          // Chunked, no Content-Length: the limit must hold while streaming.
          res.writeHead(200, { 'content-type': 'image/png' });
          const chunk = Buffer.alloc(1024 * 1024, 7);
          let sent = 0;
          const pump = () => {
            while (sent < 22 && !res.destroyed) {
              sent++;
              if (!res.write(chunk)) return void res.once('drain', pump);
            }
            res.end();
          };
          pump();
        } else if (path === '/img/fake.png') {
          res.writeHead(200, { 'content-type': 'image/png' });
          res.end('PNG? no.');
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not found');
        }
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    test('when a batch has good images, a 404, a non-image and an oversized file, then the good ones are stored and each other one fails with its reason', async () => {
      const sku = uniq('SKU-R');
      const jobId = await startIngestion(org, [
        { imageUrl: `${base}/img/GOOD-PNG.png`, extractSkuFromImageName: true },
        { imageUrl: `${base}/img/good.jpg`, imageName: 'renamed', productSku: sku },
        { imageUrl: `${base}/img/missing.png` },
        { imageUrl: `${base}/img/notes.txt` },
        { imageUrl: `${base}/img/huge.png` },
        { imageUrl: `${base}/img/fake.png` },
      ]);
      expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
      const job = await waitForIngestion(org, jobId);
      expect(job.jobId).toBe(jobId);
      expect(job.counts).toEqual({ total: 6, pending: 0, succeeded: 2, failed: 4 });
      const [good1, good2, missing, text, huge, fake] = job.items;
      expect(good1).toMatchObject({ imageUrl: `${base}/img/GOOD-PNG.png`, status: 'succeeded', reason: null });
      expect(good2).toMatchObject({ status: 'succeeded', reason: null });
      expect(missing).toMatchObject({ status: 'failed', imageId: null, reason: expect.stringMatching(/HTTP 404/) });
      expect(text).toMatchObject({ status: 'failed', imageId: null, reason: expect.stringMatching(/not an image.*text\/plain/) });
      expect(huge).toMatchObject({ status: 'failed', imageId: null, reason: expect.stringMatching(/larger than the 20 MB limit/) });
      expect(fake).toMatchObject({ status: 'failed', imageId: null, reason: expect.stringMatching(/not a readable image/) });
      // Non-retryable failures are not fetched again.
      expect(hits['/img/missing.png']).toBe(1);
      expect(hits['/img/notes.txt']).toBe(1);

      const img1 = (await getImage(org, good1.imageId)).body;
      expect(img1).toMatchObject({ name: 'GOOD-PNG', sku: 'GOOD-PNG', source: `${base}/img/GOOD-PNG.png`, format: 'png', width: 1300, height: 650 });
      const img2 = (await getImage(org, good2.imageId)).body;
      expect(img2).toMatchObject({ name: 'renamed', sku, format: 'jpg', width: 700 });
      const widths = [];
      for (const u of [img1.smallUrl, img1.mediumUrl, img1.largeUrl]) widths.push(await widthOf((await fetchNoAuth(u)).data));
      expect(widths).toEqual([150, 600, 1200]);
    });

    test("when another organization asks for the ingestion, then 404", async () => {
      const jobId = await startIngestion(org, [{ imageUrl: `${base}/img/missing.png` }]);
      expect((await call('GET', `/api/images/ingestions/${jobId}`, { token: other.adminToken })).status).toBe(404);
      await waitForIngestion(org, jobId);
    });
  });
});
