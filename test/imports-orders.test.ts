/** Import jobs of kinds `orders` and `invoices` over HTTP against the real stack. */
import { call, createOrg, dbQuery, uniq, type OrgFixture } from './support/helpers';
import { counts, errorsOf, runFile, runJson } from './support/import-helpers';
import { invoiceBody } from './support/matrix-fixtures';

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const A = () => ({ base: org.base, token: org.adminToken });

const orderRow = (over: Record<string, unknown> = {}) => ({
  customer: { customerNumber: 'C-100', companyName: 'Acme', billingAddress: { address1: '1 Main', city: 'Springfield', country: 'US' } },
  orderType: 'Direct',
  poNumber: 'PO-1',
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Rep' },
  items: [
    { sku: 'A', productName: 'Widget', quantity: 3, price: 1.005 },
    { sku: 'B', productName: 'Gadget', quantity: 1, price: 10 },
  ],
  user: { userId: 'u-1', userType: 'Admin' },
  shippingDetails: { method: 'Ground', total: 5 },
  tax: 1.5,
  ...over,
});

const ordersOf = (orgId: string) =>
  dbQuery<Record<string, unknown>>(
    `select id, order_number, external_id, notes, order_status, subtotal::text, tax::text, shipping_total::text, total::text, active, updated_at,
            (select json_agg(json_build_object('id', i.id, 'sku', i.sku, 'quantity', i.quantity, 'price', i.price::text, 'subTotal', i.sub_total::text) order by i.position)
               from order_item i where i.order_id = o.id) as items
       from sales_order o where organization_id = $1 order by order_number`,
    [orgId],
  );

