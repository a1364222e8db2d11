/**
 * An integrator's program, written only against the types openapi-typescript generates from
 * /openapi.json (./schema.d.ts, written by test/generated-client.test.ts) and openapi-fetch: no
 * casts, no `any`. The test type-checks it with tsc and then runs it against the live stack.
 *
 * Logs in, creates a price tier and a product, pages through products with filters, creates a
 * customer, fills and checks out a cart, and reads the order's invoice.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

export interface Outcome {
  productsSeen: number;
  customer: components['schemas']['Customer'];
  orderNumber: string;
  invoice: components['schemas']['Invoice'];
}

function must<T>(data: T | undefined, error: unknown, what: string): T {
  if (data === undefined) throw new Error(`${what} failed: ${JSON.stringify(error)}`);
  return data;
}

export async function run(baseUrl: string, login: { Email: string; Password: string }, clientIp: string): Promise<Outcome> {
  const headers = { 'x-forwarded-for': clientIp };
  const anonymous = createClient<paths>({ baseUrl, headers });
  const auth = await anonymous.POST('/api/auth/token', { body: login });
  const token = must(auth.data, auth.error, 'login').AccessToken;
  const api = createClient<paths>({ baseUrl, headers: { ...headers, authorization: `Bearer ${token}` } });

  const suffix = Date.now().toString(36);
  const tier = await api.POST('/api/organizations/price-tiers', { body: { Name: `Client-${suffix}`, CurrencyCode: 'USD' } });
  if (tier.error) throw new Error(`price tier: ${tier.error.detail ?? tier.error.title}`);
  for (let i = 0; i < 3; i++) {
    const put = await api.PUT('/api/products', { body: { sku: `GEN-${suffix}-${i}`, name: `Generated ${i}`, category: 'Tools', prices: [{ tier: `Client-${suffix}`, price: 10 + i }] } });
    must(put.data, put.error, 'upsert product');
  }

  // Page through the products whose sku starts with the prefix, two per page.
  let productsSeen = 0;
  let firstSku: string | undefined;
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await api.GET('/api/products', {
      params: { query: { pageNumber, pageSize: 2, sortOn: 'Sku', sortDirection: 'asc', filters: JSON.stringify([{ field: 'sku', operator: 'startswith', value: `GEN-${suffix}` }]) } },
    });
    const body = must(page.data, page.error, 'list products');
    productsSeen += body.data.length;
    firstSku ??= body.data[0]?.sku;
    if (pageNumber >= body.totalPages) break;
  }
  if (!firstSku) throw new Error('no product listed');

  const customerNumber = `GC-${suffix}`;
  const created = await api.PUT('/api/customers', {
    body: {
      customerNumber,
      companyName: 'Generated Client Co',
      companyEmail: `${customerNumber.toLowerCase()}@example.com`,
      pricing: `Client-${suffix}`,
      addresses: [{ addressType: 'Billing', line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US', isPrimary: true }],
    },
  });
  const customer = must(created.data, created.error, 'create customer');

  const cartRes = await api.POST('/api/carts/{customerNumberOrCartId}', {
    params: { path: { customerNumberOrCartId: customerNumber } },
    body: { customerNumber, sku: firstSku, quantity: 2, orderType: 'Standard' },
  });
  const cart = must(cartRes.data, cartRes.error, 'create cart');
  const cartPath = { customerNumber, shoppingCartId: cart.shoppingCartId };
  const shipped = await api.PUT('/api/carts/{customerNumber}/{shoppingCartId}/shipping', {
    params: { path: cartPath },
    body: { customerNumber, shippingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' } },
  });
  must(shipped.data, shipped.error, 'set shipping');

  const checkout = await api.POST('/api/carts/{customerNumber}/{shoppingCartId}/complete-checkout', {
    params: { path: cartPath },
    body: {
      customerNumber,
      channel: 'Web',
      payment: {
        billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
        creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
      },
    },
  });
  // 200 with the order, or 202 PendingApproval when the buyer's spending limit holds it (issue 22): an integrator handles both.
  const placed = must(checkout.data, checkout.error, 'checkout');
  if (!('orderNumber' in placed)) throw new Error(`checkout held for approval ${placed.approvalId}`);
  const { orderNumber } = placed;

  const orders = await api.GET('/api/orders', { params: { query: { filters: JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: orderNumber }]) } } });
  const order = must(orders.data, orders.error, 'find order').data[0];
  if (!order) throw new Error(`order ${orderNumber} not listed`);

  // The checkout workflow issues the invoice in the same run; it is listed by the order's id.
  for (let attempt = 0; attempt < 50; attempt++) {
    const invoices = await api.GET('/api/invoices', { params: { query: { orderId: order.id } } });
    const first = must(invoices.data, invoices.error, 'list invoices').items[0];
    if (first) {
      const read = await api.GET('/api/invoices/{invoiceId}', { params: { path: { invoiceId: first.id } } });
      return { productsSeen, customer, orderNumber, invoice: must(read.data, read.error, 'read invoice') };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no invoice for order ${orderNumber}`);
}
