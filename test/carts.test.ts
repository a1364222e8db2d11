import { call, createOrg, uniq, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';

let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
});

const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US', phone: '555-0100', addressType: 'Shipping', isPrimary: true };

async function newCart(opts: Parameters<typeof customerWithProduct>[1] = {}, quantity = 1) {
  const { customerNumber, sku } = await customerWithProduct(org, opts);
  const res = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity, orderType: 'Standard' } });
  expect(res.status).toBe(201);
  return { customerNumber, sku, cart: res.body };
}

describe('cart create', () => {
  test('when a cart is created with a first item, then the cart has SPEC fields and the tier price', async () => {
    const { customerNumber, sku, cart } = await newCart({ price: 12.5 }, 2);
    expect(Object.keys(cart).sort()).toEqual(
      ['companyName', 'createdAt', 'currencyCode', 'customerNumber', 'items', 'orderType', 'organizationId', 'poNumber', 'pricingTier', 'shippingAddress', 'shoppingCartId', 'specialInstructions', 'status', 'subtotal', 'updatedAt'].sort(),
    );
    expect(cart).toMatchObject({ customerNumber, organizationId: org.organizationId, status: 'PENDING', pricingTier: 'Retail', currencyCode: 'USD', orderType: 'Standard', subtotal: 25 });
    expect(cart.items).toEqual([{ itemId: expect.any(String), sku, name: `Product ${sku}`, quantity: 2, unitPrice: 12.5, lineTotal: 25 }]);
  });

  test('when the alternative form {organizationId, orderType, userId} is used, then an empty cart is created', async () => {
    const { customerNumber } = await customerWithProduct(org);
    const res = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { organizationId: org.organizationId, orderType: 'Quote', userId: org.adminUserId } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ customerNumber, orderType: 'Quote', items: [], subtotal: 0, status: 'PENDING' });
  });

  test('when a second cart is created for the customer, then 400', async () => {
    const { customerNumber, sku } = await newCart();
    const res = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/active cart/);
  });

  test('when 10 carts are created concurrently, then exactly one is 201 and the others 400', async () => {
    const { customerNumber, sku } = await customerWithProduct(org);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 1, orderType: 'Standard' } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    const list = await call('GET', `/api/carts/customer/${customerNumber}`, A());
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
  });

  test('when required fields are missing or the body customerNumber differs, then 400 names them', async () => {
    const { customerNumber } = await customerWithProduct(org);
    const res = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { sku: 'X', quantity: 1 } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['customerNumber', 'orderType']);
    const mismatch = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber: 'OTHER', sku: 'X', quantity: 1, orderType: 'Standard' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors.customerNumber).toBeDefined();
  });

  test('when the quantity breaks minimumOrderQuantity or quantityIncrement, then 400 with a quantity field error', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { minimumOrderQuantity: 5, quantityIncrement: 5 });
    const low = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
    expect(low.status).toBe(400);
    expect(low.body.errors.quantity[0]).toMatch(/minimum order quantity of 5/);
    const step = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 7, orderType: 'Standard' } });
    expect(step.status).toBe(400);
    expect(step.body.errors.quantity[0]).toMatch(/multiple of 5/);
  });

  test('when the SKU is unknown, then 400 with an sku field error', async () => {
    const { customerNumber } = await customerWithProduct(org);
    const res = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku: 'NOPE', quantity: 1, orderType: 'Standard' } });
    expect(res.status).toBe(400);
    expect(res.body.errors.sku).toBeDefined();
  });
});

