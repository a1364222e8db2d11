import { call, createOrg, uniq, type OrgFixture } from './support/helpers';

let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
});
const A = () => ({ base: org.base, token: org.adminToken });

const orderBody = (over: Record<string, unknown> = {}) => ({
  customer: {
    customerNumber: 'C-100',
    companyName: 'Acme',
    companyEmail: 'ap@acme.example',
    billingAddress: { address1: '1 Main', city: 'Springfield', stateProvince: 'IL', zipPostalCode: '62701', country: 'US' },
  },
  orderType: 'Direct',
  poNumber: uniq('PO'),
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

describe('orders', () => {
  test('when an order is created, then 201 {data:{id, orderNumber}, links} and GET shows amounts with Formatted twins', async () => {
    const res = await call('POST', '/api/orders', { ...A(), body: orderBody() });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { id: expect.any(String), orderNumber: expect.stringMatching(/^SO-\d{6}$/) }, links: [{ rel: 'self', href: `/api/orders/${res.body.data.id}` }] });
    const got = await call('GET', `/api/orders/${res.body.data.id}`, A());
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: res.body.data.id,
      organizationId: org.organizationId,
      orderNumber: res.body.data.orderNumber,
      orderStatus: 'Pending',
      subtotal: 13.02,
      subtotalFormatted: '$13.02',
      discountAmount: 0,
      discountAmountFormatted: '$0.00',
      tax: 1.5,
      taxFormatted: '$1.50',
      shippingTotal: 5,
      shippingTotalFormatted: '$5.00',
      total: 19.52,
      totalFormatted: '$19.52',
      shippingDetails: { method: 'Ground', total: 5 },
    });
    expect(got.body.items[0]).toEqual({ sku: 'A', productName: 'Widget', quantity: 3, price: 1.01, priceFormatted: '$1.01', subTotal: 3.02, subTotalFormatted: '$3.02', shippedQuantity: 0 });
    expect((await call('GET', `/api/orders/${res.body.data.id}`, { base: other.base, token: other.adminToken })).status).toBe(404);
  });

  test('when required fields are missing, then 400 names each of them', async () => {
    const res = await call('POST', '/api/orders', { ...A(), body: { customer: {}, items: [] } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(
      expect.arrayContaining(['customer.customerNumber', 'customer.companyName', 'orderType', 'poNumber', 'priceTier', 'currencyCode', 'primarySalesRep', 'items', 'user']),
    );
  });

  test('when 10 orders are created concurrently, then their numbers are distinct and consecutive', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/api/orders', { ...A(), body: orderBody() })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const nums = results.map((r) => Number(r.body.data.orderNumber.slice(3))).sort((a, b) => a - b);
    expect(new Set(nums).size).toBe(10);
    expect(nums[9] - nums[0]).toBe(9);
  });

  test('when status moves follow the rules, then 200; other moves are 400', async () => {
    const { body } = await call('POST', '/api/orders', { ...A(), body: orderBody() });
    const put = (orderStatus: string) => call('PUT', `/api/orders/${body.data.id}`, { ...A(), body: { orderStatus } });
    expect((await put('Shipped')).status).toBe(400);
    expect((await put('Processing')).body.orderStatus).toBe('Processing');
    const back = await put('Pending');
    expect(back.status).toBe(400);
    expect(back.body.errors.orderStatus[0]).toBe('An order cannot move from Processing to Pending.');
    expect((await put('Shipped')).status).toBe(200);
    expect((await put('Cancelled')).status).toBe(400);
    expect((await put('Complete')).body.orderStatus).toBe('Complete');
    expect((await put('Bogus')).status).toBe(400);
    const notes = await call('PUT', `/api/orders/${body.data.id}`, { ...A(), body: { notes: 'n1', poNumber: 'PO-NEW' } });
    expect(notes.body).toMatchObject({ notes: 'n1', poNumber: 'PO-NEW' });
  });

  test('when shipping is updated, then the totals follow; after shipping it is 400', async () => {
    const { body } = await call('POST', '/api/orders', { ...A(), body: orderBody() });
    const res = await call('PUT', `/api/orders/${body.data.id}/shipping`, { ...A(), body: { method: 'Air', total: 20 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ shippingDetails: { method: 'Air', total: 20 }, shippingTotal: 20, total: 34.52 });
    await call('PUT', `/api/orders/${body.data.id}`, { ...A(), body: { orderStatus: 'Cancelled' } });
    expect((await call('PUT', `/api/orders/${body.data.id}/shipping`, { ...A(), body: { total: 1 } })).status).toBe(400);
    expect((await call('PUT', `/api/orders/${body.data.id}/shipping`, { ...A(), body: { total: -1 } })).status).toBe(400);
  });

  test('when bulk imports repeat externalId or orderNumber, then the same order is updated; active:false soft-deletes', async () => {
    const ext = uniq('ext');
    const num = uniq('IMP-');
    const first = await call('POST', '/api/orders/bulk', { ...A(), body: { orders: [orderBody({ externalId: ext, orderNumber: num, orderDate: '2024-01-15T00:00:00Z' })] } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual([{ data: { id: expect.any(String), orderNumber: num }, links: [{ rel: 'self', href: `/api/orders/${first.body[0].data.id}` }] }]);
    const again = await call('POST', '/api/orders/bulk', { ...A(), body: { orders: [orderBody({ externalId: ext, notes: 'updated' }), orderBody({ orderNumber: num, poNumber: 'PO-BY-NUMBER' })] } });
    expect(again.status).toBe(201);
    expect(again.body.map((r: any) => r.data.id)).toEqual([first.body[0].data.id, first.body[0].data.id]);
    const got = await call('GET', `/api/orders/${first.body[0].data.id}`, A());
    expect(got.body).toMatchObject({ orderNumber: num, notes: null, poNumber: 'PO-BY-NUMBER', orderDate: '2024-01-15T00:00:00.000Z' });
    const del = await call('POST', '/api/orders/bulk', { ...A(), body: { orders: [orderBody({ externalId: ext, active: false })] } });
    expect(del.status).toBe(201);
    const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: num }]));
    expect((await call('GET', `/api/orders?filters=${f}`, A())).body.totalRecords).toBe(0);
  });

  test('when searching orders, then filters on customerNumber, orderStatus, poNumber and orderDate range apply', async () => {
    const cn = uniq('CN');
    const po = uniq('PO');
    await call('POST', '/api/orders', { ...A(), body: orderBody({ customer: { customerNumber: cn, companyName: 'X' }, poNumber: po }) });
    await call('POST', '/api/orders/bulk', { ...A(), body: { orders: [orderBody({ customer: { customerNumber: cn, companyName: 'X' }, orderDate: '2020-06-01T00:00:00Z' })] } });
    const q = (filters: unknown[]) => call('GET', `/api/orders?filters=${encodeURIComponent(JSON.stringify(filters))}`, A());
    const byCustomer = await q([{ field: 'customerNumber', operator: 'equals', value: cn }]);
    expect(byCustomer.status).toBe(200);
    expect(Object.keys(byCustomer.body).sort()).toEqual(['currentPage', 'data', 'totalPages', 'totalRecords']);
    expect(byCustomer.body.totalRecords).toBe(2);
    expect((await q([{ field: 'poNumber', operator: 'equals', value: po }])).body.totalRecords).toBe(1);
    const range = await q([
      { field: 'customerNumber', operator: 'equals', value: cn },
      { field: 'orderDate', operator: 'gte', value: '2020-01-01T00:00:00Z' },
      { field: 'orderDate', operator: 'lte', value: '2020-12-31T00:00:00Z' },
    ]);
    expect(range.body.totalRecords).toBe(1);
    expect((await q([{ field: 'orderStatus', operator: 'equals', value: 'Pending' }, { field: 'customerNumber', operator: 'equals', value: cn }])).body.totalRecords).toBe(2);
    expect((await q([{ field: 'nope', operator: 'equals', value: 'x' }])).status).toBe(400);
    expect((await call('GET', '/api/orders', { base: other.base, token: other.adminToken })).body.totalRecords).toBe(0);
  });
});
