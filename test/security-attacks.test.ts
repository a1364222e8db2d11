/**
 * Attacks on orders, payments and invoices (issue 9 items 2-5), each reproduced over HTTP
 * against the real stack and named after the attack. Each test creates its own records.
 */
import { associateCustomer, call, createMemberUser, createOrg, customerToken, dbQuery, ensureCustomer, repToken, saveCard, stack, uniq, type OrgFixture } from './support/helpers';
import { customerWithProduct, ensurePriceTier, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(60_000);

let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
});
const admin = () => ({ base: org.base, token: org.adminToken });
const ledger = async (query: string) => ((await (await fetch(`${stack.urls.provider}/ledger?${query}`)).json()) as { entries: { kind: string }[] }).entries;
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };

/** A customer of `org` assigned to `repNumber`, in tier Retail. */
async function customerOfRep(o: OrgFixture, repNumber: string | null): Promise<string> {
  await ensurePriceTier(o);
  const customerNumber = uniq('C');
  const res = await call('PUT', '/api/customers', {
    base: o.base,
    token: o.adminToken,
    body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', repNumber },
  });
  expect([200, 201]).toContain(res.status);
  return customerNumber;
}

/** A forged order: one line at 0.01, status Complete, tax and shipping charges, someone else as rep and creator. */
const forgedOrder = (customerNumber: string, sku: string) => ({
  customer: { customerNumber, companyName: 'Forged Co', shippingAddress: { address1: '9 Elm St', city: 'Shelbyville', country: 'US' } },
  orderType: 'Standard',
  poNumber: 'PO-ATTACK',
  priceTier: 'Wholesale',
  currencyCode: 'EUR',
  primarySalesRep: { repNumber: 'R-FORGED', fullName: 'Forged Rep' },
  takenBySalesRep: { repNumber: 'R-FORGED' },
  items: [{ sku, productName: 'Cheap thing', quantity: 3, price: 0.01 }],
  user: { userId: 'someone-else', userType: 'Admin' },
  orderStatus: 'Complete',
  tax: 99,
  shippingDetails: { method: 'Air', total: 50 },
});

describe('orders posted by Customer and SalesRep tokens', () => {
  test('when a customer posts an order at 0.01 with status Complete, then it is priced from the catalog and Pending', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 12.5 });
    const token = await customerToken(org, { CustomerNumber: customerNumber });
    const res = await call('POST', '/api/orders', { base: org.base, token, body: forgedOrder(customerNumber, sku) });
    expect(res.status).toBe(201);
    const order = (await call('GET', `/api/orders/${res.body.data.id}`, admin())).body;
    expect(order.orderStatus).toBe('Pending');
    expect(order.items).toEqual([{ sku, productName: `Product ${sku}`, quantity: 3, price: 12.5, priceFormatted: '$12.50', subTotal: 37.5, subTotalFormatted: '$37.50', shippedQuantity: 0 }]);
    expect([order.subtotal, order.tax, order.shippingTotal, order.total]).toEqual([37.5, 0, 0, 37.5]);
    expect([order.priceTier, order.currencyCode]).toEqual(['Retail', 'USD']);
    expect(order.primarySalesRep).toBeNull();
    expect(order.takenBySalesRep).toBeNull();
    expect(order.customer.companyName).toBe(`Company ${customerNumber}`);
    expect(order.customer.shippingAddress).toEqual({ address1: '9 Elm St', city: 'Shelbyville', country: 'US' });
  });

  test('when a sales rep posts an order for its customer at its own prices, then it is priced from the catalog, Pending, and the rep is the taker', async () => {
    const repNumber = uniq('R');
    const token = await repToken(org, repNumber);
    const customerNumber = await customerOfRep(org, repNumber);
    const { sku } = await customerWithProduct(org, { price: 4 });
    const res = await call('POST', '/api/orders', { base: org.base, token, body: forgedOrder(customerNumber, sku) });
    expect(res.status).toBe(201);
    const order = (await call('GET', `/api/orders/${res.body.data.id}`, admin())).body;
    expect(order.orderStatus).toBe('Pending');
    expect(order.total).toBe(12);
    expect(order.primarySalesRep.repNumber).toBe(repNumber);
    expect(order.takenBySalesRep.repNumber).toBe(repNumber);
  });

  test("when a customer posts an order for another customer, then 403 and no order is created", async () => {
    const { customerNumber: mine } = await customerWithProduct(org);
    const { customerNumber: theirs, sku } = await customerWithProduct(org);
    const token = await customerToken(org, { CustomerNumber: mine });
    expect((await call('POST', '/api/orders', { base: org.base, token, body: forgedOrder(theirs, sku) })).status).toBe(403);
    const f = encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: theirs }]));
    expect((await call('GET', `/api/orders?filters=${f}`, admin())).body.totalRecords).toBe(0);
  });

  test('when an admin posts an order with its own prices and status, then they are kept (imports)', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 12.5 });
    const res = await call('POST', '/api/orders', { ...admin(), body: forgedOrder(customerNumber, sku) });
    expect(res.status).toBe(201);
    const order = (await call('GET', `/api/orders/${res.body.data.id}`, admin())).body;
    expect([order.orderStatus, order.items[0].price, order.total]).toEqual(['Complete', 0.01, 149.03]);
  });
});

