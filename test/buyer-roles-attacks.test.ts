/**
 * Issue 38 findings 1, 2 and 4, attacked over HTTP against the real stack (docs/approvals.md,
 * docs/security.md "Buyer roles"): buyer roles end with the user's membership of the customer;
 * nobody changes their own role or limits and an Approver grants no more than it has; an approval
 * is for exact lines, so a held cart cannot be edited.
 */
import { call, createOrg, dbQuery, ensureCustomer, expectProblem, mailsFor, stack, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { buyerCart, buyerWorld, checkout, type BuyerWorld } from './support/approval-fixtures';

jest.setTimeout(150_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const as = (token: string) => ({ base: org.base, token });
const admin = () => as(org.adminToken);
const ledger = async (key: string) => ((await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=${key}`)).json()) as { entries: { kind: string }[] }).entries.filter((e) => e.kind === 'charge');
const email = async (userId: string) => (await dbQuery<{ email: string }>(`select email from app_user where id = $1`, [userId]))[0].email;
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}
const asked = (id: string) => until(() => call('GET', `/api/approvals/${id}`, admin()), (r) => r.body.chain?.length > 0);
const buyerRow = async (w: BuyerWorld, userId: string) => (await call('GET', `/api/customers/${w.customerNumber}/buyers`, admin())).body.Data.find((b: any) => b.userId === userId);

/** A held checkout of 200.00 (the buyer's limit is 150.00), asked of approver1 (level 1). */
async function held(w: BuyerWorld): Promise<{ cartId: string; id: string }> {
  const cartId = await buyerCart(org, w, 2);
  const r = await checkout(org, w, cartId);
  expect(r.status).toBe(202);
  const id = r.body.approvalId as string;
  expect((await asked(id)).body.chain[0]).toMatchObject({ type: 'Asked', level: 1, userIds: [w.approver1.userId] });
  return { cartId, id };
}

/** Every way the former Approver could still read or decide the request: all 404 (another customer's data). */
async function expectLockedOut(w: BuyerWorld, id: string, token: string) {
  expectProblem(await call('GET', `/api/approvals/${id}`, as(token)), 404);
  const list = await call('GET', '/api/approvals', as(token));
  expect(list.status).toBe(200);
  expect(list.body.Data.map((a: any) => a.approvalId)).not.toContain(id);
  expect((await call('GET', `/api/approvals?customerNumber=${w.customerNumber}`, as(token))).body.TotalCount).toBe(0);
  expectProblem(await call('POST', `/api/approvals/${id}/approve`, as(token)), 404);
  expectProblem(await call('POST', `/api/approvals/${id}/reject`, { ...as(token), body: { reason: 'still here' } }), 404);
}

describe('finding 1: buyer roles end with the membership of the customer', () => {
  test("an approver re-associated to another customer can no longer see or approve the old customer's requests, and the open request is asked of the next level at once", async () => {
    const w = await buyerWorld(org);
    const { cartId, id } = await held(w);
    const otherCustomer = uniq('BX');
    await ensureCustomer(org, otherCustomer);
    const moved = await call('POST', '/api/organizations/users/associate-customer', { ...admin(), body: { UserId: w.approver1.userId, CustomerNumber: otherCustomer } });
    expect(moved.status).toBe(200);

    await expectLockedOut(w, id, w.approver1.token);
    // The role ended with the association: not listed at the old customer, nothing at the new one.
    expect(await buyerRow(w, w.approver1.userId)).toBeUndefined();
    // The open request moved on to the next level without waiting for the escalation timer, and says why.
    const next = await until(() => call('GET', `/api/approvals/${id}`, admin()), (r) => r.body.chain.some((e: any) => e.type === 'Escalated'));
    expect(next.body.chain.find((e: any) => e.type === 'Escalated')).toMatchObject({ level: 2, userIds: [w.approver2.userId], note: expect.stringContaining('may decide any more') });
    await waitForMail(await email(w.approver2.userId), (m) => m.subject.startsWith('Approval needed'));
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);

    // The remaining Approver decides; a new request of the customer never names the former one.
    expect((await call('POST', `/api/approvals/${id}/approve`, as(w.approver2.token))).body).toMatchObject({ status: 'Approved', decidedBy: w.approver2.userId });
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(1);
    const again = await held({ ...w, approver1: w.approver2 });
    const chain = (await call('GET', `/api/approvals/${again.id}`, admin())).body.chain;
    expect(chain.flatMap((e: any) => e.userIds)).not.toContain(w.approver1.userId);
    expect((await mailsFor(await email(w.approver1.userId))).filter((m) => m.subject.startsWith('Approval needed'))).toHaveLength(1);
  });

  test("an approver whose role the admin removed can no longer see or decide the customer's open request, which goes to the next level", async () => {
    const w = await buyerWorld(org);
    const { id } = await held(w);
    expect((await call('DELETE', `/api/customers/${w.customerNumber}/buyers/${w.approver1.userId}`, admin())).status).toBe(204);
    await expectLockedOut(w, id, w.approver1.token);
    const next = await until(() => call('GET', `/api/approvals/${id}`, admin()), (r) => r.body.chain.some((e: any) => e.type === 'Escalated'));
    expect(next.body.chain.find((e: any) => e.type === 'Escalated')).toMatchObject({ level: 2, userIds: [w.approver2.userId], note: expect.stringContaining('may decide any more') });
  });

  test("a buyer re-associated to another customer no longer sees its own request at the old customer (the old customer's data)", async () => {
    const w = await buyerWorld(org);
    const { id } = await held(w);
    const otherCustomer = uniq('BX');
    await ensureCustomer(org, otherCustomer);
    expect((await call('POST', '/api/organizations/users/associate-customer', { ...admin(), body: { UserId: w.buyer.userId, CustomerNumber: otherCustomer } })).status).toBe(200);
    expectProblem(await call('GET', `/api/approvals/${id}`, as(w.buyer.token)), 404);
    expect(await buyerRow(w, w.buyer.userId)).toBeUndefined();
  });
});

describe('finding 2: nobody lifts their own limits; an Approver grants no more than it has', () => {
  test('an approver cannot lift its own limits or delete its own buyer row', async () => {
    const w = await buyerWorld(org);
    const self = `/api/customers/${w.customerNumber}/buyers/${w.approver1.userId}`;
    const lift = await call('PUT', self, { ...as(w.approver1.token), body: { role: 'Approver', orderLimit: null, monthlyLimit: null } });
    expectProblem(lift, 403);
    expect(lift.body.detail).toContain('own');
    expectProblem(await call('DELETE', self, as(w.approver1.token)), 403);
    // An unlimited Approver and a plain Buyer cannot either.
    expectProblem(await call('PUT', `/api/customers/${w.customerNumber}/buyers/${w.approver2.userId}`, { ...as(w.approver2.token), body: { role: 'Approver', orderLimit: null } }), 403);
    expectProblem(await call('DELETE', `/api/customers/${w.customerNumber}/buyers/${w.buyer.userId}`, as(w.buyer.token)), 403);
    expect(await buyerRow(w, w.approver1.userId)).toMatchObject({ role: 'Approver', orderLimit: 1000, monthlyLimit: null });
    expect(await buyerRow(w, w.buyer.userId)).toMatchObject({ role: 'Buyer', orderLimit: 150 });
  });

  test("an approver cannot grant a buyer more than its own limits, make an Approver, or change another Approver's row", async () => {
    const w = await buyerWorld(org);
    const put = (userId: string, body: Record<string, unknown>, token = w.approver1.token) => call('PUT', `/api/customers/${w.customerNumber}/buyers/${userId}`, { ...as(token), body });
    const above = await put(w.buyer.userId, { role: 'Buyer', orderLimit: 5000 });
    expectProblem(above, 403);
    expect(Object.keys(above.body.errors)).toEqual(['orderLimit']);
    const unlimited = await put(w.buyer.userId, { role: 'Buyer', orderLimit: null, monthlyLimit: null });
    expectProblem(unlimited, 403);
    expect(Object.keys(unlimited.body.errors)).toEqual(['orderLimit']);
    const promote = await put(w.buyer.userId, { role: 'Approver', orderLimit: 10 });
    expectProblem(promote, 403);
    expect(Object.keys(promote.body.errors)).toEqual(['role']);
    // Removing a buyer's row would lift its limits: more than an Approver with a limit has.
    expectProblem(await call('DELETE', `/api/customers/${w.customerNumber}/buyers/${w.buyer.userId}`, as(w.approver1.token)), 403);
    // Another Approver's row is the admins' (even for an unlimited Approver).
    expectProblem(await put(w.approver1.userId, { role: 'Approver', orderLimit: 1 }, w.approver2.token), 403);
    expectProblem(await call('DELETE', `/api/customers/${w.customerNumber}/buyers/${w.approver1.userId}`, as(w.approver2.token)), 403);
    expect(await buyerRow(w, w.buyer.userId)).toMatchObject({ role: 'Buyer', orderLimit: 150 });
    expect(await buyerRow(w, w.approver1.userId)).toMatchObject({ role: 'Approver', orderLimit: 1000 });

    // Within its own limits an Approver manages buyers; the admin changes Approvers.
    expect((await put(w.buyer.userId, { role: 'Buyer', orderLimit: 1000, monthlyLimit: 3000 })).body).toMatchObject({ orderLimit: 1000, monthlyLimit: 3000 });
    expect((await put(w.approver1.userId, { role: 'Approver', orderLimit: 2000 }, org.adminToken)).status).toBe(200);
    expect((await call('DELETE', `/api/customers/${w.customerNumber}/buyers/${w.buyer.userId}`, as(w.approver2.token))).status).toBe(204);
  });
});

describe('finding 4: an approval is for exact lines', () => {
  test('a buyer cannot swap the lines of a cart held for approval for others of the same total; the approval orders the approved lines', async () => {
    const w = await buyerWorld(org);
    const other = uniq('BSKU-');
    expect((await call('PUT', '/api/products', { ...admin(), body: { sku: other, name: `Product ${other}`, prices: [{ tier: 'Retail', price: 100, atQuantity: 1 }] } })).status).toBe(201);
    const { cartId, id } = await held(w);
    const path = `/api/carts/${w.customerNumber}/${cartId}`;
    const body = { customerNumber: w.customerNumber };
    const edits = [
      call('PUT', `${path}/items/${w.sku}`, { ...as(w.buyer.token), body: { ...body, quantity: 1 } }),
      call('POST', `${path}/items`, { ...as(w.buyer.token), body: { ...body, sku: other, quantity: 1 } }),
      call('DELETE', `${path}/items/${w.sku}`, as(w.buyer.token)),
      call('PUT', `${path}/po-number`, { ...as(w.buyer.token), body: { ...body, poNumber: 'PO-1' } }),
      // Not only the buyer: nobody edits a held cart.
      call('POST', `${path}/items`, { ...admin(), body: { ...body, sku: other, quantity: 1 } }),
    ];
    for (const r of await Promise.all(edits)) {
      expectProblem(r, 409);
      expect(r.body.detail).toContain(id);
    }
    const cart = await call('GET', `/api/carts/${cartId}`, as(w.buyer.token));
    expect(cart.body.items.map((i: any) => [i.sku, i.quantity])).toEqual([[w.sku, 2]]);

    const approved = await call('POST', `/api/approvals/${id}/approve`, as(w.approver1.token));
    expect(approved.body).toMatchObject({ status: 'Approved', orderNumber: expect.any(String) });
    const [order] = await dbQuery<{ items: { sku: string; quantity: number }[] }>(
      `select coalesce((select json_agg(json_build_object('sku', i.sku, 'quantity', i.quantity)) from order_item i where i.order_id = o.id), '[]') as items
         from sales_order o where o.organization_id = $1 and o.order_number = $2`,
      [org.organizationId, approved.body.orderNumber],
    );
    expect(order.items).toEqual([{ sku: w.sku, quantity: 2 }]);
  });

  test('once the request is rejected, the buyer edits the cart again and a new approval is asked for the new lines', async () => {
    const w = await buyerWorld(org);
    const { cartId, id } = await held(w);
    expect((await call('POST', `/api/approvals/${id}/reject`, { ...as(w.approver1.token), body: { reason: 'Too many' } })).status).toBe(200);
    const edit = await call('PUT', `/api/carts/${w.customerNumber}/${cartId}/items/${w.sku}`, { ...as(w.buyer.token), body: { customerNumber: w.customerNumber, quantity: 3 } });
    expect(edit.status).toBe(200);
    const again = await checkout(org, w, cartId);
    expect(again.status).toBe(202);
    expect(again.body.approvalId).not.toBe(id);
    expect((await asked(again.body.approvalId)).body).toMatchObject({ total: 300, lines: [expect.objectContaining({ sku: w.sku, quantity: 3 })] });
  });
});
