/**
 * Returns (RMA) over HTTP against the real stack (issue 42 item 2; docs/returns.md "Returns"):
 * the full path with the test stack's shortened timers (RETURN_REMINDER_AFTER 4 s,
 * RETURN_EXPIRY_DAYS 20 s): request -> reminder -> approve -> receive with restock (a ledger
 * receipt) -> credited on account -> Closed, and an approved return that expires; rejection; the
 * return window (a buyer refused outside it, staff allowed); over-returns; who sees and decides;
 * 10 concurrent receipts of one card-refunded return leave one refund in the provider's ledger.
 */
import { call, createOrg, customerToken, dbQuery, expectProblem, repToken, stack, uniq, type OrgFixture } from './support/helpers';
import { pathParamFixtures } from './support/matrix-fixtures';
import { expectLedgerIdentity } from './support/stock-ledger';

jest.setTimeout(300_000);
const PROVIDER = stack.urls.provider;
let org: OrgFixture;
let locationId: string;
const LOCATION = 'RET';
beforeAll(async () => {
  org = await createOrg();
  const loc = await call('POST', '/api/stock-locations', { ...A(), body: { name: 'Returns dock', code: LOCATION, priority: 10 } });
  expect(loc.status).toBe(201);
  locationId = loc.body.locationId;
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});
const ledger = async (query: string) => ((await (await fetch(`${PROVIDER}/ledger?${query}`)).json()) as { entries: { kind: string; amount: string; chargeId: string }[] }).entries;

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A customer (with its rep and buyer), a tracked product stocked at RET, an order of `quantity` paid by card or on account, shipped in full. */
async function shippedOrder(payment: 'card' | 'account', quantity: number, price = 25) {
  const customerNumber = await pathParamFixtures.customerNumber(org);
  const repNumber = uniq('R');
  const rep = await repToken(org, repNumber);
  expect((await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', repNumber } })).status).toBeLessThan(300);
  const buyer = await customerToken(org, { CustomerNumber: customerNumber });
  const sku = uniq('RTN-');
  expect((await call('PUT', '/api/products', { ...A(), body: { sku, name: `Returnable ${sku}`, trackInventory: true, prices: [{ tier: 'Retail', price, atQuantity: 1 }] } })).status).toBe(201);
  expect((await call('PUT', '/api/inventory', { ...A(), body: { items: [{ sku, location: LOCATION, receive: 20 }] } })).status).toBe(200);
  if (payment === 'account') expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 10_000 } })).status).toBe(200);
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity, orderType: 'Standard' } });
  const cartId = c.body.shoppingCartId as string;
  await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
  const done = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: payment === 'card' ? card() : { method: 'OnAccount' } } });
  expect(done.status).toBe(200);
  const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
  const o = (await call('GET', `/api/orders?filters=${f}`, A())).body.data[0];
  const s = await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku, quantity }] } });
  expect(s.status).toBe(201);
  const inv = (await call('GET', `/api/invoices?orderId=${o.id}`, A())).body.items[0];
  return { customerNumber, sku, order: o, invoice: inv, buyer, rep, chargeId: done.body.confirmationId as string | undefined };
}

const request = (body: Record<string, unknown>, token = org.adminToken) => call('POST', '/api/returns', { base: org.base, token, body });
const act = (id: string, action: 'approve' | 'reject' | 'receive', body: Record<string, unknown>, token = org.adminToken) => call('POST', `/api/returns/${id}/${action}`, { base: org.base, token, body });
const read = async (id: string) => (await call('GET', `/api/returns/${id}`, A())).body;
const eventTypes = async (returnId: string) =>
  (await dbQuery<{ type: string }>(`select type from webhook_event where organization_id = $1 and data->>'returnId' = $2 order by occurred_at, type`, [org.organizationId, returnId])).map((r) => r.type);