describe('paymentProfileId must be a saved card of the same customer', () => {
  async function readyCart(customerNumber: string, sku: string): Promise<string> {
    const c = await call('POST', `/api/carts/${customerNumber}`, { ...admin(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
    expect(c.status).toBe(201);
    const id = c.body.shoppingCartId as string;
    expect((await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...admin(), body: { customerNumber, shippingAddress: address } })).status).toBe(200);
    return id;
  }

  test("when a customer pays with another customer's paymentProfileId, then 404 and nothing is charged", async () => {
    const { customerNumber: mine, sku } = await customerWithProduct(org, { price: 20 });
    const victim = await customerOfRep(org, null);
    const victimCard = await saveCard(org, victim);
    const cartId = await readyCart(mine, sku);
    const token = await customerToken(org, { CustomerNumber: mine });
    const res = await call('POST', `/api/carts/${mine}/${cartId}/complete-checkout`, { base: org.base, token, body: { customerNumber: mine, channel: 'Web', paymentProfileId: victimCard } });
    expect(res.status).toBe(404);
    expect(await ledger(`paymentProfileId=${encodeURIComponent(victimCard)}`)).toEqual([]);
    expect((await call('GET', `/api/carts/${cartId}`, admin())).body.status).toBe('PENDING');
  });

  test("when a checkout names a paymentProfileId saved in another organization, then 404 and nothing is charged", async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 20 });
    await ensureCustomer(other, customerNumber);
    const foreignCard = await saveCard(other, customerNumber);
    const cartId = await readyCart(customerNumber, sku);
    const res = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...admin(), body: { customerNumber, channel: 'Web', paymentProfileId: foreignCard } });
    expect(res.status).toBe(404);
    expect(await ledger(`paymentProfileId=${encodeURIComponent(foreignCard)}`)).toEqual([]);
  });

  test("when an invoice is paid with another customer's paymentProfileId, then 404 and the invoice stays Issued", async () => {
    const body = invoiceBody();
    const inv = await call('POST', '/api/invoices', { ...admin(), body });
    expect(inv.status).toBe(201);
    expect((await call('POST', `/api/invoices/${inv.body.id}/issue`, admin())).status).toBe(200);
    const victim = await customerOfRep(org, null);
    const victimCard = await saveCard(org, victim);
    const pay = await call('POST', `/api/invoices/${inv.body.id}/payments`, {
      ...admin(),
      body: { amount: 20, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: victimCard },
    });
    expect(pay.status).toBe(404);
    expect(await ledger(`paymentProfileId=${encodeURIComponent(victimCard)}`)).toEqual([]);
    const after = (await call('GET', `/api/invoices/${inv.body.id}`, admin())).body;
    expect([after.status, after.payments.length]).toEqual(['Issued', 0]);
  });

  test('when a deactivated saved card is used for an invoice payment, then 404', async () => {
    const body = invoiceBody();
    const inv = await call('POST', '/api/invoices', { ...admin(), body });
    await call('POST', `/api/invoices/${inv.body.id}/issue`, admin());
    const customerNumber = body.customer.customerNumber as string;
    await ensureCustomer(org, customerNumber);
    const card = await saveCard(org, customerNumber);
    await dbQuery('update payment_method set active = false where payment_profile_id = $1', [card]);
    const pay = await call('POST', `/api/invoices/${inv.body.id}/payments`, {
      ...admin(),
      body: { amount: 20, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: card },
    });
    expect(pay.status).toBe(404);
  });
});

