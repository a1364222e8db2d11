/**
 * A worker killed while an approval waits: the sandbox worker is SIGKILLed while approvePurchase
 * waits for an answer; with no worker the request stays Pending and nothing is charged; a new worker
 * resumes the workflow from its history, the approval continues the held checkout, charged once.
 * Runs in the sandbox environment (see test/support/sandbox-workers.ts), whose approvals expire after
 * 10 minutes under test (scripts/lib/stack.ts), not production's 30 seconds: a slow worker restart must
 * not race the expiry. The test checks that its request is still well within it before approving.
 */
import { call, stack, type OrgFixture } from './support/helpers';
import { buyerCart, buyerWorld, checkout } from './support/approval-fixtures';
import { sandboxSuite } from './support/sandbox-workers';

jest.setTimeout(150_000);
let sb: OrgFixture;
const workers = sandboxSuite((org) => {
  sb = org;
});
const ledger = async (key: string) => ((await (await fetch(`${stack.urls.provider}/ledger?idempotencyKey=${key}`)).json()) as { entries: { kind: string; amount: string }[] }).entries.filter((e) => e.kind === 'charge');

/** A buyer's checkout of 200.00 held for approval (limit 150), once the workflow has asked level 1; `read` reads the approval as the approver. */
async function heldApproval() {
  const w = await buyerWorld(sb);
  const cartId = await buyerCart(sb, w, 2);
  const held = await checkout(sb, w, cartId);
  expect(held.status).toBe(202);
  const id = held.body.approvalId as string;
  const read = () => call('GET', `/api/approvals/${id}`, { base: sb.base, token: w.approver1.token });
  for (let i = 0; i < 100 && !(await read()).body.chain?.length; i++) await new Promise((r) => setTimeout(r, 200));
  return { w, cartId, id, read };
}

test('when the worker is SIGKILLed while an approval waits, then a new worker resumes it and the approval charges once', async () => {
  const { w, cartId, id, read } = await heldApproval();
  // The workflow has run (level 1 asked) before the worker dies.
  const before = (await read()).body;
  expect(before.chain).toEqual([expect.objectContaining({ type: 'Asked', level: 1, userIds: [w.approver1.userId] })]);
  // Kill every sandbox worker: the workflow waits with no one to run it.
  workers.killOwn();
  workers.killOthers();
  await new Promise((r) => setTimeout(r, 1500));
  expect((await read()).body).toMatchObject({ status: 'Pending', level: 1 });
  expect(await ledger(`checkout-${cartId}`)).toHaveLength(0);
  const fresh = workers.start({}, 'replacement worker');
  await fresh.ready;
  // The request has not run out while the workers were away (the stack's sandbox expiry is 10 minutes).
  expect(new Date(before.expiresAt).getTime() - Date.now()).toBeGreaterThan(60_000);
  const approved = await call('POST', `/api/approvals/${id}/approve`, { base: sb.base, token: w.approver1.token });
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ status: 'Approved', orderNumber: expect.stringMatching(/^SO-/) });
  const charges = await ledger(`checkout-${cartId}`);
  expect(charges).toHaveLength(1);
  expect(Number(charges[0].amount)).toBe(200);
  // Nothing lost: the level-1 request from before the crash (once; an escalation may have followed on the short test timer), then the decision and the checkout.
  const types = approved.body.chain.map((e: any) => e.type);
  expect(approved.body.chain[0]).toEqual(before.chain[0]);
  expect(types.filter((t: string) => t === 'Asked')).toHaveLength(1);
  expect(types.slice(-2)).toEqual(['Approved', 'Approved']);
  expect(approved.body.chain.at(-1).note).toBe(`checked out as ${approved.body.orderNumber}`);
  expect((await checkout(sb, w, cartId)).body.orderNumber).toBe(approved.body.orderNumber);
  expect(await ledger(`checkout-${cartId}`)).toHaveLength(1);
});

test('when the buyer edits the cart right after the approval, then the approved checkout charges nothing and the new total needs approving again', async () => {
  const { w, cartId, id, read } = await heldApproval();
  // The decision is recorded, then held open for 4 s before the workflow continues the checkout: the buyer's edit lands in between.
  workers.killOwn();
  workers.killOthers();
  const slow = workers.start({ FAULT_INJECTION: 'hang-after:decideApproval:4000' }, 'slow-decision worker');
  await slow.ready;
  const approving = call('POST', `/api/approvals/${id}/approve`, { base: sb.base, token: w.approver1.token });
  for (let i = 0; i < 100 && (await read()).body.status !== 'Approved'; i++) await new Promise((r) => setTimeout(r, 100));
  const edit = await call('POST', `/api/carts/${w.customerNumber}/${cartId}/items`, {
    base: sb.base,
    token: w.buyer.token,
    body: { customerNumber: w.customerNumber, sku: w.sku, quantity: 8 },
  });
  expect(edit.status).toBe(200);
  const approved = await approving;
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ status: 'Approved', orderNumber: null });
  expect(approved.body.chain.at(-1).note).toMatch(/^checkout failed: The cart changed while it was being checked out: the checkout was admitted for 200.00 USD .* and the cart now comes to 1000.00 USD\. Nothing was charged/);
  // 200.00 was approved; the cart now comes to 1,000.00: nothing is charged or ordered.
  expect(await ledger(`checkout-${cartId}`)).toEqual([]);
  expect((await call('GET', `/api/carts/${cartId}`, { base: sb.base, token: w.buyer.token })).body).toMatchObject({
    status: 'PENDING',
    items: [expect.objectContaining({ quantity: 10 })],
  });
  // Checking out again asks for an approval of the new total.
  const again = await checkout(sb, w, cartId);
  expect(again.status).toBe(202);
  expect(again.body.approvalId).not.toBe(id);
});
