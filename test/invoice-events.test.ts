/**
 * Issue 38 finding 12: webhooks and invoices that mislead an integrator. A card checkout's invoice is
 * announced like every other (`invoice.issued`, then `invoice.paid`), its terms say it was paid up
 * front, and an invoice naming an order by id carries that order's number.
 */
import { call, createOrg, uniq, type OrgFixture } from './support/helpers';
import { ensurePriceTier, invoiceBody } from './support/matrix-fixtures';
import { startReceiver, type Receiver } from './support/webhook-receiver';

jest.setTimeout(120_000);
let rx: Receiver;
let org: OrgFixture;
const A = () => ({ base: org.base, token: org.adminToken });

beforeAll(async () => {
  rx = await startReceiver();
  org = await createOrg();
});
afterAll(async () => rx.close());

/** A customer whose default terms are NET30 and a product it can buy. */
async function net30CustomerWithProduct(price: number) {
  const pricing = await ensurePriceTier(org);
  const customerNumber = uniq('C');
  const c = await call('PUT', '/api/customers', {
    ...A(),
    body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing, terms: 'NET30' },
  });
  expect([200, 201]).toContain(c.status);
  const sku = uniq('SKU-');
  const p = await call('PUT', '/api/products', { ...A(), body: { sku, name: `Product ${sku}`, minimumOrderQuantity: 1, quantityIncrement: 1, prices: [{ tier: 'Retail', price, atQuantity: 1 }] } });
  expect(p.status).toBe(201);
  return { customerNumber, sku };
}

/** Checks out a one-line cart by card; answers the order (id, orderNumber). */
async function cardCheckout(customerNumber: string, sku: string): Promise<{ id: string; orderNumber: string }> {
  const cart = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
  expect(cart.status).toBe(201);
  const id = cart.body.shoppingCartId as string;
  const shippingAddress = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
  expect((await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress } })).status).toBe(200);
  const payment = {
    billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
    creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
  };
  const done = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment } });
  expect(done.status).toBe(200);
  const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
  const order = (await call('GET', `/api/orders?filters=${f}`, A())).body.data[0];
  return { id: order.id, orderNumber: done.body.orderNumber };
}

describe('an integrator that books invoices from webhooks', () => {
  it('a card checkout invoice is announced with invoice.issued, then invoice.paid, once each', async () => {
    const path = `/${uniq('inv')}`;
    const sub = await call('POST', '/api/webhooks', { ...A(), body: { url: rx.url(path), events: ['invoice.issued', 'invoice.paid'] } });
    expect(sub.status).toBe(201);
    const { customerNumber, sku } = await net30CustomerWithProduct(12.5);
    const order = await cardCheckout(customerNumber, sku);
    const inv = (await call('GET', `/api/invoices?orderId=${order.id}`, A())).body.items[0];
    const ofInvoice = (t: string) => rx.received(path).filter((r) => r.json?.type === t && r.json?.data?.invoiceId === inv.id);
    await rx.waitFor(path, () => ofInvoice('invoice.issued').length > 0 && ofInvoice('invoice.paid').length > 0, 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    const [issued, paid] = [ofInvoice('invoice.issued'), ofInvoice('invoice.paid')];
    expect(issued).toHaveLength(1);
    expect(paid).toHaveLength(1);
    expect(issued[0].json.data).toMatchObject({ invoiceNumber: inv.invoiceNumber, orderId: order.id, orderNumber: order.orderNumber, customerNumber, total: 25 });
    // The events' timestamps order them (deliveries run side by side, so arrival order is not the contract).
    expect(Date.parse(issued[0].json.timestamp)).toBeLessThan(Date.parse(paid[0].json.timestamp));
  });

  it('an invoice issued and then paid is announced issued once and paid once', async () => {
    const path = `/${uniq('inv')}`;
    expect((await call('POST', '/api/webhooks', { ...A(), body: { url: rx.url(path), events: ['invoice.issued', 'invoice.paid'] } })).status).toBe(201);
    const inv = await call('POST', '/api/invoices', { ...A(), body: invoiceBody() });
    expect(inv.status).toBe(201);
    expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, A())).status).toBe(200);
    const pay = await call('POST', `/api/invoices/${inv.body.id}/payments`, { ...A(), body: { amount: 20, currencyCode: 'USD', method: 'Wire', paymentDate: '2026-01-15T00:00:00.000Z' } });
    expect(pay.status).toBe(200);
    expect(pay.body.status).toBe('Paid');
    const ofInvoice = (t: string) => rx.received(path).filter((r) => r.json?.type === t && r.json?.data?.invoiceId === inv.body.id);
    await rx.waitFor(path, () => ofInvoice('invoice.paid').length > 0, 60_000);
    await new Promise((r) => setTimeout(r, 3000));
    expect(ofInvoice('invoice.issued')).toHaveLength(1);
    expect(ofInvoice('invoice.paid')).toHaveLength(1);
  });

  it('a card-paid checkout invoice of a NET30 customer says terms Prepaid, not NET30 due the same day', async () => {
    const { customerNumber, sku } = await net30CustomerWithProduct(8);
    const order = await cardCheckout(customerNumber, sku);
    const inv = (await call('GET', `/api/invoices?orderId=${order.id}`, A())).body.items[0];
    expect(inv).toMatchObject({ status: 'Paid', terms: 'Prepaid' });
    expect(inv.dueDate).toBe(inv.invoiceDate);
  });

  it('an invoice posted with an orderId and no orderNumber carries the order number', async () => {
    const { customerNumber, sku } = await net30CustomerWithProduct(5);
    const order = await cardCheckout(customerNumber, sku);
    const body = invoiceBody({ orderId: order.id });
    delete body.orderNumber;
    const inv = await call('POST', '/api/invoices', { ...A(), body });
    expect(inv.status).toBe(201);
    expect(inv.body.orderNumber).toBe(order.orderNumber);
    // The bulk upsert takes it the same way.
    const bulkBody = invoiceBody({ orderId: order.id, externalId: uniq('X-') });
    delete bulkBody.orderNumber;
    const bulk = await call('POST', '/api/invoices/bulk', { ...A(), body: { invoices: [bulkBody] } });
    expect(bulk.status).toBe(201);
    expect((await call('GET', `/api/invoices/${bulk.body[0].data.id}`, A())).body.orderNumber).toBe(order.orderNumber);
    // An orderId naming no order of the organization leaves orderNumber empty, as before.
    const none = await call('POST', '/api/invoices', { ...A(), body: { ...body, orderId: '3f0a4c1e-9b1d-4c55-8a9e-0b6f0f2d1a11' } });
    expect(none.status).toBe(201);
    expect(none.body.orderNumber).toBeNull();
  });
});