describe('sales reps and invoices', () => {
  test('when a rep reads an invoice of an unassigned customer, then 404', async () => {
    const repNumber = uniq('R');
    const token = await repToken(org, repNumber);
    const mine = await customerOfRep(org, repNumber);
    const theirs = await customerOfRep(org, uniq('R'));
    const own = await call('POST', '/api/invoices', { ...admin(), body: invoiceBody({ customer: { customerNumber: mine, companyName: 'Mine' } }) });
    const foreign = await call('POST', '/api/invoices', { ...admin(), body: invoiceBody({ customer: { customerNumber: theirs, companyName: 'Theirs' } }) });
    expect([own.status, foreign.status]).toEqual([201, 201]);
    const rep = { base: org.base, token };
    expect((await call('GET', `/api/invoices/${own.body.id}`, rep)).status).toBe(200);
    expect((await call('GET', `/api/invoices/${foreign.body.id}`, rep)).status).toBe(404);
    expect((await call('GET', `/api/invoices/${foreign.body.id}/pdf`, rep)).status).toBe(404);
    const list = await call('GET', '/api/invoices?pageSize=100', rep);
    expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([own.body.id]);
    expect((await call('GET', `/api/invoices?customerId=${theirs}`, rep)).body.totalCount).toBe(0);
  });

  test('when a rep issues, edits, pays, voids or cancels an invoice of an unassigned customer, then 404 and nothing changes', async () => {
    const token = await repToken(org, uniq('R'));
    const theirs = await customerOfRep(org, uniq('R'));
    const foreign = await call('POST', '/api/invoices', { ...admin(), body: invoiceBody({ customer: { customerNumber: theirs, companyName: 'Theirs' } }) });
    const id = foreign.body.id as string;
    const rep = { base: org.base, token };
    expect((await call('POST', `/api/invoices/${id}/issue`, rep)).status).toBe(404);
    expect((await call('PUT', `/api/invoices/${id}`, { ...rep, body: { notes: 'mine now' } })).status).toBe(404);
    expect((await call('POST', `/api/invoices/${id}/discount`, { ...rep, body: { type: 'Percentage', value: 50 } })).status).toBe(404);
    expect((await call('POST', `/api/invoices/${id}/void`, rep)).status).toBe(404);
    expect((await call('POST', `/api/invoices/${id}/cancel`, rep)).status).toBe(404);
    expect((await call('POST', `/api/invoices/${id}/issue`, admin())).status).toBe(200);
    const pay = await call('POST', `/api/invoices/${id}/payments`, { ...rep, body: { amount: 5, currencyCode: 'USD', method: 'Check', paymentDate: '2026-02-01T00:00:00.000Z' } });
    expect(pay.status).toBe(404);
    const after = (await call('GET', `/api/invoices/${id}`, admin())).body;
    expect([after.status, after.notes, after.discount, after.payments.length]).toEqual(['Issued', null, null, 0]);
  });

  test('when a rep creates an invoice for an unassigned customer, then 403 and none is created', async () => {
    const token = await repToken(org, uniq('R'));
    const theirs = await customerOfRep(org, uniq('R'));
    const res = await call('POST', '/api/invoices', { base: org.base, token, body: invoiceBody({ customer: { customerNumber: theirs, companyName: 'Theirs' } }) });
    expect(res.status).toBe(403);
    expect((await call('GET', `/api/invoices?customerId=${theirs}`, admin())).body.totalCount).toBe(0);
    const bulk = await call('POST', '/api/invoices/bulk', { base: org.base, token, body: { invoices: [invoiceBody({ customer: { customerNumber: theirs, companyName: 'Theirs' } })] } });
    expect(bulk.status).toBe(403);
  });
});

