/**
 * A worker killed inside a backorder allocation (issue 41 item 3; docs/fulfillment.md
 * "Backorders"): the allocation activity is held open after its transaction committed
 * (FAULT_INJECTION=hang-after:allocateStock:<ms>:<orgId>), the worker is SIGKILLed, a replacement
 * re-runs the activity: it allocates nothing twice (the allocation is computed from what is still
 * available and still waiting), the buyers get their e-mails, and a later receipt serves what still
 * waits (nothing lost). Runs in the sandbox environment like test/crash.test.ts.
 */
import { call, dbQuery, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { sandboxSuite } from './support/sandbox-workers';
import { expectLedgerIdentity, placeDirectOrder } from './support/stock-ledger';

jest.setTimeout(240_000);
let sb: OrgFixture;
const workers = sandboxSuite((org) => {
  sb = org;
});
const S = () => ({ base: sb.base, token: sb.adminToken });

const place = (sku: string, quantity: number) => placeDirectOrder(S(), sku, quantity);
const q = <T = Record<string, unknown>>(text: string, params: unknown[]) => dbQuery<T>(text, params, 'sandbox');
const waiting = async (orderId: string) =>
  Number((await q<{ n: string }>(`select coalesce(sum(backordered_quantity), 0) as n from order_item where organization_id = $1 and order_id = $2`, [sb.organizationId, orderId]))[0].n);
const allocations = (orderId: string) => q<{ quantity: number }>(`select quantity from backorder_allocation where organization_id = $1 and order_id = $2 order by allocated_at`, [sb.organizationId, orderId]);
const reserved = async (orderId: string) =>
  Number((await q<{ n: string }>(`select coalesce(sum(quantity), 0) as n from stock_movement where organization_id = $1 and order_id = $2 and kind = 'reservation'`, [sb.organizationId, orderId]))[0].n);

test('when the worker is SIGKILLed after an allocation committed, then the retried allocation allocates nothing twice, the buyers are mailed, and a later receipt serves the rest', async () => {
  expect((await call('POST', '/api/stock-locations', { ...S(), body: { name: 'Main', code: 'MAIN' } })).status).toBe(201);
  const sku = uniq('BO-');
  expect((await call('PUT', '/api/products', { ...S(), body: { sku, name: sku, trackInventory: true, allowBackorder: true } })).status).toBe(201);
  const older = await place(sku, 4);
  await new Promise((r) => setTimeout(r, 20));
  const newer = await place(sku, 4);

  workers.killOwn();
  workers.killOthers();
  const hanging = workers.start({ FAULT_INJECTION: `hang-after:allocateStock:120000:${sb.organizationId}` }, 'hanging allocation worker');
  await hanging.ready;
  expect((await call('PUT', '/api/inventory', { ...S(), body: { items: [{ sku, location: 'MAIN', receive: 6 }] } })).status).toBe(200);
  const deadline = Date.now() + 30_000;
  while ((await allocations(newer.id)).length === 0) {
    if (Date.now() > deadline) throw new Error('allocation never committed');
    await new Promise((r) => setTimeout(r, 100));
  }
  hanging.child.kill('SIGKILL');
  const normal = workers.start({}, 'replacement allocation worker');
  await normal.ready;

  // The workflow goes on after the retried activity: it signals the orders, whose workflows mail the buyers.
  await waitForMail(older.email, (m) => m.subject.includes(`4 × ${sku}`), 90_000);
  // As long as the first: the replacement worker's mail queue may still be retrying other files' deliveries (mail-isolation's dead SMTP).
  await waitForMail(newer.email, (m) => m.subject.includes(`2 × ${sku}`), 90_000);
  expect((await allocations(older.id)).map((a) => a.quantity)).toEqual([4]);
  expect((await allocations(newer.id)).map((a) => a.quantity)).toEqual([2]);
  expect([await reserved(older.id), await reserved(newer.id)]).toEqual([4, 2]);
  expect([await waiting(older.id), await waiting(newer.id)]).toEqual([0, 2]);
  const events = await q<{ n: string }>(`select count(*) as n from webhook_event where organization_id = $1 and type = 'order.allocated'`, [sb.organizationId]);
  expect(Number(events[0].n)).toBe(2);
  await expectLedgerIdentity(sb.organizationId, 'sandbox');

  // Nothing lost: the next receipt serves what still waits.
  expect((await call('PUT', '/api/inventory', { ...S(), body: { items: [{ sku, location: 'MAIN', receive: 5 }] } })).status).toBe(200);
  const end = Date.now() + 60_000;
  while ((await waiting(newer.id)) > 0) {
    if (Date.now() > end) throw new Error('the rest was never allocated');
    await new Promise((r) => setTimeout(r, 300));
  }
  expect([await reserved(older.id), await reserved(newer.id)]).toEqual([4, 4]);
  expect((await call('GET', `/api/orders/${newer.id}`, S())).body.orderStatus).toBe('Processing');
  await expectLedgerIdentity(sb.organizationId, 'sandbox');
});