describe('orders', () => {
  test('when orders are imported and then again, then good ones land with the order totals, the bad one is reported by record and field, and the second run counts them unchanged and writes nothing', async () => {
    const p = uniq('O');
    const records = [
      orderRow({ externalId: `${p}-x1`, orderNumber: `${p}-1`, orderDate: '2024-01-15T00:00:00Z', orderStatus: 'Processing' }),
      orderRow({ orderNumber: `${p}-2`, notes: 'by number' }),
      orderRow({ orderNumber: `${p}-3`, items: [{ sku: 'A', productName: 'Widget', quantity: 0, price: 1 }] }),
      orderRow({ externalId: `${p}-x4`, orderNumber: `${p}-4`, currencyCode: 'usd' }),
    ];
    const first = await runJson(org, { kind: 'orders', records });
    expect(counts(first)).toEqual({ status: 'SucceededWithErrors', totalRecords: 4, processed: 4, created: 2, updated: 0, unchanged: 0, failed: 2 });
    const report = await errorsOf(org, first.jobId);
    expect(report.Data).toEqual([
      { record: 3, key: `${p}-3`, field: 'items[0].quantity', message: 'items[0].quantity must be at least 1.' },
      { record: 4, key: `${p}-x4`, field: 'currencyCode', message: 'currencyCode must be an ISO 4217 code such as USD.' },
    ]);
    const listed = await call('GET', `/api/orders?orderNumber=${p}-1`, A());
    const o1 = listed.body.data.find((o: any) => o.orderNumber === `${p}-1`);
    expect({ orderStatus: o1.orderStatus, orderDate: o1.orderDate, externalId: o1.externalId, subtotal: o1.subtotal, tax: o1.tax, shippingTotal: o1.shippingTotal, total: o1.total, totalFormatted: o1.totalFormatted }).toEqual({
      orderStatus: 'Processing',
      orderDate: '2024-01-15T00:00:00.000Z',
      externalId: `${p}-x1`,
      subtotal: 13.02,
      tax: 1.5,
      shippingTotal: 5,
      total: 19.52,
      totalFormatted: '$19.52',
    });
    expect(o1.items.map((i: any) => [i.sku, i.quantity, i.subTotal])).toEqual([
      ['A', 3, 3.02],
      ['B', 1, 10],
    ]);
    // The same rule as POST /api/orders: the single endpoint stores the same totals.
    const single = await call('POST', '/api/orders', { ...A(), body: orderRow({ poNumber: `${p}-single` }) });
    expect(single.status).toBe(201);
    const viaApi = (await call('GET', `/api/orders/${single.body.data.id}`, A())).body;
    expect([viaApi.subtotal, viaApi.tax, viaApi.shippingTotal, viaApi.total]).toEqual([13.02, 1.5, 5, 19.52]);
    expect(await dbQuery('select order_number from sales_order where organization_id = $1 and order_number like $2 order by order_number', [org.organizationId, `${p}-%`])).toEqual([
      { order_number: `${p}-1` },
      { order_number: `${p}-2` },
    ]);

    const before = await ordersOf(org.organizationId);
    const second = await runJson(org, { kind: 'orders', records });
    expect(counts(second)).toEqual({ status: 'SucceededWithErrors', totalRecords: 4, processed: 4, created: 0, updated: 0, unchanged: 2, failed: 2 });
    expect(await ordersOf(org.organizationId)).toEqual(before);

    const third = await runJson(org, {
      kind: 'orders',
      records: [records[0], orderRow({ orderNumber: `${p}-2`, notes: 'changed' }), orderRow({ externalId: `${p}-x1`, orderNumber: `${p}-1`, orderStatus: 'Processing', orderDate: '2024-01-15T00:00:00Z', tax: 0, active: false })],
    });
    expect(counts(third)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 0, updated: 2, unchanged: 1, failed: 0 });
    const after = await dbQuery<{ order_number: string; notes: string | null; total: string; active: boolean }>(
      'select order_number, notes, total::text, active from sales_order where organization_id = $1 and order_number like $2 order by order_number',
      [org.organizationId, `${p}-%`],
    );
    expect(after).toEqual([
      { order_number: `${p}-1`, notes: null, total: '18.0200', active: false },
      { order_number: `${p}-2`, notes: 'changed', total: '19.5200', active: true },
    ]);
  });

  test('when an order without orderNumber is imported from CSV with dotted columns, then it gets the next generated number and a clashing externalId is reported', async () => {
    const own = await createOrg();
    const csv = [
      'externalId,orderNumber,customer.customerNumber,customer.companyName,orderType,poNumber,priceTier,currencyCode,primarySalesRep.repNumber,user.userId,items.0.sku,items.0.productName,items.0.quantity,items.0.price',
      'EXT-1,,C-1,Acme,Direct,PO-1,Retail,USD,R1,u-1,A,Widget,2,4.50',
      'EXT-2,SO-900001,C-1,Acme,Direct,PO-2,Retail,USD,R1,u-1,A,Widget,1,4.50',
      'EXT-1,SO-900001,C-1,Acme,Direct,PO-3,Retail,USD,R1,u-1,A,Widget,1,4.50',
    ].join('\n');
    const job = await runFile(own, { kind: 'orders' }, 'orders.csv', csv);
    expect(counts(job)).toEqual({ status: 'SucceededWithErrors', totalRecords: 3, processed: 3, created: 2, updated: 0, unchanged: 0, failed: 1 });
    expect((await errorsOf(own, job.jobId)).Data).toEqual([{ record: 3, key: 'EXT-1', field: 'orderNumber', message: 'An order with this orderNumber already exists.' }]);
    const rows = await dbQuery('select order_number, external_id, total::text from sales_order where organization_id = $1 order by order_number', [own.organizationId]);
    expect(rows).toEqual([
      { order_number: 'SO-000001', external_id: 'EXT-1', total: '9.0000' },
      { order_number: 'SO-900001', external_id: 'EXT-2', total: '4.5000' },
    ]);
    // The counter moved: the next order of POST /api/orders takes the following number.
    const next = await call('POST', '/api/orders', { base: own.base, token: own.adminToken, body: orderRow() });
    expect(next.body.data.orderNumber).toBe('SO-000002');
  });
});

