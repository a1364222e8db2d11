import { call, createOrg, stack, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';

/** SPEC/issue: orders placed through checkout get their invoice, issued and paid by the checkout's payment, carrying the poNumber. */
jest.setTimeout(90_000);

describe('checkout creates the order’s invoice', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });
  const A = () => ({ token: org.adminToken });

  test('when a cart with a PO number is checked out by card, then one Paid invoice carries the poNumber and totals, paid by the same charge, with its PDF and e-mail', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 19.99 });
    const cart = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 3, orderType: 'Standard' } });
    const id = cart.body.shoppingCartId as string;
    const poNumber = uniq('PO-');
    expect((await call('PUT', `/api/carts/${customerNumber}/${id}/po-number`, { ...A(), body: { customerNumber, poNumber } })).status).toBe(200);
    expect(
      (await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' } } })).status,
    ).toBe(200);
    const payment = {
      billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
      creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
    };
    const done = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment } });
    expect(done.status).toBe(200);

    const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
    const order = (await call('GET', `/api/orders?filters=${f}`, A())).body.data[0];
    const list = await call('GET', `/api/invoices?orderId=${order.id}`, A());
    expect(list.status).toBe(200);
    expect(list.body.totalCount).toBe(1);
    const inv = (await call('GET', `/api/invoices/${list.body.items[0].id}`, A())).body;
    expect(inv).toMatchObject({ status: 'Paid', orderId: order.id, orderNumber: done.body.orderNumber, poNumber, total: 59.97, amountPaid: 59.97, balance: 0 });
    expect(inv.items).toEqual([expect.objectContaining({ sku, quantity: 3, price: 19.99 })]);
    expect(inv.payments).toEqual([expect.objectContaining({ amount: 59.97, method: 'Card' })]);

    // One charge only at the provider: the invoice payment is the checkout's charge, not a second one.
    const ledger = (await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=checkout-${id}`)).json()) as { entries: { kind: string }[] };
    expect(ledger.entries.filter((e) => e.kind === 'charge')).toHaveLength(1);

    await waitForMail(`${customerNumber.toLowerCase()}@example.com`, (m) => m.subject.includes(inv.invoiceNumber) || m.text.includes(inv.invoiceNumber));
    const pdf = await fetch(`${stack.urls.api}/api/invoices/${inv.id}/pdf`, { headers: { authorization: `Bearer ${org.adminToken}` } });
    expect(pdf.status).toBe(200);
    expect((await pdf.text()).startsWith('%PDF')).toBe(true);

    // A repeated checkout call returns the same answer and creates no second invoice.
    const again = await call('POST', `/api/carts/${customerNumber}/${id}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment } });
    expect(again.body).toEqual(done.body);
    expect((await call('GET', `/api/invoices?orderId=${order.id}`, A())).body.totalCount).toBe(1);
  });
});
