/**
 * Order cancellation over HTTP against the real stack (issue 42 item 1; docs/returns.md
 * "Cancellation"): a partial cancel of a card order refunds exactly the cancelled amount once
 * (provider ledger) and documents it with a credit note; 10 concurrent cancels leave one refund;
 * an invoiced on-account order gets a credit note applied to its invoice; who may cancel. The
 * worker-kill test is test/order-cancel-crash.test.ts.
 */
import { call, createOrg, customerToken, dbQuery, expectProblem, repToken, stack, uniq, type OrgFixture } from './support/helpers';
import { customerWithProduct } from './support/matrix-fixtures';

jest.setTimeout(240_000);
const PROVIDER = stack.urls.provider;
let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});
const A = () => ({ base: org.base, token: org.adminToken });
const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const card = () => ({
  billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
  creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: String(new Date().getFullYear() + 2), cvv: '123' },
});
const ledger = async (query: string) => ((await (await fetch(`${PROVIDER}/ledger?${query}`)).json()) as { entries: { kind: string; amount: string; chargeId: string }[] }).entries;

/** An order of `lines` (sku, quantity) for a new customer, paid by card or on account; answers the order and its invoice. */
async function order(payment: 'card' | 'account', quantities: number[], price = 20) {
  const products = [];
  const { customerNumber, sku } = await customerWithProduct(org, { price });
  products.push(sku);
  for (let i = 1; i < quantities.length; i++) {
    const s = uniq('SKU-');
    const p = await call('PUT', '/api/products', { ...A(), body: { sku: s, name: `Product ${s}`, minimumOrderQuantity: 1, quantityIncrement: 1, prices: [{ tier: 'Retail', price, atQuantity: 1 }] } });
    expect(p.status).toBe(201);
    products.push(s);
  }
  if (payment === 'account') expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 10_000 } })).status).toBe(200);
  const c = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku: products[0], quantity: quantities[0], orderType: 'Standard' } });
  const cartId = c.body.shoppingCartId as string;
  for (let i = 1; i < products.length; i++) {
    const add = await call('POST', `/api/carts/${customerNumber}/${cartId}/items`, { ...A(), body: { customerNumber, sku: products[i], quantity: quantities[i] } });
    expect(add.status).toBeLessThan(300);
  }
  await call('PUT', `/api/carts/${customerNumber}/${cartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
  const done = await call('POST', `/api/carts/${customerNumber}/${cartId}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: payment === 'card' ? card() : { method: 'OnAccount' } } });
  expect(done.status).toBe(200);
  const f = encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]));
  const o = (await call('GET', `/api/orders?filters=${f}`, A())).body.data[0];
  const inv = (await call('GET', `/api/invoices?orderId=${o.id}`, A())).body.items[0];
  return { customerNumber, skus: products, order: o, invoice: inv, chargeId: done.body.confirmationId as string | undefined };
}
const cancel = (orderId: string, body: Record<string, unknown>, token = org.adminToken) => call('POST', `/api/orders/${orderId}/cancel`, { base: org.base, token, body });