const invoicesOf = (orgId: string) =>
  dbQuery<Record<string, unknown>>(
    'select id, invoice_number, external_id, status, notes, subtotal::text, discount_amount::text, tax::text, total::text, amount_paid::text, active, items, updated_at from invoice where organization_id = $1 order by invoice_number',
    [orgId],
  );

describe('invoices', () => {
  test('when invoices are imported and then again, then good ones land as Draft with the invoice money rules, bad ones are reported by record and field, and the second run counts them unchanged and writes nothing', async () => {
    const own = await createOrg();
    const records = [
      invoiceBody({ externalId: 'X-1', invoiceNumber: 'IMP-1', tax: 2.5, discount: { type: 'Percentage', value: 10 }, items: [{ sku: 'A', productName: 'A', quantity: 3, price: 33.33 }] }),
      invoiceBody({ invoiceNumber: 'IMP-2', importedInvoiceTotal: 100, importedBalance: 40 }),
      invoiceBody({ externalId: 'X-3', dueDate: '2025-01-01T00:00:00.000Z' }),
      invoiceBody({ externalId: 'X-4', items: [{ sku: 'A', productName: 'A', quantity: 1, price: -1 }] }),
      invoiceBody({ externalId: 'X-5' }),
    ];
    const first = await runJson(own, { kind: 'invoices', records });
    expect(counts(first)).toEqual({ status: 'SucceededWithErrors', totalRecords: 5, processed: 5, created: 3, updated: 0, unchanged: 0, failed: 2 });
    expect((await errorsOf(own, first.jobId)).Data).toEqual([
      { record: 3, key: 'X-3', field: 'dueDate', message: 'dueDate must not be before invoiceDate.' },
      { record: 4, key: 'X-4', field: 'items[0].price', message: 'items[0].price must be at least 0.' },
    ]);
    const rows = await invoicesOf(own.organizationId);
    expect(rows.map((r) => [r.invoice_number, r.external_id, r.status, r.subtotal, r.discount_amount, r.tax, r.total, r.amount_paid, r.active])).toEqual([
      ['IMP-1', 'X-1', 'Draft', '99.9900', '10.0000', '2.5000', '92.4900', '0.0000', true],
      ['IMP-2', null, 'Draft', '20.0000', '0.0000', '0.0000', '100.0000', '60.0000', true],
      ['INV-000001', 'X-5', 'Draft', '20.0000', '0.0000', '0.0000', '20.0000', '0.0000', true],
    ]);
    const view = await call('GET', `/api/invoices/${rows[1].id as string}`, { base: own.base, token: own.adminToken });
    expect([view.body.total, view.body.amountPaid, view.body.balance]).toEqual([100, 60, 40]);

    const second = await runJson(own, { kind: 'invoices', records });
    expect(counts(second)).toEqual({ status: 'SucceededWithErrors', totalRecords: 5, processed: 5, created: 0, updated: 0, unchanged: 3, failed: 2 });
    expect(await invoicesOf(own.organizationId)).toEqual(rows);

    // An issued invoice keeps its amounts (only Draft takes imported fields); active:false soft-deletes the match.
    const issue = await call('POST', `/api/invoices/${rows[2].id as string}/issue`, { base: own.base, token: own.adminToken });
    expect(issue.status).toBe(200);
    const third = await runJson(own, {
      kind: 'invoices',
      records: [{ ...records[0], notes: 'changed' }, { ...records[4], tax: 99 }, { ...records[1], active: false }],
    });
    expect(counts(third)).toEqual({ status: 'Succeeded', totalRecords: 3, processed: 3, created: 0, updated: 2, unchanged: 1, failed: 0 });
    const after = await invoicesOf(own.organizationId);
    expect(after.map((r) => [r.invoice_number, r.status, r.notes, r.total, r.active])).toEqual([
      ['IMP-1', 'Draft', 'changed', '92.4900', true],
      ['IMP-2', 'Draft', null, '100.0000', false],
      ['INV-000001', 'Issued', null, '20.0000', true],
    ]);
  });
});
