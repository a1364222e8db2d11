/**
 * Issue 38, the gaps left in buyer approvals, attacked over HTTP against the real stack
 * (docs/approvals.md, docs/security.md "Buyer roles" and "Admission of orders"): a buyer withdraws
 * its own request (and nobody else's); concurrent orders cannot together exceed a monthly limit;
 * every change of who may decide re-asks the open requests; an Approver approves only within its own
 * limit; nobody enters an order as PendingApproval by hand. Each test is named after the attack.
 */
import { call, createOrg, dbQuery, ensureCustomer, expectProblem, stack, uniq, type OrgFixture } from './support/helpers';
import { buyerCart, buyerWorld, checkout, setRole, type BuyerWorld } from './support/approval-fixtures';
import { runJson } from './support/import-helpers';

jest.setTimeout(180_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const as = (token: string) => ({ base: org.base, token });
const admin = () => as(org.adminToken);
const ledger = async (key: string) => ((await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=${key}`)).json()) as { entries: { kind: string }[] }).entries.filter((e) => e.kind === 'charge');
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}
const approval = (id: string, token = org.adminToken) => call('GET', `/api/approvals/${id}`, as(token));
const asked = (id: string) => until(() => approval(id), (r) => r.body.chain?.some((e: any) => e.type === 'Asked'));
const events = async (type: string, approvalId: string) =>
  dbQuery<{ n: string }>(`select count(*)::text as n from webhook_event where organization_id = $1 and type = $2 and data->>'approvalId' = $3`, [org.organizationId, type, approvalId]);

/** A held checkout of 200.00 (the buyer's limit is 150.00), asked of approver1 (level 1). */
async function held(w: BuyerWorld, quantity = 2) {
  const cartId = await buyerCart(org, w, quantity);
  const res = await checkout(org, w, cartId);
  expect(res.status).toBe(202);
  const id = res.body.approvalId as string;
  await asked(id);
  return { cartId, id };
}

/** An order body as POST /api/orders takes it, for the world's customer. */
const orderBody = (w: BuyerWorld, sku: string, quantity: number, extra: Record<string, unknown> = {}) => ({
  customer: { customerNumber: w.customerNumber, companyName: 'Buyer Co' },
  orderType: 'Standard',
  poNumber: uniq('PO'),
  priceTier: 'Retail',
  currencyCode: 'USD',
  primarySalesRep: { repNumber: 'R1' },
  items: [{ sku, productName: 'x', quantity, price: 30 }],
  user: { userId: w.buyer.userId, userType: 'Customer' },
  ...extra,
});

describe('withdraw', () => {
  test('a buyer withdraws its own held checkout: the request is Withdrawn, the cart can be edited again, and checking out asks anew; nothing is charged', async () => {
    const w = await buyerWorld(org);
    const { cartId, id } = await held(w);
    // Locked while it waits.
    const edit = () => call('POST', `/api/carts/${w.customerNumber}/${cartId}/items`, { ...as(w.buyer.token), body: { customerNumber: w.customerNumber, sku: w.sku, quantity: 1 } });
    expectProblem(await edit(), 409);
    const res = await call('POST', `/api/approvals/${id}/withdraw`, { ...as(w.buyer.token), body: { reason: 'Ordered the wrong size' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'Withdrawn', decidedBy: w.buyer.userId, decisionReason: 'Ordered the wrong size' });
    expect(res.body.chain.at(-1)).toMatchObject({ type: 'Withdrawn', by: w.buyer.userId });
    expect((await events('approval.withdrawn', id))[0].n).toBe('1');
    // The workflow's wait ended: it is no longer running, and nobody can decide the request any more.
    expectProblem(await call('POST', `/api/approvals/${id}/approve`, admin()), 409);
    expectProblem(await call('POST', `/api/approvals/${id}/withdraw`, { ...as(w.buyer.token), body: {} }), 409);
    // The cart is the buyer's again.
    expect((await edit()).status).toBe(200);
    const again = await checkout(org, w, cartId);
    expect(again.status).toBe(202);
    expect(again.body.approvalId).not.toBe(id);
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);
  });

  test("nobody withdraws someone else's request: an Approver of the customer gets 403, another customer's buyer 404, and the request stays Pending", async () => {
    const w = await buyerWorld(org);
    const other = await buyerWorld(org);
    const { id } = await held(w);
    expectProblem(await call('POST', `/api/approvals/${id}/withdraw`, { ...as(w.approver1.token), body: {} }), 403);
    expectProblem(await call('POST', `/api/approvals/${id}/withdraw`, { ...as(other.buyer.token), body: {} }), 404);
    expect((await approval(id)).body.status).toBe('Pending');
    // An admin may withdraw it (the buyer is told).
    const res = await call('POST', `/api/approvals/${id}/withdraw`, { ...admin(), body: { reason: 'Duplicate' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Withdrawn');
  });

  test('withdrawing a posted order waiting for approval cancels the order', async () => {
    const w = await buyerWorld(org, { orderLimit: 150 });
    const res = await call('POST', '/api/orders', { ...as(w.buyer.token), body: orderBody(w, w.sku, 2) });
    expect(res.status).toBe(202);
    const out = await call('POST', `/api/approvals/${res.body.approvalId}/withdraw`, { ...as(w.buyer.token), body: {} });
    expect(out.status).toBe(200);
    expect(out.body.status).toBe('Withdrawn');
    expect((await call('GET', `/api/orders/${res.body.data.id}`, admin())).body.orderStatus).toBe('Cancelled');
  });
});

describe('monthly limit under concurrency', () => {
  async function thirtyWorld() {
    const w = await buyerWorld(org, { orderLimit: null, monthlyLimit: 100 });
    const sku = uniq('M30-');
    const p = await call('PUT', '/api/products', { ...admin(), body: { sku, name: `Product ${sku}`, prices: [{ tier: 'Retail', price: 30, atQuantity: 1 }] } });
    expect(p.status).toBe(201);
    return { w, sku };
  }

  test('a buyer with a 100.00 monthly limit firing five concurrent 30.00 orders gets exactly three placed; the others wait for approval', async () => {
    const { w, sku } = await thirtyWorld();
    const results = await Promise.all(Array.from({ length: 5 }, () => call('POST', '/api/orders', { ...as(w.buyer.token), body: orderBody(w, sku, 1) })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 202, 202]);
    const placed = await dbQuery<{ n: string }>(
      `select count(*)::text as n from sales_order where organization_id = $1 and customer_number = $2 and order_status = 'Pending'`,
      [org.organizationId, w.customerNumber],
    );
    expect(placed[0].n).toBe('3');
    const buyers = await call('GET', `/api/customers/${w.customerNumber}/buyers`, admin());
    expect(buyers.body.Data.find((b: any) => b.userId === w.buyer.userId).spentThisMonth).toBe(90);
  });

  test('a checkout running at the same time as four posted orders counts against the monthly limit before its order exists: exactly three admitted', async () => {
    const { w, sku } = await thirtyWorld();
    const opts = as(w.buyer.token);
    const c = await call('POST', `/api/carts/${w.customerNumber}`, { ...opts, body: { customerNumber: w.customerNumber, sku, quantity: 1, orderType: 'Standard' } });
    expect(c.status).toBe(201);
    const cartId = c.body.shoppingCartId as string;
    const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
    expect((await call('PUT', `/api/carts/${w.customerNumber}/${cartId}/shipping`, { ...opts, body: { customerNumber: w.customerNumber, shippingAddress: address } })).status).toBe(200);
    const results = await Promise.all([
      checkout(org, w, cartId),
      ...Array.from({ length: 4 }, () => call('POST', '/api/orders', { ...opts, body: orderBody(w, sku, 1) })),
    ]);
    const admitted = results.filter((r) => r.status === 200 || r.status === 201);
    const waiting = results.filter((r) => r.status === 202);
    expect([admitted.length, waiting.length]).toEqual([3, 2]);
    const orders = await until(
      () => dbQuery<{ n: string }>(`select count(*)::text as n from sales_order where organization_id = $1 and customer_number = $2 and order_status = 'Pending'`, [org.organizationId, w.customerNumber]),
      (r) => r[0].n === '3',
      30_000,
    );
    expect(orders[0].n).toBe('3');
  });
});

describe('approvers re-asked on every path', () => {
  test('an admin turning the only asked Approver into a plain Buyer re-asks the open request of the next level at once', async () => {
    const w = await buyerWorld(org);
    const { id } = await held(w);
    await setRole(org, w.customerNumber, w.approver1.userId, { role: 'Buyer', orderLimit: 10 });
    const next = await until(() => approval(id), (r) => r.body.chain.some((e: any) => e.type === 'Escalated'), 20_000);
    expect(next.body.chain.find((e: any) => e.type === 'Escalated')).toMatchObject({ level: 2, userIds: [w.approver2.userId], note: expect.stringContaining('may decide any more') });
    // A plain Buyer who did not request it no longer sees the customer's requests.
    expectProblem(await call('POST', `/api/approvals/${id}/approve`, as(w.approver1.token)), 404);
  });

  test('an import of user-customer links moving the asked Approver to another customer re-asks the open request of the next level', async () => {
    const w = await buyerWorld(org);
    const elsewhere = uniq('BX');
    await ensureCustomer(org, elsewhere);
    const { id } = await held(w);
    const job = await runJson(org, { kind: 'user-customer-links', records: [{ UserId: w.approver1.userId, CustomerNumber: elsewhere }] });
    expect(job.status).toBe('Succeeded');
    const next = await until(() => approval(id), (r) => r.body.chain.some((e: any) => e.type === 'Escalated'), 20_000);
    expect(next.body.chain.find((e: any) => e.type === 'Escalated')).toMatchObject({ level: 2, userIds: [w.approver2.userId], note: expect.stringContaining('may decide any more') });
    expectProblem(await call('POST', `/api/approvals/${id}/approve`, as(w.approver1.token)), 404);
  });
});

describe('an Approver approves only within its own limit', () => {
  test('an Approver with a 1,000.00 limit cannot approve a 1,100.00 checkout (403 naming orderLimit, nothing charged); an admin can', async () => {
    const w = await buyerWorld(org);
    const { cartId, id } = await held(w, 11);
    const refused = await call('POST', `/api/approvals/${id}/approve`, as(w.approver1.token));
    expectProblem(refused, 403);
    expect(Object.keys(refused.body.errors)).toEqual(['orderLimit']);
    expect(refused.body.detail).toMatch(/orderLimit is 1000\.00 USD/);
    expect((await approval(id)).body.status).toBe('Pending');
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);
    // Rejecting spends nothing: not limited. The admin, unlimited, approves another such request.
    const ok = await call('POST', `/api/approvals/${id}/approve`, admin());
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('Approved');
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(1);
  });

  test('an Approver with a 1,000.00 limit may still reject a 1,100.00 checkout', async () => {
    const w = await buyerWorld(org);
    const { id } = await held(w, 11);
    const res = await call('POST', `/api/approvals/${id}/reject`, { ...as(w.approver1.token), body: { reason: 'Too much' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Rejected');
  });
});

describe('no PendingApproval by hand', () => {
  const adminOrder = (customerNumber: string, extra: Record<string, unknown> = {}) => ({
    customer: { customerNumber, companyName: 'Co' },
    orderType: 'Standard',
    poNumber: uniq('PO'),
    priceTier: 'Retail',
    currencyCode: 'USD',
    primarySalesRep: { repNumber: 'R1' },
    items: [{ sku: 'X-1', productName: 'x', quantity: 1, price: 10 }],
    user: { userId: null, userType: 'Admin' },
    ...extra,
  });

  test('an admin posting, bulk-posting or importing an order as PendingApproval is refused naming orderStatus', async () => {
    const customerNumber = uniq('PA');
    await ensureCustomer(org, customerNumber);
    const one = await call('POST', '/api/orders', { ...admin(), body: adminOrder(customerNumber, { orderStatus: 'PendingApproval' }) });
    expectProblem(one, 400);
    expect(Object.keys(one.body.errors)).toEqual(['orderStatus']);
    const bulk = await call('POST', '/api/orders/bulk', { ...admin(), body: { orders: [adminOrder(customerNumber, { orderStatus: 'pendingapproval' })] } });
    expectProblem(bulk, 400);
    expect(JSON.stringify(bulk.body.errors)).toContain('orderStatus');
    const job = await runJson(org, { kind: 'orders', records: [adminOrder(customerNumber, { orderStatus: 'PendingApproval', orderNumber: uniq('IMP') })] });
    expect(job.failed).toBe(1);
    const n = await dbQuery<{ n: string }>(`select count(*)::text as n from sales_order where organization_id = $1 and customer_number = $2`, [org.organizationId, customerNumber]);
    expect(n[0].n).toBe('0');
    // An update cannot put an order there either.
    const created = await call('POST', '/api/orders', { ...admin(), body: adminOrder(customerNumber) });
    expect(created.status).toBe(201);
    const put = await call('PUT', `/api/orders/${created.body.data.id}`, { ...admin(), body: { orderStatus: 'PendingApproval' } });
    expectProblem(put, 400);
    expect(Object.keys(put.body.errors)).toEqual(['orderStatus']);
  });

  test('an import cannot release an order waiting for approval by re-stating it as Pending', async () => {
    const w = await buyerWorld(org, { orderLimit: 150 });
    const res = await call('POST', '/api/orders', { ...as(w.buyer.token), body: orderBody(w, w.sku, 2) });
    expect(res.status).toBe(202);
    const job = await runJson(org, { kind: 'orders', records: [{ ...orderBody(w, w.sku, 2), orderNumber: res.body.data.orderNumber, orderStatus: 'Pending' }] });
    expect(job.failed).toBe(1);
    expect((await call('GET', `/api/orders/${res.body.data.id}`, admin())).body.orderStatus).toBe('PendingApproval');
  });
});
