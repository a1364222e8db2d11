/**
 * Buyer approvals over HTTP against the real stack (docs/approvals.md): a checkout above the buyer's
 * limit is held (202 PendingApproval, nothing charged), approved once under ten concurrent approvals
 * and charged once; reject keeps the cart open; escalation and expiry by the test stack's shortened
 * timers (APPROVAL_ESCALATION_HOURS=6s, APPROVAL_EXPIRY_DAYS=30s); monthly limits; visibility.
 * The worker-crash case is test/approvals-crash.test.ts.
 */
import { call, createOrg, dbQuery, stack, waitForMail, type OrgFixture } from './support/helpers';
import { buyerCart, buyerWorld, checkout, setRole, type BuyerWorld } from './support/approval-fixtures';

jest.setTimeout(150_000);
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const as = (token: string) => ({ base: org.base, token });
const ledger = async (key: string) => ((await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=${key}`)).json()) as { entries: { kind: string; amount: string }[] }).entries.filter((e) => e.kind === 'charge');
const approval = (w: BuyerWorld, id: string, token = w.approver1.token) => call('GET', `/api/approvals/${id}`, as(token));
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 300));
  }
}
const email = async (userId: string) => (await dbQuery<{ email: string }>(`select email from app_user where id = $1`, [userId]))[0].email;

describe('buyer approvals', () => {
  test('when a checkout exceeds the per-order limit, then it is held; ten concurrent approvals approve it once and it is charged once', async () => {
    const w = await buyerWorld(org);
    const cartId = await buyerCart(org, w, 2);
    const held = await checkout(org, w, cartId);
    expect(held.status).toBe(202);
    expect(held.body).toEqual({ status: 'PendingApproval', approvalId: expect.any(String) });
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);
    const id = held.body.approvalId;
    // Asking again answers the same request.
    expect((await checkout(org, w, cartId)).body).toEqual(held.body);
    const asked = await until(() => approval(w, id), (r) => r.body.chain?.length > 0);
    expect(asked.body).toMatchObject({ status: 'Pending', customerNumber: w.customerNumber, cartId, total: 200, level: 1, reason: expect.stringContaining('per-order limit 150.00') });
    expect(asked.body.lines).toEqual([expect.objectContaining({ sku: w.sku, quantity: 2, unitPrice: 100, lineTotal: 200 })]);
    expect(asked.body.chain[0]).toMatchObject({ type: 'Asked', level: 1, userIds: [w.approver1.userId] });
    await waitForMail(await email(w.approver1.userId), (m) => m.subject.startsWith('Approval needed'));
    // The buyer cannot approve their own checkout; the next level has not been asked yet.
    expect((await call('POST', `/api/approvals/${id}/approve`, as(w.buyer.token))).status).toBe(403);
    const results = await Promise.all(Array.from({ length: 10 }, () => call('POST', `/api/approvals/${id}/approve`, as(w.approver1.token))));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const ok = results.find((r) => r.status === 200)!;
    expect(ok.body).toMatchObject({ status: 'Approved', decidedBy: w.approver1.userId, orderNumber: expect.stringMatching(/^SO-\d{6}$/) });
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(1);
    expect((await call('GET', `/api/carts/${cartId}`, as(w.buyer.token))).body.status).toBe('CLOSED');
    const again = await checkout(org, w, cartId);
    expect(again.status).toBe(200);
    expect(again.body.orderNumber).toBe(ok.body.orderNumber);
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(1);
  });

  test('when the product price changes while a checkout waits, then the approve charges nothing and answers 409 naming both totals and a new approval; approving that one charges once at the new price', async () => {
    const w = await buyerWorld(org);
    const cartId = await buyerCart(org, w, 2);
    const held = await checkout(org, w, cartId);
    expect(held.status).toBe(202);
    const oldId = held.body.approvalId as string;
    await until(() => approval(w, oldId), (r) => r.body.chain?.length > 0);
    // The catalog price goes from 100 to 120 after the request (the cart still shows 100).
    const price = await call('PUT', '/api/products', { base: org.base, token: org.adminToken, body: { sku: w.sku, name: `Product ${w.sku}`, prices: [{ tier: 'Retail', price: 120, atQuantity: 1 }] } });
    expect(price.status).toBe(200);
    const refused = await call('POST', `/api/approvals/${oldId}/approve`, as(w.approver1.token));
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('200.00');
    expect(refused.body.detail).toContain('240.00');
    const newId = /approval ([0-9a-f-]{36}) now asks/.exec(refused.body.detail)?.[1];
    expect(newId).toBeDefined();
    expect(newId).not.toBe(oldId);
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);
    // The old request is Superseded and names the new one; the new one asks for 240 from level 1.
    const old = await approval(w, oldId);
    expect(old.body).toMatchObject({ status: 'Superseded', total: 200, repricedTotal: 240, supersededBy: newId, orderNumber: null });
    expect(old.body.chain.at(-1)).toMatchObject({ type: 'TotalChanged', by: w.approver1.userId });
    expect((await call('POST', `/api/approvals/${oldId}/approve`, as(w.approver1.token))).status).toBe(409);
    const next = await until(() => approval(w, newId!), (r) => r.body.chain?.some((e: any) => e.type === 'Asked'));
    expect(next.body).toMatchObject({ status: 'Pending', total: 240, supersedes: oldId, level: 1, cartId });
    expect(next.body.lines).toEqual([expect.objectContaining({ sku: w.sku, quantity: 2, unitPrice: 120, lineTotal: 240 })]);
    // The buyer's cart carries the current prices, and checking out again answers the new request.
    expect((await call('GET', `/api/carts/${cartId}`, as(w.buyer.token))).body).toMatchObject({ status: 'PENDING', subtotal: 240 });
    expect((await checkout(org, w, cartId)).body).toEqual({ status: 'PendingApproval', approvalId: newId });
    await waitForMail(await email(w.buyer.userId), (m) => m.subject.includes('superseded') && m.text.includes(newId!));
    const ok = await call('POST', `/api/approvals/${newId}/approve`, as(w.approver1.token));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'Approved', orderNumber: expect.stringMatching(/^SO-\d{6}$/) });
    const charges = await ledger(`checkout-${cartId}`);
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amount)).toBe(240);
    expect((await approval(w, oldId)).body.status).toBe('Superseded');
  });

  test('when the price drops so the cart is within the buyer\'s limit, then the approve supersedes the request without a new one and the buyer checks out at the new price', async () => {
    const w = await buyerWorld(org);
    const cartId = await buyerCart(org, w, 2);
    const oldId = (await checkout(org, w, cartId)).body.approvalId as string;
    await until(() => approval(w, oldId), (r) => r.body.chain?.length > 0);
    expect((await call('PUT', '/api/products', { base: org.base, token: org.adminToken, body: { sku: w.sku, name: `Product ${w.sku}`, prices: [{ tier: 'Retail', price: 70, atQuantity: 1 }] } })).status).toBe(200);
    const refused = await call('POST', `/api/approvals/${oldId}/approve`, as(org.adminToken));
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/from \$200\.00 to \$140\.00 .*within the buyer's limits/);
    expect((await approval(w, oldId)).body).toMatchObject({ status: 'Superseded', repricedTotal: 140, supersededBy: null });
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);
    const again = await checkout(org, w, cartId);
    expect(again.status).toBe(200);
    expect(again.body.orderNumber).toMatch(/^SO-\d{6}$/);
    const charges = await ledger(`checkout-${cartId}`);
    expect(charges).toHaveLength(1);
    expect(Number(charges[0].amount)).toBe(140);
  });

  test('when the approver rejects, then nothing is charged, the buyer gets the reason and the cart is open to check out again (a new request)', async () => {
    const w = await buyerWorld(org);
    const cartId = await buyerCart(org, w, 3);
    const id = (await checkout(org, w, cartId)).body.approvalId;
    await until(() => approval(w, id), (r) => r.body.chain?.length > 0);
    const rejected = await call('POST', `/api/approvals/${id}/reject`, { ...as(w.approver1.token), body: { reason: 'Over budget this quarter' } });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'Rejected', decisionReason: 'Over budget this quarter' });
    const mail = await waitForMail(await email(w.buyer.userId), (m) => m.subject.includes('rejected'));
    expect(mail.text).toContain('Over budget this quarter');
    expect((await call('GET', `/api/carts/${cartId}`, as(w.buyer.token))).body.status).toBe('PENDING');
    expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);
    expect((await call('POST', `/api/approvals/${id}/approve`, as(w.approver1.token))).status).toBe(409);
    const next = await checkout(org, w, cartId);
    expect(next.status).toBe(202);
    expect(next.body.approvalId).not.toBe(id);
  });

  test('when nobody answers, then the request escalates to the next Approver, then to the admins, then expires and the cart stays open', async () => {
    const w = await buyerWorld(org);
    const cartId = await buyerCart(org, w, 2);
    const id = (await checkout(org, w, cartId)).body.approvalId;
    const expired = await until(() => approval(w, id, org.adminToken), (r) => r.body.status === 'Expired', 90_000);
    expect(expired.body.status).toBe('Expired');
    expect(expired.body.chain.map((e: any) => [e.type, e.level])).toEqual([
      ['Asked', 1],
      ['Escalated', 2],
      ['Escalated', 3],
      ['Expired', 3],
    ]);
    expect(expired.body.chain[1].userIds).toEqual([w.approver2.userId]);
    expect(expired.body.chain[2].userIds).toEqual([org.adminUserId]);
    await waitForMail(org.adminEmail, (m) => m.subject.startsWith('Approval needed') && m.subject.includes(w.customerNumber));
    await waitForMail(await email(w.buyer.userId), (m) => m.subject.includes('expired'));
    expect((await call('POST', `/api/approvals/${id}/approve`, as(org.adminToken))).status).toBe(409);
    expect((await call('GET', `/api/carts/${cartId}`, as(w.buyer.token))).body.status).toBe('PENDING');
  });

  test('when a buyer has a monthly limit, then checkouts within it go through and the one beyond the remainder is held', async () => {
    const w = await buyerWorld(org, { orderLimit: null, monthlyLimit: 250 });
    const first = await checkout(org, w, await buyerCart(org, w, 2));
    expect(first.status).toBe(200);
    const second = await checkout(org, w, await buyerCart(org, w, 1));
    expect(second.status).toBe(202);
    const a = await approval(w, second.body.approvalId, org.adminToken);
    expect(a.body.reason).toContain('remaining monthly limit 50.00');
    const buyers = await call('GET', `/api/customers/${w.customerNumber}/buyers`, as(w.approver2.token));
    expect(buyers.status).toBe(200);
    expect(buyers.body.Data.find((b: any) => b.userId === w.buyer.userId)).toMatchObject({ role: 'Buyer', monthlyLimit: 250, orderLimit: null, spentThisMonth: 200 });
  });

  test('when another customer, a plain buyer or another organization names an approval or buyers, then 404 or 403', async () => {
    const w = await buyerWorld(org);
    const other = await buyerWorld(org);
    const id = (await checkout(org, w, await buyerCart(org, w, 2))).body.approvalId;
    expect((await approval(w, id, other.approver1.token)).status).toBe(404);
    expect((await call('POST', `/api/approvals/${id}/approve`, as(other.approver1.token))).status).toBe(404);
    const orgB = await createOrg();
    expect((await call('GET', `/api/approvals/${id}`, { base: orgB.base, token: orgB.adminToken })).status).toBe(404);
    expect((await call('GET', `/api/approvals?customerNumber=${w.customerNumber}`, as(other.approver1.token))).body.TotalCount).toBe(0);
    expect((await call('GET', `/api/approvals?status=Pending&customerNumber=${w.customerNumber}`, as(w.approver1.token))).body.Data.map((a: any) => a.approvalId)).toEqual([id]);
    // A plain Buyer manages nobody; an Approver of another customer cannot see this one's buyers.
    expect((await call('GET', `/api/customers/${w.customerNumber}/buyers`, as(w.buyer.token))).status).toBe(403);
    expect((await call('GET', `/api/customers/${w.customerNumber}/buyers`, as(other.approver1.token))).status).toBe(404);
    await expect(setRole(org, w.customerNumber, other.buyer.userId, { role: 'Buyer', orderLimit: 1 })).rejects.toThrow(/404/);
  });
});
