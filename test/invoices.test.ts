import { randomUUID } from 'node:crypto';
import { call, createOrg, customerToken, uniq, type OrgFixture } from './support/helpers';
import { invoiceBody } from './support/matrix-fixtures';

let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
});

const post = (path: string, body?: unknown, token = org.adminToken, headers?: Record<string, string>) => call('POST', path, { token, body, headers });
const get = (path: string, token = org.adminToken) => call('GET', path, { token });

async function create(overrides: Record<string, unknown> = {}) {
  const res = await post('/api/invoices', invoiceBody(overrides));
  expect(res.status).toBe(201);
  return res.body;
}
async function issued(overrides: Record<string, unknown> = {}) {
  const inv = await create(overrides);
  const res = await post(`/api/invoices/${inv.id}/issue`);
  expect(res.status).toBe(200);
  return res.body;
}
const pay = (id: string, amount: number, extra: Record<string, unknown> = {}) =>
  post(`/api/invoices/${id}/payments`, { amount, currencyCode: 'USD', method: 'Check', paymentDate: '2026-01-20T00:00:00.000Z', reference: 'CHK-1', ...extra });


describe('POST /api/invoices', () => {
  test('when a valid invoice is created, then it answers 201 in Draft with every SPEC field and exact amounts', async () => {
    const body = invoiceBody({
      items: [
        { sku: 'A', productName: 'A', quantity: 1, price: 33.33 },
        { sku: 'B', productName: 'B', quantity: 1, price: 33.33 },
        { sku: 'C', productName: 'C', quantity: 1, price: 33.33 },
      ],
      tax: 7.25,
      discount: { code: 'TEN', type: 'Percentage', value: 10, description: 'Ten off' },
      poNumber: 'PO-1',
      notes: 'Thanks',
      externalId: uniq('ext'),
    });
    const res = await post('/api/invoices', body);
    expect(res.status).toBe(201);
    const inv = res.body;
    expect(Object.keys(inv)).toEqual(
      expect.arrayContaining(['id', 'organizationId', 'orderId', 'orderNumber', 'invoiceNumber', 'externalId', 'status', 'invoiceDate', 'dueDate', 'terms', 'currencyCode', 'poNumber', 'notes', 'customer', 'primarySalesRep', 'items', 'payments', 'discount', 'subtotal', 'subtotalFormatted', 'discountAmount', 'discountAmountFormatted', 'tax', 'taxFormatted', 'total', 'totalFormatted', 'amountPaid', 'amountPaidFormatted', 'balance', 'balanceFormatted']),
    );
    expect(inv).toMatchObject({
      organizationId: org.organizationId,
      orderId: body.orderId,
      orderNumber: body.orderNumber,
      externalId: body.externalId,
      status: 'Draft',
      invoiceDate: '2026-01-10T00:00:00.000Z',
      dueDate: '2026-02-09T00:00:00.000Z',
      terms: 'Net30',
      currencyCode: 'USD',
      poNumber: 'PO-1',
      notes: 'Thanks',
      subtotal: 99.99,
      subtotalFormatted: '$99.99',
      discountAmount: 10,
      discountAmountFormatted: '$10.00',
      tax: 7.25,
      total: 97.24,
      totalFormatted: '$97.24',
      amountPaid: 0,
      balance: 97.24,
      balanceFormatted: '$97.24',
      payments: [],
      discount: { code: 'TEN', type: 'Percentage', value: 10, description: 'Ten off' },
    });
    expect(inv.invoiceNumber).toMatch(/^INV-\d{6}$/);
    expect(inv.customer).toEqual({ customerNumber: body.customer.customerNumber, companyName: body.customer.companyName, companyEmail: body.customer.companyEmail, companyPhone: '555-0100', billingAddress: body.customer.billingAddress, shippingAddress: null });
    expect(inv.primarySalesRep).toEqual({ repNumber: 'R1', firstName: 'Sam', lastName: 'Seller', fullName: 'Sam Seller', email: 'sam@example.com', phoneNumber: '555-0101' });
    expect(inv.items[0]).toEqual({ sku: 'A', productName: 'A', quantity: 1, price: 33.33, lineTotal: 33.33, priceFormatted: '$33.33', lineTotalFormatted: '$33.33' });
  });

  test('when required fields are missing or wrong, then 400 names every one', async () => {
    const res = await post('/api/invoices', { customer: {}, items: [], currencyCode: 'usd', invoiceDate: 'yesterday', discount: { type: 'Half', value: 1 } });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(
      expect.arrayContaining(['orderId', 'customer.customerNumber', 'primarySalesRep', 'invoiceDate', 'dueDate', 'terms', 'currencyCode', 'items', 'discount.type']),
    );
  });

  test('when an invoiceNumber is supplied, then it is kept, and a second use in the organization is a 409', async () => {
    const n = uniq('X-');
    const inv = await create({ invoiceNumber: n });
    expect(inv.invoiceNumber).toBe(n);
    expect((await post('/api/invoices', invoiceBody({ invoiceNumber: n }))).status).toBe(409);
    const elsewhere = await call('POST', '/api/invoices', { token: other.adminToken, body: invoiceBody({ invoiceNumber: n }) });
    expect(elsewhere.status).toBe(201);
  });

  test('when fifty invoices are created at once in one organization, then they get fifty distinct consecutive numbers', async () => {
    const o = await createOrg();
    const results = await Promise.all(Array.from({ length: 50 }, () => call('POST', '/api/invoices', { token: o.adminToken, body: invoiceBody() })));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const numbers = results.map((r) => Number(String(r.body.invoiceNumber).replace('INV-', ''))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  test('when imported totals are given, then the total is overridden and the paid amount derives from the balance', async () => {
    const inv = await create({ importedInvoiceTotal: 150.1, importedBalance: 50.05 });
    expect(inv).toMatchObject({ total: 150.1, amountPaid: 100.05, balance: 50.05, importedInvoiceTotal: 150.1, importedBalance: 50.05, status: 'Draft' });
  });
});

describe('GET /api/invoices and /api/invoices/{id}', () => {
  let lo: OrgFixture;
  let a: any;
  let b: any;
  beforeAll(async () => {
    lo = await createOrg();
    const mk = async (over: Record<string, unknown>) => (await call('POST', '/api/invoices', { token: lo.adminToken, body: invoiceBody(over) })).body;
    a = await mk({ customer: { customerNumber: 'CUST-A', companyName: 'A Co', companyEmail: 'a@example.com' } });
    b = await mk({ customer: { customerNumber: 'CUST-B', companyName: 'B Co', companyEmail: 'b@example.com' }, orderId: randomUUID() });
    await call('POST', `/api/invoices/${b.id}/issue`, { token: lo.adminToken });
  });

  test('when listed without filters, then the envelope has items, totalCount, pageNumber, pageSize, totalPages', async () => {
    const res = await get('/api/invoices', lo.adminToken);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totalCount: 2, pageNumber: 1, pageSize: 25, totalPages: 1 });
    expect(res.body.items.map((i: any) => i.id).sort()).toEqual([a.id, b.id].sort());
  });

  test('when filtered by customerId, orderId and status, then only matching invoices come back', async () => {
    expect((await get('/api/invoices?customerId=CUST-A', lo.adminToken)).body.items.map((i: any) => i.id)).toEqual([a.id]);
    expect((await get(`/api/invoices?orderId=${b.orderId}`, lo.adminToken)).body.items.map((i: any) => i.id)).toEqual([b.id]);
    expect((await get('/api/invoices?status=Issued', lo.adminToken)).body.items.map((i: any) => i.id)).toEqual([b.id]);
    const paged = await get('/api/invoices?page=2&pageSize=1', lo.adminToken);
    expect(paged.body).toMatchObject({ totalCount: 2, pageNumber: 2, pageSize: 1, totalPages: 2 });
    expect(paged.body.items).toHaveLength(1);
    // SPEC's generic pageNumber is another name for page here; both given and different is a 400.
    const generic = await get('/api/invoices?pageNumber=2&pageSize=1', lo.adminToken);
    expect(generic.body).toMatchObject({ pageNumber: 2, items: [{ invoiceNumber: paged.body.items[0].invoiceNumber }] });
    expect((await get('/api/invoices?page=2&pageNumber=2&pageSize=1', lo.adminToken)).body.pageNumber).toBe(2);
    const both = await get('/api/invoices?page=1&pageNumber=2&pageSize=1', lo.adminToken);
    expect(both.status).toBe(400);
    expect(Object.keys(both.body.errors)).toEqual(['pageNumber']);
  });

  test('when status is unknown, orderId malformed or pageSize above 500, then 400 names the parameter', async () => {
    const res = await get('/api/invoices?status=Open&orderId=nope&pageSize=501', lo.adminToken);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['orderId', 'pageSize', 'status']);
  });

  test('when a Customer token reads, then it sees only its own invoices and others answer 404', async () => {
    const tok = await customerToken(lo, { CustomerNumber: 'CUST-A', PriceTier: 'Retail', CurrencyCode: 'USD' });
    const list = await get('/api/invoices', tok);
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: any) => i.id)).toEqual([a.id]);
    expect((await get('/api/invoices?customerId=CUST-B', tok)).body.totalCount).toBe(0);
    expect((await get(`/api/invoices/${a.id}`, tok)).status).toBe(200);
    expect((await get(`/api/invoices/${b.id}`, tok)).status).toBe(404);
    expect((await post(`/api/invoices/${a.id}/issue`, undefined, tok)).status).toBe(403);
  });

  test("when another organization's invoice is read or changed, then 404", async () => {
    expect((await get(`/api/invoices/${a.id}`)).status).toBe(404);
    expect((await post(`/api/invoices/${a.id}/issue`)).status).toBe(404);
    expect((await call('PUT', `/api/invoices/${a.id}`, { token: org.adminToken, body: { notes: 'x' } })).status).toBe(404);
    expect((await get(`/api/invoices/${randomUUID()}`)).status).toBe(404);
    expect((await get('/api/invoices/not-a-uuid')).status).toBe(404);
  });
});

