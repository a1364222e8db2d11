/**
 * Issue 16 finding 3: a reused customer number must not inherit a deleted customer's money.
 * Cards, carts, orders and invoices belong to the customer record (its id), so deleting a
 * customer deactivates its cards and closes its open carts, and a customer re-created with the
 * same number (by a sales rep or an admin) starts empty: nothing listed, nothing chargeable.
 */
import { call, customerToken, dbQuery, repToken, saveCard, stack, uniq, type OrgFixture, createOrg } from './support/helpers';
import { customerWithProduct, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(120_000);

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const admin = () => ({ base: org.base, token: org.adminToken });
const as = (token: string) => ({ base: org.base, token });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const ledger = async (paymentProfileId: string) =>
  ((await (await fetch(`${stack.urls.provider}/ledger?paymentProfileId=${encodeURIComponent(paymentProfileId)}`)).json()) as { entries: { kind: string }[] }).entries;
const byNumber = (customerNumber: string) => encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: customerNumber }]));
const customerBody = (customerNumber: string, repNumber?: string) => ({
  customerNumber,
  companyName: `Company ${customerNumber}`,
  companyEmail: `${customerNumber.toLowerCase()}@example.com`,
  pricing: 'Retail',
  ...(repNumber ? { repNumber } : {}),
});

/** What a customer's number shows to one caller: its cards, open carts, orders and invoices. */
async function holdings(customerNumber: string, token: string) {
  const [cards, carts, orders, invoices] = await Promise.all([
    call('GET', `/api/payments/${customerNumber}/profiles`, as(token)),
    call('GET', `/api/carts/customer/${customerNumber}`, as(token)),
    call('GET', `/api/orders?filters=${byNumber(customerNumber)}`, as(token)),
    call('GET', `/api/invoices?customerId=${encodeURIComponent(customerNumber)}`, as(token)),
  ]);
  for (const r of [cards, carts, orders, invoices]) expect(r.status).toBe(200);
  return { cards: cards.body.length, carts: carts.body.length, orders: orders.body.totalRecords, invoices: invoices.body.totalCount };
}

/** A customer of rep `repNumber` with a saved card, an open cart, an order and an issued invoice. */
async function customerWithMoney(repNumber: string) {
  const { customerNumber, sku } = await customerWithProduct(org, { price: 30 });
  expect((await call('PUT', '/api/customers', { ...admin(), body: customerBody(customerNumber, repNumber) })).status).toBe(200);
  const paymentProfileId = await saveCard(org, customerNumber);
  const cart = await call('POST', `/api/carts/${customerNumber}`, { ...admin(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
  expect(cart.status).toBe(201);
  const order = await call('POST', '/api/orders', {
    ...admin(),
    body: {
      customer: { customerNumber, companyName: `Company ${customerNumber}` },
      orderType: 'Direct',
      poNumber: 'PO-1',
      priceTier: 'Retail',
      currencyCode: 'USD',
      primarySalesRep: { repNumber },
      items: [{ sku, productName: 'Thing', quantity: 1, price: 30 }],
      user: { userId: 'u1', userType: 'Admin' },
    },
  });
  expect(order.status).toBe(201);
  const inv = await call('POST', '/api/invoices', { ...admin(), body: invoiceBody({ customer: { customerNumber, companyName: `Company ${customerNumber}` } }) });
  expect(inv.status).toBe(201);
  expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, admin())).status).toBe(200);
  return { customerNumber, sku, paymentProfileId, cartId: cart.body.shoppingCartId as string, orderId: order.body.data.id as string, invoiceId: inv.body.id as string };
}

describe('a re-created customer number does not inherit the deleted customer', () => {
  test.each([['a sales rep'], ['an admin']])(
    'when a customer with a saved card, an open cart, an order and an invoice is deleted and %s re-creates its number, then the new customer has none of them and the old card cannot be charged',
    async (who) => {
      const repNumber = uniq('R');
      const rep = await repToken(org, repNumber);
      const old = await customerWithMoney(repNumber);
      const { customerNumber, paymentProfileId } = old;
      // Before: the number shows everything (so the checks below can fail).
      expect(await holdings(customerNumber, org.adminToken)).toEqual({ cards: 1, carts: 1, orders: 1, invoices: 1 });
      expect(await holdings(customerNumber, rep)).toEqual({ cards: 1, carts: 1, orders: 1, invoices: 1 });

      expect((await call('DELETE', `/api/customers/${customerNumber}`, admin())).status).toBe(204);
      // Deleting deactivates the card and closes the open cart; the order and invoice stay as history.
      expect(await dbQuery('select active, is_default from payment_method where payment_profile_id = $1', [paymentProfileId])).toEqual([{ active: false, is_default: false }]);
      expect((await call('GET', `/api/carts/${old.cartId}`, admin())).body.status).toBe('CLOSED');
      expect((await call('GET', `/api/orders/${old.orderId}`, admin())).status).toBe(200);

      const recreate = await call('PUT', '/api/customers', who === 'a sales rep' ? { ...as(rep), body: customerBody(customerNumber) } : { ...admin(), body: customerBody(customerNumber, repNumber) });
      expect(recreate.status).toBe(201);
      expect(recreate.body).toMatchObject({ customerNumber, repNumber });
      const buyer = await customerToken(org, { CustomerNumber: customerNumber });

      for (const token of [org.adminToken, rep, buyer]) {
        expect(await holdings(customerNumber, token)).toEqual({ cards: 0, carts: 0, orders: 0, invoices: 0 });
        expect((await call('POST', `/api/carts/${customerNumber}/${old.cartId}/items`, { ...as(token), body: { customerNumber, sku: old.sku, quantity: 2 } })).status).toBe(404);
      }
      for (const token of [rep, buyer]) {
        expect((await call('GET', `/api/orders/${old.orderId}`, as(token))).status).toBe(404);
        expect((await call('GET', `/api/invoices/${old.invoiceId}`, as(token))).status).toBe(404);
        expect((await call('GET', `/api/carts/${old.cartId}`, as(token))).status).toBe(404);
      }

      // The old paymentProfileId is not a card of the new customer: checkout and invoice payment are 404, nothing charged.
      const cart = await call('POST', `/api/carts/${customerNumber}`, { ...as(buyer), body: { customerNumber, sku: old.sku, quantity: 1, orderType: 'Standard' } });
      expect(cart.status).toBe(201);
      expect(cart.body.items).toHaveLength(1);
      const cartId = cart.body.shoppingCartId as string;
      expect((await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...as(buyer), body: { customerNumber, shippingAddress: address } })).status).toBe(200);
      for (const token of [buyer, rep]) {
        const checkout = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...as(token), body: { customerNumber, channel: 'Web', paymentProfileId } });
        expect(checkout.status).toBe(404);
      }
      expect((await call('GET', `/api/carts/${cartId}`, admin())).body.status).toBe('PENDING');
      const inv = await call('POST', '/api/invoices', { ...admin(), body: invoiceBody({ customer: { customerNumber, companyName: `Company ${customerNumber}` } }) });
      expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, admin())).status).toBe(200);
      const pay = await call('POST', `/api/invoices/${inv.body.id}/payments`, {
        ...admin(),
        body: { amount: 20, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId },
      });
      expect(pay.status).toBe(404);
      expect(await ledger(paymentProfileId)).toEqual([]);
      // The new customer's own card works as before.
      const fresh = await saveCard(org, customerNumber);
      expect((await call('GET', `/api/payments/${customerNumber}/profiles`, as(buyer))).body.map((m: { paymentProfileId: string }) => m.paymentProfileId)).toEqual([fresh]);
    },
  );
});
