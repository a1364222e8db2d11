/**
 * Company documents over HTTP against the real stack (MinIO holds the bytes): folders with
 * paths, uploads sniffed from their bytes, cdnUrl and download round trips, moves, deletes,
 * the quota (the test stack sets DOCUMENT_QUOTA_BYTES to 1 MiB) and roles.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'minio';
import { call, createOrg, customerToken, expectProblem, repToken, stack, type OrgFixture } from './support/helpers';
import { postMultipart } from './support/image-helpers';

jest.setTimeout(90_000);
const QUOTA = 1024 * 1024;
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const A = (o: OrgFixture = org) => ({ base: o.base, token: o.adminToken });
const pdf = (text = 'hello') => Buffer.from(`%PDF-1.4\n% ${text}\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n`);
const png = (size: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(size - 8)]);
const upload = (o: OrgFixture, name: string, data: Buffer, fields: Record<string, string> = {}, type = 'application/octet-stream') =>
  postMultipart('/api/companydocs/documents/upload', { base: o.base, token: o.adminToken, fields, file: { field: 'file', name, data, type } });
const folder = async (o: OrgFixture, name: string, parentId: string | null = null) => {
  const res = await call('POST', '/api/companydocs/folders', { ...A(o), body: { name, parentId } });
  expect(res.status).toBe(201);
  return res.body.folder;
};

describe('folders', () => {
  test('when folders are nested, then paths join the names; siblings must differ; bad names are 400', async () => {
    const o = await createOrg();
    const parent = await folder(o, 'Contracts');
    const child = await folder(o, '2026', parent.folderId);
    expect(child).toEqual({
      folderId: expect.any(String),
      organizationId: o.organizationId,
      name: '2026',
      parentId: parent.folderId,
      path: '/Contracts/2026',
      externalId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expectProblem(await call('POST', '/api/companydocs/folders', { ...A(o), body: { name: 'contracts', parentId: null } }), 409);
    const bad = await call('POST', '/api/companydocs/folders', { ...A(o), body: { name: 'a/b', parentId: 'nope' } });
    expectProblem(bad, 400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['name', 'parentId']);
    expectProblem(await call('POST', '/api/companydocs/folders', { ...A(o), body: { name: 'x'.repeat(256) } }), 400);
    const list = await call('GET', '/api/companydocs/folders', A(o));
    expect(list.body.folders.map((f: any) => f.path)).toEqual(['/Contracts', '/Contracts/2026']);
    expect((await call('GET', `/api/companydocs/folders/${child.folderId}`, A(o))).body).toEqual({ folder: child });
    const del = await call('DELETE', `/api/companydocs/folders/${parent.folderId}`, A(o));
    expectProblem(del, 400);
    expect(del.body.detail).toContain('not empty');
    expect((await call('DELETE', `/api/companydocs/folders/${child.folderId}`, A(o))).status).toBe(204);
    expectProblem(await call('GET', `/api/companydocs/folders/${child.folderId}`, A(o)), 404);
    expectProblem(await call('GET', `/api/companydocs/folders/${parent.folderId}`, A(org)), 404);
  });

  test('when folders nest deeper than 10 levels, then 400', async () => {
    const o = await createOrg();
    let parent: string | null = null;
    for (let i = 1; i <= 10; i++) parent = (await folder(o, `L${i}`, parent)).folderId;
    const res = await call('POST', '/api/companydocs/folders', { ...A(o), body: { name: 'L11', parentId: parent } });
    expectProblem(res, 400);
    expect(res.body.errors.parentId[0]).toContain('10 levels');
  });
});

describe('documents', () => {
  test('when a document is uploaded, then its bytes round-trip through cdnUrl and download with the right headers', async () => {
    const o = await createOrg();
    const f = await folder(o, 'Price lists');
    const data = Buffer.from('sku,price\nA-1,10.00\nÜ-2,12.50\n', 'utf8');
    const res = await upload(o, 'Preisliste Ü.csv', data, { folderId: f.folderId, externalId: 'ext-1' });
    expect(res.status).toBe(201);
    const doc = res.body.document;
    expect(doc).toEqual({
      documentId: expect.any(String),
      organizationId: o.organizationId,
      name: 'Preisliste Ü.csv',
      fileExtension: 'csv',
      mimeType: 'text/csv; charset=utf-8',
      size: data.length,
      folderId: f.folderId,
      cdnUrl: expect.stringContaining(`/documents/${o.organizationId}/${doc.documentId}?`),
      path: '/Price lists/Preisliste Ü.csv',
      externalId: 'ext-1',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(doc.cdnUrl).toContain('X-Amz-Expires=3600');
    const viaCdn = await fetch(doc.cdnUrl);
    expect(viaCdn.status).toBe(200);
    expect(Buffer.from(await viaCdn.arrayBuffer())).toEqual(data);
    expect(viaCdn.headers.get('content-disposition')).toContain('attachment');
    const tampered = await fetch(doc.cdnUrl.replace('X-Amz-Expires=3600', 'X-Amz-Expires=7200'));
    expect(tampered.status).toBe(403);
    const dl = await fetch(`${o.base}/api/companydocs/documents/${doc.documentId}/download`, { headers: { authorization: `Bearer ${o.adminToken}` } });
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(dl.headers.get('content-length')).toBe(String(data.length));
    expect(dl.headers.get('content-disposition')).toBe(`attachment; filename="Preisliste _.csv"; filename*=UTF-8''Preisliste%20%C3%9C.csv`);
    expect(Buffer.from(await dl.arrayBuffer())).toEqual(data);
    const fresh = await call('POST', `/api/companydocs/documents/${doc.documentId}/refresh-url`, A(o));
    expect(fresh.status).toBe(200);
    expect(fresh.body).toEqual({ cdnUrl: expect.stringContaining(doc.documentId) });
    const one = await call('GET', `/api/companydocs/documents/${doc.documentId}`, A(o));
    expect(one.body.document).toEqual({ ...doc, cdnUrl: expect.any(String) });
    const inFolder = await call('GET', `/api/companydocs/documents?folderId=${f.folderId}`, A(o));
    expect(inFolder.body.documents.map((d: any) => d.documentId)).toEqual([doc.documentId]);
    expect((await call('GET', '/api/companydocs/documents?folderId=root', A(o))).body.documents).toEqual([]);
    expectProblem(await call('GET', `/api/companydocs/documents/${doc.documentId}`, A(org)), 404);
  });

  test('when the bytes do not match the extension or the type is not accepted, then 415; no file is 400', async () => {
    const o = await createOrg();
    expectProblem(await upload(o, 'invoice.pdf', Buffer.from('just text')), 415);
    expectProblem(await upload(o, 'picture.png', pdf()), 415);
    expectProblem(await upload(o, 'tool.exe', Buffer.from('MZ......')), 415);
    expectProblem(await upload(o, 'report.docx', Buffer.from('PK\x03\x04 not really office')), 415);
    const none = await postMultipart('/api/companydocs/documents/upload', { base: o.base, token: o.adminToken, fields: { folderId: 'x' } });
    expectProblem(none, 400);
    expect(Object.keys(none.body.errors).sort()).toEqual(['file', 'folderId']);
    expect((await upload(o, 'ok.pdf', pdf())).status).toBe(201);
  });

  test('when a name is already used in the folder, then the new document is "name (2).ext"', async () => {
    const o = await createOrg();
    expect((await upload(o, 'terms.pdf', pdf('a'))).body.document.name).toBe('terms.pdf');
    expect((await upload(o, 'terms.pdf', pdf('b'))).body.document.name).toBe('terms (2).pdf');
    expect((await upload(o, 'TERMS.pdf', pdf('c'))).body.document.name).toBe('TERMS (3).pdf');
  });

  test('when an upload would pass the quota, then 409 names the free space and stats reflect uploads and deletes at once', async () => {
    const o = await createOrg();
    const empty = await call('GET', '/api/companydocs/stats/storage', A(o));
    expect(empty.body).toEqual({ stats: { totalFiles: 0, totalSize: 0, maxSize: QUOTA, usedPercentage: 0, availableSize: QUOTA } });
    const first = await upload(o, 'big.png', png(600 * 1024));
    expect(first.status).toBe(201);
    const second = await upload(o, 'big2.png', png(600 * 1024));
    expectProblem(second, 409);
    const free = QUOTA - 600 * 1024;
    expect(second.body.detail).toContain(`${free} bytes`);
    const stats = await call('GET', '/api/companydocs/stats/storage', A(o));
    expect(stats.body.stats).toEqual({ totalFiles: 1, totalSize: 600 * 1024, maxSize: QUOTA, usedPercentage: 58.59, availableSize: free });
    expect((await call('DELETE', `/api/companydocs/documents/${first.body.document.documentId}`, A(o))).status).toBe(204);
    expect((await call('GET', '/api/companydocs/stats/storage', A(o))).body.stats).toMatchObject({ totalFiles: 0, totalSize: 0 });
    expect((await fetch(first.body.document.cdnUrl)).status).toBe(404);
    expect((await upload(o, 'big2.png', png(600 * 1024))).status).toBe(201);
  });

  test('when a file is larger than 50 MB, then 413', async () => {
    const o = await createOrg();
    let status: number;
    try {
      status = (await upload(o, 'huge.pdf', Buffer.concat([pdf(), Buffer.alloc(50 * 1024 * 1024 + 10)]))).status;
    } catch {
      status = -1; // the server may close the connection while the client is still sending
    }
    expect(status).toBe(413);
  });

  test('when documents are moved and deleted in bulk, then it is all or nothing and deleted files leave storage', async () => {
    const o = await createOrg();
    const f = await folder(o, 'Archive');
    const ids: string[] = [];
    const urls: string[] = [];
    for (const n of ['a.pdf', 'b.pdf', 'c.pdf']) {
      const r = await upload(o, n, pdf(n));
      ids.push(r.body.document.documentId);
      urls.push(r.body.document.cdnUrl);
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    const bad = await call('POST', '/api/companydocs/documents/bulk-move', { ...A(o), body: { documentIds: [ids[0], unknown], targetFolderId: f.folderId } });
    expectProblem(bad, 400);
    expect(JSON.stringify(bad.body.errors)).toContain(unknown);
    expect((await call('GET', `/api/companydocs/documents?folderId=${f.folderId}`, A(o))).body.documents).toEqual([]);
    expect(
      (await call('POST', '/api/companydocs/documents/bulk-move', { ...A(o), body: { documentIds: ids.slice(0, 2), targetFolderId: f.folderId } })).status,
    ).toBe(204);
    const moved = await call('GET', `/api/companydocs/documents?folderId=${f.folderId}`, A(o));
    expect(moved.body.documents.map((d: any) => d.path)).toEqual(['/Archive/a.pdf', '/Archive/b.pdf']);
    expect((await call('PUT', `/api/companydocs/documents/${ids[0]}/move`, { ...A(o), body: { targetFolderId: null } })).status).toBe(204);
    expect((await call('GET', `/api/companydocs/documents/${ids[0]}`, A(o))).body.document).toMatchObject({ folderId: null, path: '/a.pdf' });
    expectProblem(await call('PUT', `/api/companydocs/documents/${ids[0]}/move`, { ...A(o), body: {} }), 400);
    expectProblem(await call('PUT', `/api/companydocs/documents/${unknown}/move`, { ...A(o), body: { targetFolderId: null } }), 404);
    const badDelete = await call('POST', '/api/companydocs/documents/bulk-delete', { ...A(o), body: { documentIds: [ids[1], unknown] } });
    expectProblem(badDelete, 400);
    expect((await fetch(urls[1])).status).toBe(200);
    expectProblem(await call('POST', '/api/companydocs/documents/bulk-delete', { ...A(o), body: { documentIds: [] } }), 400);
    expect((await call('POST', '/api/companydocs/documents/bulk-delete', { ...A(o), body: { documentIds: ids } })).status).toBe(204);
    for (const u of urls) expect((await fetch(u)).status).toBe(404);
    expect((await call('GET', '/api/companydocs/documents', A(o))).body.documents).toEqual([]);
  });

  test('when a SalesRep or Customer calls, then the rep reads but cannot write and the customer gets 403', async () => {
    const o = await createOrg();
    const up = await upload(o, 'handbook.pdf', pdf());
    const rep = await repToken(o, 'R-DOC');
    const cust = await customerToken(o, { CustomerNumber: 'C-DOC' });
    expect((await call('GET', '/api/companydocs/documents', { base: o.base, token: rep })).body.documents).toHaveLength(1);
    expect((await call('GET', `/api/companydocs/documents/${up.body.document.documentId}/download`, { base: o.base, token: rep })).status).toBe(200);
    expectProblem(await call('POST', '/api/companydocs/folders', { base: o.base, token: rep, body: { name: 'x' } }), 403);
    expectProblem(await call('DELETE', `/api/companydocs/documents/${up.body.document.documentId}`, { base: o.base, token: rep }), 403);
    expectProblem(await call('GET', '/api/companydocs/documents', { base: o.base, token: cust }), 403);
    expectProblem(await call('GET', '/api/companydocs/stats/storage', { base: o.base, token: cust }), 403);
  });

  test('when a document outlived its stored file, then its download answers 404 problem details, not 500', async () => {
    const o = await createOrg();
    const res = await upload(o, 'gone.csv', Buffer.from('a,b\n1,2\n', 'utf8'));
    expect(res.status).toBe(201);
    const id = res.body.document.documentId as string;
    // The object store loses the bytes (a restore without it, a bucket emptied by hand); the record stays.
    const env = stack.env.production;
    const endpoint = new URL(env.S3_ENDPOINT);
    const minio = new Client({ endPoint: endpoint.hostname, port: Number(endpoint.port), useSSL: endpoint.protocol === 'https:', accessKey: env.S3_ACCESS_KEY, secretKey: env.S3_SECRET_KEY });
    await minio.removeObject(env.S3_BUCKET, `documents/${o.organizationId}/${id}`);
    const dl = await call('GET', `/api/companydocs/documents/${id}/download`, { base: o.base, token: o.adminToken });
    expectProblem(dl, 404);
    expect(dl.body.detail).toContain('stored file');
    expect((await call('GET', `/api/companydocs/documents/${id}`, { base: o.base, token: o.adminToken })).status).toBe(200);
  });
});