describe('returns', () => {
  test('when a buyer returns shipped units, staff are reminded, approve and receive them restocked, then the return is credited on account and closed, the ledger shows the restock, and an approved return whose goods never come expires', async () => {
    const { order: o, invoice: inv, sku, buyer, customerNumber } = await shippedOrder('account', 3, 25);
    const res = await request({ orderId: o.id, lines: [{ sku, quantity: 2, reason: 'Damaged in transit' }] }, buyer);
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/returns/${res.body.returnId}`);
    expect(res.body).toMatchObject({ status: 'Requested', orderId: o.id, customerNumber, amount: 50, lines: [{ sku, quantity: 2, price: 25, amount: 50, reason: 'Damaged in transit', disposition: null }] });
    expect(res.body.rmaNumber).toMatch(/^RMA-\d{6}$/);
    const id = res.body.returnId as string;

    // A second return of the last unit (by staff), approved and never received: it expires, and its unit can be returned again.
    const second = await request({ orderId: o.id, lines: [{ sku, quantity: 1, reason: 'Wrong colour' }] });
    expect(second.status).toBe(201);
    expect(Number(second.body.rmaNumber.slice(4))).toBe(Number(res.body.rmaNumber.slice(4)) + 1);
    const over = await request({ orderId: o.id, lines: [{ sku, quantity: 1, reason: 'One more' }] });
    expectProblem(over, 409);
    expect(Object.keys(over.body.errors)).toEqual(['lines[0].quantity']);
    expect((await act(second.body.returnId, 'approve', { message: 'Send it back' })).body.status).toBe('Approved');

    // The reminder to staff fires while the first request waits.
    const reminded = await waitFor(() => read(id), (r) => !!r.reminderSentAt, 30_000);
    expect(reminded.steps.map((s: { status: string }) => s.status)).toEqual(['Requested', 'ReminderSent']);
    const mails = await waitFor(
      () => dbQuery<{ subject: string }>(`select subject from email_message where organization_id = $1 and id like $2`, [org.organizationId, `return-reminder-${id}-%`]),
      (m) => m.length > 0,
      30_000,
    );
    expect(mails[0].subject).toContain(res.body.rmaNumber);

    const approved = await act(id, 'approve', { message: 'Approved, please send' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'Approved', message: 'Approved, please send' });
    const onHandBefore = (await dbQuery<{ on_hand: number }>(`select s.on_hand from stock_level s join product p on p.organization_id = s.organization_id and p.id = s.product_id where s.organization_id = $1 and p.sku = $2 and s.location_id = $3`, [org.organizationId, sku, locationId]))[0].on_hand;
    const balanceBefore = (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body.openBalance;

    const received = await act(id, 'receive', { lines: [{ sku, disposition: 'restock', locationId }] });
    expect(received.status).toBe(200);
    expect(received.body).toMatchObject({ status: 'Closed', refundMethod: 'credit', refund: null, lines: [{ sku, disposition: 'restock', locationId }] });
    expect(received.body.steps.map((s: { status: string }) => s.status)).toEqual(['Requested', 'ReminderSent', 'Approved', 'Received', 'Credited', 'Closed']);

    // Credited on account: a credit note of the return (source Return) applied to the order's invoice; the open balance drops by it.
    const cn = (await call('GET', `/api/credit-notes/${received.body.creditNoteId}`, A())).body;
    expect(cn).toMatchObject({ source: 'Return', amount: 50, orderId: o.id, status: 'Applied', applications: [expect.objectContaining({ invoiceId: inv.id, amount: 50 })], lines: [expect.objectContaining({ sku, quantity: 2 })] });
    expect((await call('GET', `/api/customers/${customerNumber}/credit`, A())).body.openBalance).toBe(balanceBefore - 50);

    // The restock is a receipt in the ledger at the chosen location.
    const moves = await dbQuery<{ kind: string; quantity: number; reference: string }>(
      `select m.kind, m.quantity, m.reference from stock_movement m join product p on p.organization_id = m.organization_id and p.id = m.product_id
        where m.organization_id = $1 and p.sku = $2 and m.location_id = $3 and m.reference = $4`,
      [org.organizationId, sku, locationId, res.body.rmaNumber],
    );
    expect(moves).toEqual([{ kind: 'receipt', quantity: 2, reference: res.body.rmaNumber }]);
    const onHandAfter = (await dbQuery<{ on_hand: number }>(`select s.on_hand from stock_level s join product p on p.organization_id = s.organization_id and p.id = s.product_id where s.organization_id = $1 and p.sku = $2 and s.location_id = $3`, [org.organizationId, sku, locationId]))[0].on_hand;
    expect(onHandAfter).toBe(onHandBefore + 2);
    await expectLedgerIdentity(org.organizationId);
    expect(await eventTypes(id)).toEqual(['return.requested', 'return.approved', 'return.received', 'return.credited']);

    // The order timeline shows the return's workflow step by step.
    const timeline = (await call('GET', `/api/orders/${o.id}/timeline`, A())).body.Steps as { WorkflowId: string; Step: string; Outcome: string }[];
    const steps = timeline.filter((s) => s.WorkflowId === `return-${id}`).map((s) => `${s.Step}:${s.Outcome}`);
    expect(steps).toEqual(expect.arrayContaining(['returnOrder:started', 'timer:fired', 'remindReturn:completed', 'update returnChanged:accepted', 'settleReturn:completed', 'closeReturn:completed', 'returnOrder:completed']));

    // The approved second return expires (20 s in the test stack); its unit counts as not returned again.
    const expired = await waitFor(() => read(second.body.returnId), (r) => r.status === 'Expired', 60_000);
    expect(expired.status).toBe('Expired');
    expectProblem(await act(second.body.returnId, 'receive', { lines: [{ sku, disposition: 'scrap' }] }), 409);
    expect((await request({ orderId: o.id, lines: [{ sku, quantity: 1, reason: 'Now really' }] }, buyer)).status).toBe(201);

    // Listed for the buyer, filtered by order.
    const list = (await call('GET', `/api/returns?orderId=${o.id}`, { base: org.base, token: buyer })).body;
    expect(list.TotalCount).toBe(3);
    expect(list.Data.map((r: { returnId: string }) => r.returnId)).toContain(id);
  });

  test('when staff reject a return with a message, then it is Rejected, cannot be decided again, and its units may be returned again', async () => {
    const { order: o, sku, buyer, rep } = await shippedOrder('account', 2, 10);
    const res = await request({ orderId: o.id, lines: [{ sku, quantity: 2, reason: 'Not needed' }] }, buyer);
    expect(res.status).toBe(201);
    expectProblem(await act(res.body.returnId, 'reject', {}, rep), 400);
    expectProblem(await act(res.body.returnId, 'approve', {}, buyer), 403);
    const rejected = await act(res.body.returnId, 'reject', { message: 'Opened goods are not taken back' }, rep);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'Rejected', message: 'Opened goods are not taken back' });
    expectProblem(await act(res.body.returnId, 'approve', {}), 409);
    expect(await eventTypes(res.body.returnId)).toEqual(['return.requested', 'return.rejected']);
    expect((await request({ orderId: o.id, lines: [{ sku, quantity: 2, reason: 'Unopened after all' }] }, buyer)).status).toBe(201);
  });

  test('when the return window has passed, then the buyer is refused and staff may still open the return; more than shipped is 400 naming the line', async () => {
    const { order: o, sku, buyer, rep } = await shippedOrder('account', 2, 10);
    expect((await call('PUT', '/api/organizations/return-settings', { ...A(), body: { returnWindowDays: 0 } })).body).toMatchObject({ returnWindowDays: 0, returnRefundPolicy: 'card' });
    try {
      const late = await request({ orderId: o.id, lines: [{ sku, quantity: 1, reason: 'Late' }] }, buyer);
      expectProblem(late, 403);
      expect(late.body.detail).toContain('return window');
      const tooMany = await request({ orderId: o.id, lines: [{ sku, quantity: 3, reason: 'Too many' }] }, rep);
      expectProblem(tooMany, 400);
      expect(Object.keys(tooMany.body.errors)).toEqual(['lines[0].quantity']);
      const unknown = await request({ orderId: o.id, lines: [{ sku: 'NOPE', quantity: 1, reason: 'x' }] }, rep);
      expectProblem(unknown, 400);
      expect(Object.keys(unknown.body.errors)).toEqual(['lines[0].sku']);
      expect((await request({ orderId: o.id, lines: [{ sku, quantity: 1, reason: 'Staff may' }] }, rep)).status).toBe(201);
    } finally {
      expect((await call('PUT', '/api/organizations/return-settings', { ...A(), body: { returnWindowDays: 30 } })).status).toBe(200);
    }
  });

  test('who sees a return: a buyer or rep of another customer and another organization get 404', async () => {
    const { order: o, sku, buyer } = await shippedOrder('account', 1, 10);
    const res = await request({ orderId: o.id, lines: [{ sku, quantity: 1, reason: 'x' }] }, buyer);
    expect(res.status).toBe(201);
    const id = res.body.returnId as string;
    const stranger = await shippedOrder('account', 1, 10);
    expectProblem(await call('GET', `/api/returns/${id}`, { base: org.base, token: stranger.buyer }), 404);
    expectProblem(await call('GET', `/api/returns/${id}`, { base: org.base, token: stranger.rep }), 404);
    expectProblem(await act(id, 'approve', {}, stranger.rep), 404);
    expectProblem(await request({ orderId: o.id, lines: [{ sku, quantity: 1, reason: 'x' }] }, stranger.buyer), 404);
    const other = await createOrg();
    expectProblem(await call('GET', `/api/returns/${id}`, { base: other.base, token: other.adminToken }), 404);
    expectProblem(await call('POST', `/api/returns/${id}/approve`, { base: other.base, token: other.adminToken, body: {} }), 404);
    expect((await call('GET', '/api/returns', { base: org.base, token: stranger.buyer })).body.Data.map((r: { returnId: string }) => r.returnId)).not.toContain(id);
  });

  test('when 10 receipts of one card-paid return arrive at once, then one is taken, the others are 409, and the provider ledger holds exactly one refund of the return amount', async () => {
    const { order: o, sku, buyer, chargeId, invoice: inv } = await shippedOrder('card', 4, 12.5);
    const res = await request({ orderId: o.id, lines: [{ sku, quantity: 3, reason: 'Arrived broken' }] }, buyer);
    expect(res.status).toBe(201);
    const id = res.body.returnId as string;
    expect((await act(id, 'approve', {})).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 10 }, () => act(id, 'receive', { lines: [{ sku, disposition: 'scrap' }] })));
    const okOnes = answers.filter((r) => r.status === 200);
    expect(okOnes).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) expectProblem(r, 409);
    expect(okOnes[0].body).toMatchObject({ status: 'Closed', refundMethod: 'card', amount: 37.5, refund: { amount: 37.5, idempotencyKey: `return-${id}` } });
    const refunds = (await ledger(`chargeId=${chargeId}`)).filter((e) => e.kind === 'refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0].amount).toBe('37.50');
    // The invoice's card payment carries the refund; the return's credit note documents it and is no applicable credit.
    expect((await call('GET', `/api/invoices/${inv.id}`, A())).body.payments.find((p: { method: string }) => p.method === 'Card')).toMatchObject({ refundedAmount: 37.5 });
    expect((await call('GET', `/api/credit-notes/${okOnes[0].body.creditNoteId}`, A())).body).toMatchObject({ source: 'Return', amount: 37.5, amountRefunded: 37.5, refundStatus: 'Refunded', available: 0 });
    expect(await eventTypes(id)).toEqual(['return.requested', 'return.approved', 'return.received', 'return.refunded']);
  });
});