describe('invoice transitions over HTTP', () => {
  test('when a Draft is issued, then 200 Issued; issuing again is a 400 that says why', async () => {
    const inv = await create();
    const res = await post(`/api/invoices/${inv.id}/issue`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Issued');
    const again = await post(`/api/invoices/${inv.id}/issue`);
    expect(again.status).toBe(400);
    expect(again.body.detail).toBe('The invoice is already issued.');
  });

  test('when payments of 20.00 and the rest are recorded, then PartiallyPaid then Paid with exact balances', async () => {
    const inv = await issued({ items: [1, 2, 3].map((i) => ({ sku: `S${i}`, productName: 'P', quantity: 1, price: 33.33 })), tax: 7.25, discount: { type: 'Percentage', value: 10 } });
    expect(inv.total).toBe(97.24);
    const p1 = await pay(inv.id, 20);
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ status: 'PartiallyPaid', amountPaid: 20, balance: 77.24, balanceFormatted: '$77.24' });
    expect(p1.body.payments).toEqual([
      { paymentId: expect.any(String), amount: 20, amountFormatted: '$20.00', refundedAmount: 0, refundedAmountFormatted: '$0.00', currencyCode: 'USD', method: 'Check', status: 'Completed', paymentDate: '2026-01-20T00:00:00.000Z', reference: 'CHK-1', notes: null, cardType: null, last4Digits: null },
    ]);
    const over = await pay(inv.id, 77.25);
    expect(over.status).toBe(400);
    expect(over.body.errors.amount).toEqual(['amount must not exceed the balance of $77.24.']);
    const p2 = await pay(inv.id, 77.24);
    expect(p2.body).toMatchObject({ status: 'Paid', amountPaid: 97.24, balance: 0 });
    const p3 = await pay(inv.id, 1);
    expect(p3.status).toBe(400);
    expect(p3.body.detail).toBe('The invoice is already Paid; it has no balance left.');
    const reissue = await post(`/api/invoices/${inv.id}/issue`);
    expect(reissue.status).toBe(400);
    expect(reissue.body.detail).toBe('The invoice is Paid; only a Draft invoice can be issued.');
  });

  test('when a payment is zero, in another currency or on a Draft, then 400', async () => {
    const draft = await create();
    const d = await pay(draft.id, 5);
    expect(d.status).toBe(400);
    expect(d.body.detail).toBe('The invoice is Draft; issue it before recording payments.');
    const inv = await issued();
    expect((await pay(inv.id, 0)).body.errors.amount).toEqual(['amount must be greater than 0.']);
    expect((await pay(inv.id, 5, { currencyCode: 'EUR' })).body.errors.currencyCode).toEqual(['currencyCode must match the invoice currency USD.']);
    const bad = await post(`/api/invoices/${inv.id}/payments`, { amount: 'ten', method: 'Barter' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['amount', 'currencyCode', 'method', 'paymentDate']);
  });

  test('when two payments arrive at the same moment, then the balance and status account for both', async () => {
    const inv = await issued({ items: [{ sku: 'S', productName: 'P', quantity: 1, price: 100 }] });
    const [r1, r2] = await Promise.all([pay(inv.id, 30), pay(inv.id, 70)]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    const now = (await get(`/api/invoices/${inv.id}`)).body;
    expect(now).toMatchObject({ status: 'Paid', amountPaid: 100, balance: 0 });
    expect(now.payments).toHaveLength(2);
  });

  test('when the same Idempotency-Key is sent twice, then the payment is recorded once', async () => {
    const inv = await issued();
    const key = uniq('idem');
    const a = await post(`/api/invoices/${inv.id}/payments`, { amount: 5, currencyCode: 'USD', method: 'Cash', paymentDate: '2026-01-20T00:00:00Z' }, org.adminToken, { 'Idempotency-Key': key });
    const b = await post(`/api/invoices/${inv.id}/payments`, { amount: 5, currencyCode: 'USD', method: 'Cash', paymentDate: '2026-01-20T00:00:00Z' }, org.adminToken, { 'Idempotency-Key': key });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.payments).toHaveLength(1);
    expect(b.body.amountPaid).toBe(5);
  });

  test('when a Draft or Issued invoice is voided, then Voided; PartiallyPaid, Paid and Voided refuse with 400', async () => {
    const d = await create();
    expect((await post(`/api/invoices/${d.id}/void`)).body.status).toBe('Voided');
    const i = await issued();
    expect((await post(`/api/invoices/${i.id}/void`)).body.status).toBe('Voided');
    const again = await post(`/api/invoices/${i.id}/void`);
    expect(again.status).toBe(400);
    expect(again.body.detail).toBe('The invoice is Voided; a voided invoice cannot be changed.');
    const pp = await issued();
    await pay(pp.id, 1);
    const v = await post(`/api/invoices/${pp.id}/void`);
    expect(v.status).toBe(400);
    expect(v.body.detail).toBe('The invoice is PartiallyPaid; only a Draft or Issued invoice can be voided.');
    const paid = await issued();
    await pay(paid.id, 20);
    expect((await post(`/api/invoices/${paid.id}/void`)).body.detail).toBe('The invoice is Paid; only a Draft or Issued invoice can be voided.');
  });

  test('when invoices in each open state are cancelled, then Cancelled; afterwards every change is a 400', async () => {
    const d = await create();
    const i = await issued();
    const pp = await issued();
    await pay(pp.id, 1);
    const paid = await issued();
    await pay(paid.id, 20);
    for (const inv of [d, i, pp, paid]) {
      const res = await post(`/api/invoices/${inv.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('Cancelled');
    }
    const cancelled = 'The invoice is Cancelled; a cancelled invoice cannot be changed.';
    expect((await post(`/api/invoices/${d.id}/cancel`)).body.detail).toBe(cancelled);
    expect((await post(`/api/invoices/${d.id}/issue`)).body.detail).toBe(cancelled);
    expect((await post(`/api/invoices/${d.id}/void`)).body.detail).toBe(cancelled);
    expect((await pay(i.id, 1)).body.detail).toBe(cancelled);
    expect((await post(`/api/invoices/${paid.id}/refunds`, { amount: 1, reason: 'x' })).body.detail).toBe(cancelled);
    const put = await call('PUT', `/api/invoices/${d.id}`, { token: org.adminToken, body: { notes: 'late' } });
    expect(put.status).toBe(400);
    expect(put.body.detail).toBe(cancelled);
  });

  test('when an issued invoice is edited, then notes change but items are refused; a Draft takes any field', async () => {
    const d = await create();
    const upd = await call('PUT', `/api/invoices/${d.id}`, { token: org.adminToken, body: { items: [{ sku: 'N', productName: 'New', quantity: 3, price: 1.5 }], terms: 'Net15' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ terms: 'Net15', subtotal: 4.5, total: 4.5 });
    const i = await issued();
    const notes = await call('PUT', `/api/invoices/${i.id}`, { token: org.adminToken, body: { notes: 'Call first', poNumber: 'PO-9' } });
    expect(notes.status).toBe(200);
    expect(notes.body).toMatchObject({ notes: 'Call first', poNumber: 'PO-9', status: 'Issued' });
    const items = await call('PUT', `/api/invoices/${i.id}`, { token: org.adminToken, body: { items: [{ sku: 'N', quantity: 1, price: 1 }] } });
    expect(items.status).toBe(400);
    expect(items.body.detail).toBe('The invoice is Issued; only notes and poNumber can be changed after Draft (not items).');
  });

  test('when a discount is applied to a Draft, then totals are recomputed; on an issued invoice it is a 400', async () => {
    const d = await create({ items: [{ sku: 'S', productName: 'P', quantity: 4, price: 25 }] });
    const res = await post(`/api/invoices/${d.id}/discount`, { code: 'FIVE', type: 'Amount', value: 5, description: 'Five off' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ discount: { code: 'FIVE', type: 'Amount', value: 5, description: 'Five off' }, discountAmount: 5, total: 95 });
    expect((await post(`/api/invoices/${d.id}/discount`, { type: 'Percentage', value: 150 })).status).toBe(400);
    const i = await issued();
    const refused = await post(`/api/invoices/${i.id}/discount`, { type: 'Amount', value: 1 });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe('The invoice is Issued; a discount can only be applied to a Draft invoice.');
  });

  test('when a paid invoice is refunded in part and then fully, then PartiallyPaid then Issued; above the paid amount is a 400', async () => {
    const inv = await issued();
    const paid = await pay(inv.id, 20);
    const paymentId = paid.body.payments[0].paymentId;
    expect((await post(`/api/invoices/${inv.id}/refunds`, { amount: 25, reason: 'too much' })).body.errors.amount).toEqual(['amount must not exceed the refundable amount of $20.00.']);
    const r1 = await post(`/api/invoices/${inv.id}/refunds`, { amount: 5, paymentId, reason: 'damaged' });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ status: 'PartiallyPaid', amountPaid: 15, balance: 5 });
    expect(r1.body.payments[0]).toMatchObject({ refundedAmount: 5 });
    expect(r1.body.refunds).toEqual([{ refundId: expect.any(String), paymentId, amount: 5, amountFormatted: '$5.00', reason: 'damaged', createdAt: expect.any(String) }]);
    const r2 = await post(`/api/invoices/${inv.id}/refunds`, { amount: 15, reason: 'returned' });
    expect(r2.body).toMatchObject({ status: 'Issued', amountPaid: 0, balance: 20 });
    const none = await post(`/api/invoices/${inv.id}/refunds`, { amount: 1, reason: 'x' });
    expect(none.status).toBe(400);
    const draft = await create();
    expect((await post(`/api/invoices/${draft.id}/refunds`, { amount: 1, reason: 'x' })).body.detail).toBe('The invoice is Draft; it has no payments to refund.');
  });
});

describe('POST /api/invoices/bulk', () => {
  test('when the same invoices are sent twice, then 201 with one {data:{id, invoiceNumber}, links} each and no duplicates', async () => {
    const o = await createOrg();
    const ext = uniq('ext');
    const num = uniq('B-');
    const invoices = [invoiceBody({ externalId: ext }), invoiceBody({ invoiceNumber: num })];
    const first = await call('POST', '/api/invoices/bulk', { token: o.adminToken, body: { invoices } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual([
      { data: { id: expect.any(String), invoiceNumber: 'INV-000001' }, links: [{ rel: 'self', href: `/api/invoices/${first.body[0].data.id}` }, { rel: 'pdf', href: `/api/invoices/${first.body[0].data.id}/pdf` }] },
      { data: { id: expect.any(String), invoiceNumber: num }, links: expect.any(Array) },
    ]);
    const second = await call('POST', '/api/invoices/bulk', { token: o.adminToken, body: { invoices: [invoiceBody({ externalId: ext, notes: 'updated' }), invoiceBody({ invoiceNumber: num })] } });
    expect(second.status).toBe(201);
    expect(second.body.map((r: any) => r.data)).toEqual(first.body.map((r: any) => r.data));
    const list = await call('GET', '/api/invoices', { token: o.adminToken });
    expect(list.body.totalCount).toBe(2);
    expect((await call('GET', `/api/invoices/${first.body[0].data.id}`, { token: o.adminToken })).body.notes).toBe('updated');
  });

  test('when active is false, then the matching invoice is soft-deleted: gone from lists and GET answers 404', async () => {
    const o = await createOrg();
    const ext = uniq('ext');
    const made = await call('POST', '/api/invoices/bulk', { token: o.adminToken, body: { invoices: [invoiceBody({ externalId: ext })] } });
    const id = made.body[0].data.id;
    const del = await call('POST', '/api/invoices/bulk', { token: o.adminToken, body: { invoices: [invoiceBody({ externalId: ext, active: false })] } });
    expect(del.status).toBe(201);
    expect(del.body[0].data.id).toBe(id);
    expect((await call('GET', `/api/invoices/${id}`, { token: o.adminToken })).status).toBe(404);
    expect((await call('GET', '/api/invoices', { token: o.adminToken })).body.totalCount).toBe(0);
  });

  test('when more than 1000 invoices or a bad one is sent, then 400 names the field', async () => {
    const many = await post('/api/invoices/bulk', { invoices: Array.from({ length: 1001 }, () => ({})) });
    expect(many.status).toBe(400);
    expect(many.body.errors.invoices).toEqual(['invoices must have at most 1000 invoices (use /api/imports for more).']);
    const bad = await post('/api/invoices/bulk', { invoices: [invoiceBody(), invoiceBody({ terms: undefined })] });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['invoices[1].terms']);
  });
});

describe('GET /api/invoices/{id}/pdf before issuance', () => {
  test('when the invoice is still Draft, then the PDF answers 404', async () => {
    const d = await create();
    const res = await get(`/api/invoices/${d.id}/pdf`);
    expect(res.status).toBe(404);
  });
});