describe('order cancellation', () => {
  test('when lines of a card order are cancelled, then exactly the cancelled amount is refunded once, documented by a credit note, and order.cancelled carries the lines', async () => {
    const { order: o, invoice: inv, skus, chargeId } = await order('card', [3, 2], 20);
    expect(o.total).toBeGreaterThanOrEqual(100);
    const res = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 2 }], reason: 'Customer changed their mind' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ orderId: o.id, wholeOrder: false, orderStatus: o.orderStatus, amount: 40, lines: [{ sku: skus[0], quantity: 2, price: 20, amount: 40 }] });
    expect(res.body.refund).toEqual({ status: 'Refunded', amount: 40, idempotencyKey: `order-cancel-${res.body.cancellationId}` });
    const refunds = (await ledger(`idempotencyKey=order-cancel-${res.body.cancellationId}`)).filter((e) => e.kind === 'refund');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: '40.00', chargeId });

    // The invoice stays Paid; its card payment shows the refunded money; the credit note documents it and is not applicable credit.
    const after = (await call('GET', `/api/invoices/${inv.id}`, A())).body;
    expect(after).toMatchObject({ status: 'Paid', balance: 0 });
    expect(after.payments.find((p: any) => p.method === 'Card')).toMatchObject({ refundedAmount: 40 });
    const cn = (await call('GET', `/api/credit-notes/${res.body.creditNoteId}`, A())).body;
    expect(cn).toMatchObject({ source: 'Cancellation', orderId: o.id, invoiceId: inv.id, amount: 40, amountRefunded: 40, refundStatus: 'Refunded', available: 0, applications: [], merchandiseAmount: 40 });

    // Shipped nothing: asking for more than is left is 400 naming the line.
    const tooMany = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 2 }], reason: 'Again' });
    expectProblem(tooMany, 400);
    expect(Object.keys(tooMany.body.errors)).toEqual(['lines[0].quantity']);

    const [ev] = await dbQuery<{ data: any }>(`select data from webhook_event where organization_id = $1 and type = 'order.cancelled' and data->>'cancellationId' = $2`, [org.organizationId, res.body.cancellationId]);
    expect(ev.data).toMatchObject({ orderId: o.id, wholeOrder: false, amount: '40', lines: [{ sku: skus[0], quantity: 2, amount: '40' }] });
  });

  test('when 10 cancel requests for the whole card order arrive at once, then one cancels, the others are 409, and the ledger holds exactly one refund of the order total', async () => {
    const { order: o, chargeId } = await order('card', [2], 17.5);
    const answers = await Promise.all(Array.from({ length: 10 }, () => cancel(o.id, { reason: 'Duplicate order' })));
    const okOnes = answers.filter((r) => r.status === 200);
    expect(okOnes).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) expectProblem(r, 409);
    expect(okOnes[0].body).toMatchObject({ wholeOrder: true, orderStatus: 'Cancelled', amount: o.total, refund: { status: 'Refunded' } });
    const refunds = (await ledger(`chargeId=${chargeId}`)).filter((e) => e.kind === 'refund');
    expect(refunds).toHaveLength(1);
    expect(Number(refunds[0].amount)).toBe(o.total);
    expect((await call('GET', `/api/orders/${o.id}`, A())).body.orderStatus).toBe('Cancelled');
  });

  test('when an invoiced on-account order is cancelled in part, then a credit note for the cancelled amount is applied to its invoice and the open balance drops by it', async () => {
    const { customerNumber, order: o, invoice: inv, skus } = await order('account', [4], 25);
    const before = (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body.openBalance;
    const res = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'One unit not needed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ amount: 25, refund: null, creditNoteId: expect.any(String) });
    const cn = (await call('GET', `/api/credit-notes/${res.body.creditNoteId}`, A())).body;
    expect(cn).toMatchObject({ source: 'Cancellation', amount: 25, status: 'Applied', applications: [expect.objectContaining({ invoiceId: inv.id, amount: 25 })], lines: [expect.objectContaining({ sku: skus[0], quantity: 1 })] });
    expect((await call('GET', `/api/invoices/${inv.id}`, A())).body).toMatchObject({ status: 'PartiallyPaid', balance: inv.total - 25 });
    expect((await call('GET', `/api/customers/${customerNumber}/credit`, A())).body.openBalance).toBe(before - 25);
  });

  test('when an invoiced on-account order whose invoice was already credited in part is cancelled whole, then the cancellation completes with the credit note capped at what the invoice can still absorb, and says what was not credited', async () => {
    const { customerNumber, order: o, invoice: inv } = await order('account', [2, 1], 40);
    const total = inv.total as number;
    const manual = await call('POST', '/api/credit-notes', { ...A(), body: { invoiceId: inv.id, amount: 30, reason: 'Goodwill rebate', apply: 'None' } });
    expect(manual.status).toBe(201);
    const res = await cancel(o.id, { reason: 'Project cancelled' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ wholeOrder: true, orderStatus: 'Cancelled', amount: o.total, creditNoteAmount: total - 30, uncreditedAmount: 30, refund: null, creditNoteId: expect.any(String), creditNoteNumber: expect.stringMatching(/^CN-\d{6}$/) });
    const cn = (await call('GET', `/api/credit-notes/${res.body.creditNoteId}`, A())).body;
    expect(cn).toMatchObject({ source: 'Cancellation', amount: total - 30, status: 'Applied', applications: [expect.objectContaining({ invoiceId: inv.id, amount: total - 30 })] });
    // The invoice is credited exactly once in full: the cancellation's note plus the earlier one, never more than its total.
    const notes = (await call('GET', `/api/credit-notes?invoiceId=${inv.id}`, A())).body.Data as { amount: number }[];
    expect(notes.reduce((sum, n) => sum + n.amount, 0)).toBeCloseTo(total, 2);
    expect((await call('GET', `/api/invoices/${inv.id}`, A())).body).toMatchObject({ status: 'PartiallyPaid', balance: 30 });
    expect((await call('GET', `/api/orders/${o.id}`, A())).body.orderStatus).toBe('Cancelled');
    // The earlier note's 30 still available settles the rest of the invoice.
    const applied = await call('POST', `/api/credit-notes/${manual.body.creditNoteId}/apply`, { ...A(), body: {} });
    expect(applied.status).toBe(200);
    expect((await call('GET', `/api/invoices/${inv.id}`, A())).body).toMatchObject({ status: 'Paid', balance: 0 });
    expect((await call('GET', `/api/customers/${customerNumber}/credit`, A())).body.openBalance).toBe(0);
    const [ev] = await dbQuery<{ data: any }>(`select data from webhook_event where organization_id = $1 and type = 'order.cancelled' and data->>'cancellationId' = $2`, [org.organizationId, res.body.cancellationId]);
    expect(ev.data).toMatchObject({ wholeOrder: true, uncreditedAmount: '30' });
  });

  test('when the invoice of an on-account order was credited in full before the whole order is cancelled, then the cancellation completes without a credit note and the whole amount is uncredited', async () => {
    const { order: o, invoice: inv } = await order('account', [1], 35);
    expect((await call('POST', '/api/credit-notes', { ...A(), body: { invoiceId: inv.id, amount: inv.total, reason: 'Credited in full', apply: 'None' } })).status).toBe(201);
    const res = await cancel(o.id, { reason: 'Never mind' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ wholeOrder: true, orderStatus: 'Cancelled', amount: o.total, creditNoteId: null, creditNoteAmount: null, uncreditedAmount: o.total, refund: null });
    expect((await call('GET', `/api/credit-notes?invoiceId=${inv.id}`, A())).body.TotalCount).toBe(1);
  });

  test('when a card order whose invoice was already credited in part is cancelled whole, then the card is refunded only what the invoice can still absorb, once', async () => {
    const { order: o, invoice: inv, chargeId } = await order('card', [3], 20);
    expect((await call('POST', '/api/credit-notes', { ...A(), body: { invoiceId: inv.id, amount: 25, reason: 'Rebate kept on account', apply: 'None' } })).status).toBe(201);
    const res = await cancel(o.id, { reason: 'Duplicate order' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ wholeOrder: true, orderStatus: 'Cancelled', amount: o.total, creditNoteAmount: o.total - 25, uncreditedAmount: 25, refund: { status: 'Refunded', amount: o.total - 25 } });
    const refunds = (await ledger(`chargeId=${chargeId}`)).filter((e) => e.kind === 'refund');
    expect(refunds).toHaveLength(1);
    expect(Number(refunds[0].amount)).toBeCloseTo(o.total - 25, 2);
  });

  test('when an order is cancelled in part and then whole, then its timeline shows each cancellation (lines, reason, credit note) and each credit note (number, amount, the invoice applied to) as records of their own beside checkout and the invoice', async () => {
    const { customerNumber, order: o, invoice: inv, skus } = await order('account', [3], 20);
    const first = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'One too many' });
    expect(first.status).toBe(200);
    const rest = await cancel(o.id, { reason: 'Project stopped' });
    expect(rest.status).toBe(200);
    const buyer = await customerToken(org, { CustomerNumber: customerNumber });
    for (const token of [org.adminToken, buyer]) {
      const tl = await call('GET', `/api/orders/${o.id}/timeline`, { base: org.base, token });
      expect(tl.status).toBe(200);
      const records = tl.body.Records as any[];
      expect(records.map((r) => r.Kind)).toEqual(['Checkout', 'Invoice', 'Cancellation', 'CreditNote', 'Cancellation', 'CreditNote']);
      const [checkout, invoice, partial, note1, whole, note2] = records;
      expect(checkout).toMatchObject({ Id: o.id, Number: o.orderNumber, Status: 'Cancelled', Amount: o.total });
      expect(invoice).toMatchObject({ Id: inv.id, Number: inv.invoiceNumber, Amount: inv.total });
      expect(partial).toMatchObject({ Id: first.body.cancellationId, WholeOrder: false, Reason: 'One too many', Amount: 20, Lines: [{ Sku: skus[0], Quantity: 1, Amount: 20 }], Refund: null, CreditNoteId: first.body.creditNoteId, UncreditedAmount: 0 });
      expect(note1).toMatchObject({ Id: first.body.creditNoteId, Number: partial.CreditNoteNumber, Source: 'Cancellation', Amount: 20, InvoiceId: inv.id, AppliedTo: [expect.objectContaining({ InvoiceId: inv.id, InvoiceNumber: inv.invoiceNumber, Amount: 20 })] });
      expect(note1.Number).toMatch(/^CN-\d{6}$/);
      expect(whole).toMatchObject({ Id: rest.body.cancellationId, WholeOrder: true, Reason: 'Project stopped', Amount: o.total - 20, Lines: [{ Sku: skus[0], Quantity: 2, Amount: 40 }], CreditNoteId: rest.body.creditNoteId });
      expect(note2).toMatchObject({ Id: rest.body.creditNoteId, Amount: o.total - 20, Status: 'Applied', AppliedTo: [expect.objectContaining({ InvoiceId: inv.id, Amount: o.total - 20 })] });
      expect(Array.isArray(tl.body.Steps)).toBe(true);
    }
  });

  test('when units of a line are cancelled, then they never ship: shipping them is 400 naming the line, and shipping the rest makes the order Shipped', async () => {
    const { order: o, skus } = await order('account', [3, 1], 10);
    expect((await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'Short one' })).status).toBe(200);
    const tooMany = await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku: skus[0], quantity: 3 }] } });
    expectProblem(tooMany, 400);
    expect(Object.keys(tooMany.body.errors)).toEqual(['lines[0].quantity']);
    const rest = await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku: skus[0], quantity: 2 }, { sku: skus[1], quantity: 1 }] } });
    expect(rest.status).toBe(201);
    const after = (await call('GET', `/api/orders/${o.id}`, A())).body;
    expect(after.orderStatus).toBe('Shipped');
    expect(after.items.find((i: any) => i.sku === skus[0])).toMatchObject({ quantity: 3, cancelledQuantity: 1, shippedQuantity: 2 });
  });

  test('when the last units still to ship are cancelled after a partial shipment, then the order is Shipped and order.shipped is sent once', async () => {
    const { order: o, skus } = await order('account', [3, 1], 10);
    const first = await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku: skus[0], quantity: 2 }, { sku: skus[1], quantity: 1 }] } });
    expect(first.status).toBe(201);
    expect((await call('GET', `/api/orders/${o.id}`, A())).body.orderStatus).toBe('Processing');
    const c = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'Last one out of stock' });
    expect(c.status).toBe(200);
    expect(c.body.orderStatus).toBe('Shipped');
    expect((await call('GET', `/api/orders/${o.id}`, A())).body.orderStatus).toBe('Shipped');
    const shippedEvents = await dbQuery<{ n: string }>(`select count(*) as n from webhook_event where organization_id = $1 and type = 'order.shipped' and data->>'orderId' = $2`, [org.organizationId, o.id]);
    expect(Number(shippedEvents[0].n)).toBe(1);
  });

  test('who may cancel: Admin and the customer\'s rep; a customer user 403, another rep 404, another organization 404', async () => {
    const repNumber = uniq('R');
    const rep = await repToken(org, repNumber);
    const { customerNumber, order: o, skus } = await order('account', [3], 10);
    expect((await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', repNumber } })).status).toBeLessThan(300);
    const buyer = await customerToken(org, { CustomerNumber: customerNumber });
    expectProblem(await cancel(o.id, { reason: 'Buyer' }, buyer), 403);
    expectProblem(await cancel(o.id, { reason: 'Stranger' }, await repToken(org, uniq('R'))), 404);
    const other = await createOrg();
    expectProblem(await call('POST', `/api/orders/${o.id}/cancel`, { base: other.base, token: other.adminToken, body: { reason: 'x' } }), 404);
    expectProblem(await cancel(o.id, { reason: '' }), 400);
    const byRep = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'Rep cancels one' }, rep);
    expect(byRep.status).toBe(200);
  });

  test('when the organization lets buyers cancel, then a buyer cancels their own order before anything shipped, and after a shipment is 409; another customer\'s buyer is 404', async () => {
    const { customerNumber, order: o, skus } = await order('account', [2, 2], 10);
    const buyer = await customerToken(org, { CustomerNumber: customerNumber });
    expectProblem(await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'Not allowed yet' }, buyer), 403);
    const bad = await call('PUT', '/api/organizations/fulfillment-settings', { ...A(), body: { buyersMayCancel: 'yes' } });
    expectProblem(bad, 400);
    expect(Object.keys(bad.body.errors)).toEqual(['buyersMayCancel']);
    const set = await call('PUT', '/api/organizations/fulfillment-settings', { ...A(), body: { buyersMayCancel: true } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ buyersMayCancel: true, backorderEscalationDays: expect.any(Number) });
    expectProblem(await call('PUT', '/api/organizations/fulfillment-settings', { base: org.base, token: buyer, body: { buyersMayCancel: false } }), 403);
    try {
      const stranger = await customerToken(org, { CustomerNumber: (await customerWithProduct(org)).customerNumber });
      expectProblem(await cancel(o.id, { reason: 'Not mine' }, stranger), 404);
      const mine = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'Ordered one too many' }, buyer);
      expect(mine.status).toBe(200);
      expect(mine.body.lines).toEqual([expect.objectContaining({ sku: skus[0], quantity: 1 })]);
      const shipped = await call('POST', `/api/orders/${o.id}/shipments`, { ...A(), body: { lines: [{ sku: skus[1], quantity: 1 }] } });
      expect(shipped.status).toBe(201);
      const late = await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'Too late' }, buyer);
      expectProblem(late, 409);
      expect(late.body.detail).toMatch(/has shipped/);
      // Staff may still cancel what has not shipped.
      expect((await cancel(o.id, { lines: [{ sku: skus[0], quantity: 1 }], reason: 'Seller cancels' })).status).toBe(200);
    } finally {
      await call('PUT', '/api/organizations/fulfillment-settings', { ...A(), body: { buyersMayCancel: false } });
    }
  });
});
