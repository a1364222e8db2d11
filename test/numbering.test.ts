/**
 * One number allocator (src/services/numbering.ts) over HTTP against the real stack: once an
 * organization has stored numbers of the generated format (SO-000001, INV-000001) by bulk or by
 * an import job, creating an order, checking out a cart and issuing an invoice still get fresh
 * numbers. (Before, the order counter handed out SO-000001 again and every POST /api/orders
 * answered 409 until it walked past the imported numbers.)
 */
import { call, createOrg, dbQuery, saveCard, type OrgFixture } from './support/helpers';
import { runJson } from './support/import-helpers';
import { customerWithProduct, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(180_000);

const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const orderBody = (over: Record<string, unknown> = {}) => ({
  customer: { customerNumber: 'C-100', companyName: 'Acme', billingAddress: { address1: '1 Main', city: 'Springfield', country: 'US' } },
  orderType: 'Direct',
  poNumber: 'PO-1',
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: 'R1', firstName: 'Sam', lastName: 'Rep' },
  items: [{ sku: 'A', productName: 'Widget', quantity: 1, price: 10 }],
  user: { userId: 'u-1', userType: 'Admin' },
  ...over,
});

const numbersOf = async (orgId: string) => ({
  orders: (await dbQuery<{ n: string }>('select order_number as n from sales_order where organization_id = $1 order by 1', [orgId])).map((r) => r.n),
  invoices: (await dbQuery<{ n: string }>('select invoice_number as n from invoice where organization_id = $1 order by 1', [orgId])).map((r) => r.n),
});

/** Creates an order, checks out a cart (order + its invoice) and creates and issues an invoice; every step must succeed. */
async function takeBusiness(org: OrgFixture) {
  const A = { base: org.base, token: org.adminToken };
  const o1 = await call('POST', '/api/orders', { ...A, body: orderBody() });
  expect(o1.status).toBe(201);
  const o2 = await call('POST', '/api/orders', { ...A, body: orderBody() });
  expect(o2.status).toBe(201);

  const { customerNumber, sku } = await customerWithProduct(org, { price: 12 });
  const cart = await call('POST', `/api/carts/${customerNumber}`, { ...A, body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
  await call('PUT', `/api/carts/${customerNumber}/${cart.body.shoppingCartId}/shipping`, { ...A, body: { customerNumber, shippingAddress: address } });
  const paymentProfileId = await saveCard(org, customerNumber);
  const co = await call('POST', `/api/carts/${customerNumber}/${cart.body.shoppingCartId}/complete-checkout`, { ...A, body: { customerNumber, channel: 'Web', paymentProfileId } });
  expect(co.status).toBe(200);

  const inv = await call('POST', '/api/invoices', { ...A, body: invoiceBody() });
  expect(inv.status).toBe(201);
  const issued = await call('POST', `/api/invoices/${inv.body.id}/issue`, A);
  expect(issued.status).toBe(200);
  return { orderNumbers: [o1.body.data.orderNumber, o2.body.data.orderNumber, co.body.orderNumber], invoiceNumber: inv.body.invoiceNumber as string };
}

describe('one number allocator', () => {
  test('when SO-000001, SO-000003 and INV-000001 are stored by the bulk endpoints, then a new order, a checkout and a new invoice all succeed with the free numbers around them', async () => {
    const org = await createOrg();
    const A = { base: org.base, token: org.adminToken };
    const bulk = await call('POST', '/api/orders/bulk', { ...A, body: { orders: [orderBody({ orderNumber: 'SO-000001' }), orderBody({ orderNumber: 'SO-000003' })] } });
    expect(bulk.status).toBe(201);
    const inv = await call('POST', '/api/invoices/bulk', { ...A, body: { invoices: [invoiceBody({ invoiceNumber: 'INV-000001' })] } });
    expect(inv.status).toBe(201);

    const got = await takeBusiness(org);
    expect(got.orderNumbers).toEqual(['SO-000002', 'SO-000004', 'SO-000005']);
    const stored = await numbersOf(org.organizationId);
    expect(stored.orders).toEqual(['SO-000001', 'SO-000002', 'SO-000003', 'SO-000004', 'SO-000005']);
    // INV-000001 imported; the checkout's invoice and the created one follow it.
    expect(stored.invoices).toEqual(['INV-000001', 'INV-000002', 'INV-000003']);
    expect(['INV-000002', 'INV-000003']).toContain(got.invoiceNumber);
  });

  test('when SO-000001 and INV-000001 are stored by import jobs, then a new order, a checkout and a new invoice all succeed with fresh numbers', async () => {
    const org = await createOrg();
    const orders = await runJson(org, { kind: 'orders', records: [orderBody({ orderNumber: 'SO-000001' }), orderBody({ orderNumber: 'SO-000002' })] });
    expect(orders.status).toBe('Succeeded');
    const invoices = await runJson(org, { kind: 'invoices', records: [invoiceBody({ invoiceNumber: 'INV-000001' })] });
    expect(invoices.status).toBe('Succeeded');

    const got = await takeBusiness(org);
    expect(got.orderNumbers).toEqual(['SO-000003', 'SO-000004', 'SO-000005']);
    const stored = await numbersOf(org.organizationId);
    expect(stored.orders).toEqual(['SO-000001', 'SO-000002', 'SO-000003', 'SO-000004', 'SO-000005']);
    expect(stored.invoices).toEqual(['INV-000001', 'INV-000002', 'INV-000003']);
  });

  test('when numbers were stored before the counter knew of them (counter still at 0), then the next order skips past them instead of answering 409', async () => {
    const org = await createOrg();
    const A = { base: org.base, token: org.adminToken };
    await call('POST', '/api/orders/bulk', { ...A, body: { orders: [orderBody({ orderNumber: 'SO-000001' }), orderBody({ orderNumber: 'SO-000002' })] } });
    // As a database of the previous version leaves it: imported numbers, a counter that never moved.
    await dbQuery('update order_number_counter set last_value = 0 where organization_id = $1', [org.organizationId]);
    const res = await call('POST', '/api/orders', { ...A, body: orderBody() });
    expect(res.status).toBe(201);
    expect(res.body.data.orderNumber).toBe('SO-000003');
  });

  test('when an import uses a number of another format (SO-1, SO-0000001), then the counter is not moved by it', async () => {
    const org = await createOrg();
    const A = { base: org.base, token: org.adminToken };
    await call('POST', '/api/orders/bulk', { ...A, body: { orders: [orderBody({ orderNumber: 'SO-1' }), orderBody({ orderNumber: 'SO-0000009' })] } });
    const res = await call('POST', '/api/orders', { ...A, body: orderBody() });
    expect(res.status).toBe(201);
    expect(res.body.data.orderNumber).toBe('SO-000001');
  });
});