describe('cart items and fields', () => {
  test('when items are added, updated and removed, then quantities and quantity-break prices follow', async () => {
    const { customerNumber, sku } = await customerWithProduct(org);
    await call('PUT', '/api/products', { ...A(), body: { sku, prices: [{ tier: 'Retail', price: 10, atQuantity: 1 }, { tier: 'Retail', price: 8, atQuantity: 10 }] } });
    const created = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 4, orderType: 'Standard' } });
    const id = created.body.shoppingCartId;
    const add = await call('POST', `/api/carts/${customerNumber}/${id}/items`, { ...A(), body: { customerNumber, sku, quantity: 6 } });
    expect(add.status).toBe(200);
    expect(add.body.items).toEqual([expect.objectContaining({ sku, quantity: 10, unitPrice: 8, lineTotal: 80 })]);
    const set = await call('PUT', `/api/carts/${customerNumber}/${id}/items/${sku}`, { ...A(), body: { customerNumber, quantity: 3 } });
    expect(set.status).toBe(200);
    expect(set.body.items[0]).toMatchObject({ quantity: 3, unitPrice: 10, lineTotal: 30 });
    expect(set.body.subtotal).toBe(30);
    const bad = await call('PUT', `/api/carts/${customerNumber}/${id}/items/${sku}`, { ...A(), body: { customerNumber, quantity: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.quantity).toBeDefined();
    const del = await call('DELETE', `/api/carts/${customerNumber}/${id}/items/${sku}`, A());
    expect(del.status).toBe(200);
    expect(del.body.items).toEqual([]);
    const again = await call('DELETE', `/api/carts/${customerNumber}/${id}/items/${sku}`, A());
    expect(again.status).toBe(404);
    const add2 = await call('POST', `/api/carts/${customerNumber}/${id}/items`, { ...A(), body: { customerNumber, sku, quantity: 1 } });
    const zero = await call('PUT', `/api/carts/${customerNumber}/${id}/items/${sku}`, { ...A(), body: { customerNumber, quantity: 0 } });
    expect(add2.body.items).toHaveLength(1);
    expect(zero.body.items).toEqual([]);
  });

  test('when cart fields, shipping and PO number are set, then GET shows them', async () => {
    const { customerNumber, cart } = await newCart();
    const id = cart.shoppingCartId;
    const upd = await call('PUT', `/api/carts/${customerNumber}/${id}`, { ...A(), body: { cart: { specialInstructions: 'Leave at dock 4', orderType: 'Order' } } });
    expect(upd.status).toBe(200);
    const ship = await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
    expect(ship.status).toBe(200);
    const po = await call('PUT', `/api/carts/${customerNumber}/${id}/po-number`, { ...A(), body: { customerNumber, poNumber: 'PO-77' } });
    expect(po.status).toBe(200);
    const got = await call('GET', `/api/carts/${id}`, A());
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ specialInstructions: 'Leave at dock 4', orderType: 'Order', poNumber: 'PO-77', shippingAddress: { ...address, line2: null } });
    const badShip = await call('PUT', `/api/carts/${customerNumber}/${id}/shipping`, { ...A(), body: { customerNumber, shippingAddress: { line1: '' } } });
    expect(badShip.status).toBe(400);
    expect(Object.keys(badShip.body.errors)).toEqual(expect.arrayContaining(['shippingAddress.line1', 'shippingAddress.city', 'shippingAddress.country']));
    const noPo = await call('PUT', `/api/carts/${customerNumber}/${id}/po-number`, { ...A(), body: { customerNumber } });
    expect(noPo.status).toBe(400);
    expect(noPo.body.errors.poNumber).toBeDefined();
  });

  test('when a cart of another organization or a wrong customer path is used, then 404', async () => {
    const { customerNumber, cart } = await newCart();
    const id = cart.shoppingCartId;
    expect((await call('GET', `/api/carts/${id}`, { base: other.base, token: other.adminToken })).status).toBe(404);
    expect((await call('PUT', `/api/carts/WRONG/${id}/po-number`, { ...A(), body: { customerNumber: 'WRONG', poNumber: 'x' } })).status).toBe(404);
    expect((await call('GET', `/api/carts/not-a-uuid`, A())).status).toBe(404);
    expect((await call('GET', `/api/carts/customer/${customerNumber}`, { base: other.base, token: other.adminToken })).status).toBe(404);
  });
});

describe('cart list', () => {
  test('when listing carts as Admin, then paged, sorted by CompanyName and filterable', async () => {
    const a = await newCart();
    await newCart();
    const res = await call('GET', `/api/carts?pageSize=1&sortOn=CustomerNumber&sortDirection=desc`, A());
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['currentPage', 'data', 'totalPages', 'totalRecords']);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.totalRecords).toBeGreaterThanOrEqual(2);
    const f = encodeURIComponent(JSON.stringify([{ field: 'CustomerNumber', operator: 'equals', value: a.customerNumber }]));
    const filtered = await call('GET', `/api/carts?filters=${f}`, A());
    expect(filtered.body.data.map((c: any) => c.shoppingCartId)).toEqual([a.cart.shoppingCartId]);
    const status = encodeURIComponent(JSON.stringify([{ field: 'Status', operator: 'equals', value: 'CLOSED' }]));
    expect((await call('GET', `/api/carts?filters=${status}`, A())).body.totalRecords).toBe(0);
    expect((await call('GET', `/api/carts?sortOn=Nope`, A())).status).toBe(400);
  });
});

describe('cart visibility', () => {
  test('when a customer user reads carts, then only its own cart is visible', async () => {
    const mine = await newCart();
    const theirs = await newCart();
    const email = `${uniq('cu')}@example.com`;
    const u = await call('POST', '/api/users', { ...A(), body: { FirstName: 'C', LastName: 'U', Email: email, Password: 'member password 1' } });
    const link = await call('POST', '/api/organizations/users/associate-customer', { ...A(), body: { UserId: u.body.UserId, CustomerNumber: mine.customerNumber } });
    expect(link.status).toBe(200);
    const login = await call('POST', '/api/auth/token', { base: org.base, body: { Email: email, Password: 'member password 1' } });
    const token = login.body.AccessToken;
    expect((await call('GET', `/api/carts/${mine.cart.shoppingCartId}`, { base: org.base, token })).status).toBe(200);
    expect((await call('GET', `/api/carts/${theirs.cart.shoppingCartId}`, { base: org.base, token })).status).toBe(404);
    expect((await call('GET', `/api/carts`, { base: org.base, token })).status).toBe(403);
  });
});