describe('claims that change are re-checked per request', () => {
  /** Polls until `check` is true or the credential cache (5 s in tests) has certainly expired. */
  async function within(seconds: number, check: () => Promise<boolean>): Promise<boolean> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      if (await check()) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  test("when a user is re-associated to another customer, then within seconds the old customer's cart and orders are 404", async () => {
    const { customerNumber: oldCustomer, sku } = await customerWithProduct(org, { price: 3 });
    const { customerNumber: newCustomer } = await customerWithProduct(org, { price: 3 });
    const cart = await call('POST', `/api/carts/${oldCustomer}`, { ...admin(), body: { customerNumber: oldCustomer, sku, quantity: 1, orderType: 'Standard' } });
    const order = await call('POST', '/api/orders', { ...admin(), body: forgedOrder(oldCustomer, sku) });
    const user = await createMemberUser(org);
    await associateCustomer(org, user.userId, oldCustomer);
    const login = await call('POST', '/api/auth/token', { base: org.base, body: { Email: user.email, Password: 'member password 1' } });
    expect(login.body.AccessToken).toBeTruthy();
    const me = { base: org.base, token: login.body.AccessToken as string };
    expect((await call('GET', `/api/carts/${cart.body.shoppingCartId}`, me)).status).toBe(200);
    expect((await call('GET', `/api/orders/${order.body.data.id}`, me)).status).toBe(200);

    await associateCustomer(org, user.userId, newCustomer);
    expect(await within(6, async () => (await call('GET', `/api/carts/${cart.body.shoppingCartId}`, me)).status === 404)).toBe(true);
    expect((await call('GET', `/api/orders/${order.body.data.id}`, me)).status).toBe(404);
    expect((await call('GET', '/api/orders', me)).body.totalRecords).toBe(0);
    expect((await call('GET', `/api/customers/${oldCustomer}`, me)).status).toBe(404);
    expect((await call('GET', `/api/customers/${newCustomer}`, me)).status).toBe(200);
  });

  test("when a rep's number is changed, then within seconds the old number's customers and invoices are 404", async () => {
    const oldNumber = uniq('R');
    const token = await repToken(org, oldNumber);
    const customerNumber = await customerOfRep(org, oldNumber);
    const inv = await call('POST', '/api/invoices', { ...admin(), body: invoiceBody({ customer: { customerNumber, companyName: 'Mine' } }) });
    const rep = { base: org.base, token };
    expect((await call('GET', `/api/invoices/${inv.body.id}`, rep)).status).toBe(200);
    const reps = await call('GET', `/api/organizations/salesreps?pageSize=100`, admin());
    const row = (reps.body as { repNumber: string; organizationSalesRepId: string }[]).find((r) => r.repNumber === oldNumber);
    const moved = await call('PATCH', '/api/organizations/salesreps', { ...admin(), body: { organizationSalesRepId: row?.organizationSalesRepId, repNumber: uniq('R') } });
    expect(moved.status).toBe(200);
    expect(await within(6, async () => (await call('GET', `/api/invoices/${inv.body.id}`, rep)).status === 404)).toBe(true);
    expect((await call('GET', `/api/customers/${customerNumber}`, rep)).status).toBe(404);
  });
});
