/**
 * Credit notes over HTTP against the real stack (issue 42 item 3; docs/returns.md "Credit notes"):
 * issued by lines or amount and never above what is creditable, numbered CN-000001 per
 * organization, applied as CreditNote payments (the credited invoice first, then oldest due
 * first, or as chosen) or kept as available credit and applied later; the open balance, the
 * statement of account and its aging exact after credits; a credit releasing a credit hold and
 * ending the dunning process; the PDF in object storage; who may see and issue them.
 */
import { call, createOrg, customerToken, dbQuery, expectProblem, repToken, uniq, type OrgFixture } from './support/helpers';
import { createSalesRep, customerWithProduct, ensurePriceTier, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(240_000);
let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
  await ensurePriceTier(org, 'Retail', 'USD');
});
const A = () => ({ base: org.base, token: org.adminToken });
const at = (day: string) => `${day}T00:00:00.000Z`;

async function storeCustomer(repNumber: string | null = null): Promise<string> {
  const customerNumber = uniq('CN');
  const res = await call('PUT', '/api/customers', { ...A(), body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', ...(repNumber ? { repNumber } : {}) } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`store customer failed: ${res.status} ${res.text}`);
  return customerNumber;
}

/** An issued invoice of the customer with the given lines, dated and due as given. */
async function invoice(customerNumber: string, items: { sku: string; quantity: number; price: number }[], dates: { invoiceDate: string; dueDate: string }) {
  const body = invoiceBody({ ...dates, items: items.map((i) => ({ ...i, productName: `Product ${i.sku}` })) });
  body.customer.customerNumber = customerNumber;
  const created = await call('POST', '/api/invoices', { ...A(), body });
  expect(created.status).toBe(201);
  const issued = await call('POST', `/api/invoices/${created.body.id}/issue`, A());
  expect(issued.status).toBe(200);
  return issued.body;
}
const issue = (body: Record<string, unknown>, token = org.adminToken) => call('POST', '/api/credit-notes', { base: org.base, token, body });
const getInvoice = async (id: string) => (await call('GET', `/api/invoices/${id}`, A())).body;
const credit = async (customerNumber: string) => (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body;
const events = (type: string, creditNoteId: string) =>
  dbQuery<{ data: Record<string, any> }>(`select data from webhook_event where organization_id = $1 and type = $2 and data->>'creditNoteId' = $3 order by occurred_at`, [org.organizationId, type, creditNoteId]);

describe('credit notes', () => {
  test('when staff credit lines of an invoice, then a CN numbered note is applied to that invoice as a CreditNote payment; more than is left is 400 naming the field; Draft invoices are 409', async () => {
    const customerNumber = await storeCustomer();
    const inv = await invoice(customerNumber, [{ sku: 'W-1', quantity: 4, price: 25 }, { sku: 'W-2', quantity: 1, price: 100 }], { invoiceDate: at('2026-05-01'), dueDate: at('2026-05-31') });
    expect(inv.total).toBe(200);

    const first = await issue({ invoiceId: inv.id, lines: [{ sku: 'W-1', quantity: 2 }], reason: 'Two damaged in transit' });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe(`/api/credit-notes/${first.body.creditNoteId}`);
    expect(first.body).toMatchObject({
      creditNoteNumber: expect.stringMatching(/^CN-\d{6}$/),
      status: 'Applied',
      invoiceId: inv.id,
      invoiceNumber: inv.invoiceNumber,
      customerNumber,
      amount: 50,
      amountApplied: 50,
      available: 0,
      merchandiseAmount: 50,
      lines: [{ sku: 'W-1', productName: 'Product W-1', quantity: 2, price: 25, amount: 50 }],
      applications: [{ invoiceId: inv.id, invoiceNumber: inv.invoiceNumber, amount: 50 }],
      source: 'Manual',
    });
    const after = await getInvoice(inv.id);
    expect(after).toMatchObject({ status: 'PartiallyPaid', amountPaid: 50, balance: 150 });
    expect(after.payments).toEqual([expect.objectContaining({ paymentId: first.body.applications[0].paymentId, method: 'CreditNote', amount: 50, reference: first.body.creditNoteNumber })]);
    expect((await events('credit_note.issued', first.body.creditNoteId)).map((e) => e.data)).toEqual([expect.objectContaining({ creditNoteNumber: first.body.creditNoteNumber, amount: '50', invoiceId: inv.id })]);
    expect((await events('credit_note.applied', first.body.creditNoteId)).map((e) => e.data)).toEqual([expect.objectContaining({ invoiceId: inv.id, amount: '50', invoiceStatus: 'PartiallyPaid' })]);

    // Two of W-1 are left: three is too many; the credit is never above what is creditable.
    const tooMany = await issue({ invoiceId: inv.id, lines: [{ sku: 'W-1', quantity: 3 }], reason: 'More' });
    expectProblem(tooMany, 400);
    expect(Object.keys(tooMany.body.errors)).toEqual(['lines[0].quantity']);
    const unknown = await issue({ invoiceId: inv.id, lines: [{ sku: 'NOPE', quantity: 1 }], reason: 'More' });
    expect(Object.keys(unknown.body.errors)).toEqual(['lines[0].sku']);
    const over = await issue({ invoiceId: inv.id, amount: 150.01, reason: 'Goodwill' });
    expectProblem(over, 400);
    expect(over.body.errors.amount[0]).toContain('150');
    expectProblem(await issue({ invoiceId: inv.id, reason: 'Nothing' }), 400);

    // The rest of the invoice, exactly: the invoice is Paid (invoice.paid) and nothing is creditable any more.
    const rest = await issue({ invoiceId: inv.id, amount: 150, reason: 'Settlement' });
    expect(rest.status).toBe(201);
    expect(Number(rest.body.creditNoteNumber.slice(3))).toBe(Number(first.body.creditNoteNumber.slice(3)) + 1);
    expect(await getInvoice(inv.id)).toMatchObject({ status: 'Paid', balance: 0, amountPaid: 200 });
    const paidEvents = await dbQuery(`select 1 from webhook_event where organization_id = $1 and type = 'invoice.paid' and data->>'invoiceId' = $2`, [org.organizationId, inv.id]);
    expect(paidEvents.length).toBeLessThanOrEqual(1); // written only while a subscription exists; never twice
    expectProblem(await issue({ invoiceId: inv.id, amount: 0.01, reason: 'Again' }), 400);
    // A CreditNote payment is not money received: it cannot be refunded.
    const refund = await call('POST', `/api/invoices/${inv.id}/refunds`, { ...A(), body: { amount: 10, paymentId: first.body.applications[0].paymentId } });
    expectProblem(refund, 400);
    expect(Object.keys(refund.body.errors)).toEqual(['paymentId']);

    const draft = await call('POST', '/api/invoices', { ...A(), body: { ...invoiceBody(), customer: { customerNumber } } });
    expectProblem(await issue({ invoiceId: draft.body.id, amount: 1, reason: 'Draft' }), 409);

    // The PDF is stored in object storage and names the note and the invoice.
    const pdf = await fetch(`${org.base}/api/credit-notes/${first.body.creditNoteId}/pdf`, { headers: { authorization: `Bearer ${org.adminToken}` } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const [stored] = await dbQuery<{ pdf_key: string }>(`select pdf_key from credit_note where organization_id = $1 and id = $2`, [org.organizationId, first.body.creditNoteId]);
    expect(stored.pdf_key).toBe(`documents/credit-notes/${org.organizationId}/${first.body.creditNoteId}.pdf`);
  });

  test('when credit is kept as available credit, then the open balance, the statement and its aging are exact; applying it later goes oldest due first and closes the invoices it covers', async () => {
    const customerNumber = await storeCustomer();
    expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 1000 } })).status).toBe(200);
    // asOf 2026-06-30: old is 61 days past due, mid 30, young not yet due.
    const old = await invoice(customerNumber, [{ sku: 'A', quantity: 1, price: 120.5 }], { invoiceDate: at('2026-03-01'), dueDate: at('2026-04-30') });
    const mid = await invoice(customerNumber, [{ sku: 'B', quantity: 3, price: 33.33 }], { invoiceDate: at('2026-05-01'), dueDate: at('2026-05-31') });
    const young = await invoice(customerNumber, [{ sku: 'C', quantity: 1, price: 200 }], { invoiceDate: at('2026-06-01'), dueDate: at('2026-07-01') });
    expect((await credit(customerNumber)).openBalance).toBe(420.49);

    expectProblem(await issue({ invoiceId: mid.id, amount: 100, reason: 'More than the invoice', apply: 'None' }), 400);
    const kept = await issue({ invoiceId: young.id, amount: 150.25, reason: 'Volume rebate', apply: 'None' });
    expect(kept.status).toBe(201);
    expect(kept.body).toMatchObject({ status: 'Open', amount: 150.25, amountApplied: 0, available: 150.25, applications: [], lines: [] });
    expect((await getInvoice(young.id)).status).toBe('Issued');
    expect(await credit(customerNumber)).toMatchObject({ openBalance: 270.24, availableCredit: 729.76 });

    const st = await call('GET', `/api/customers/${customerNumber}/statement?asOf=2026-06-30`, A());
    expect(st.status).toBe(200);
    expect(st.body.invoices.map((i: any) => [i.invoiceNumber, i.balance, i.bucket])).toEqual([
      [old.invoiceNumber, 120.5, '61-90'],
      [mid.invoiceNumber, 99.99, '1-30'],
      [young.invoiceNumber, 200, 'current'],
    ]);
    expect(st.body.aging.map((a: any) => [a.bucket, a.count, a.amount])).toEqual([
      ['current', 1, 200],
      ['1-30', 1, 99.99],
      ['31-60', 0, 0],
      ['61-90', 1, 120.5],
      ['90+', 0, 0],
    ]);
    expect(st.body.credits).toEqual([expect.objectContaining({ creditNoteId: kept.body.creditNoteId, creditNoteNumber: kept.body.creditNoteNumber, invoiceNumber: young.invoiceNumber, amount: 150.25, available: 150.25 })]);
    expect(st.body).toMatchObject({ unappliedCredit: 150.25, totalDue: 270.24, openBalance: 270.24 });
    // Its PDF variant shows the unapplied credit too.
    const pdf = await fetch(`${org.base}/api/customers/${customerNumber}/statement/pdf?asOf=2026-06-30`, { headers: { authorization: `Bearer ${org.adminToken}` } });
    expect(pdf.status).toBe(200);

    // A rep of another customer cannot apply it (404: not visible); a customer user cannot (403).
    const stranger = await repToken(org, uniq('R'));
    expectProblem(await call('POST', `/api/credit-notes/${kept.body.creditNoteId}/apply`, { base: org.base, token: stranger, body: {} }), 404);
    const buyer = await customerToken(org, { CustomerNumber: customerNumber });
    expectProblem(await call('POST', `/api/credit-notes/${kept.body.creditNoteId}/apply`, { base: org.base, token: buyer, body: {} }), 403);

    // Staff's choice first: 20 on mid; over a balance or over what is available is 400 naming the entry.
    const bad = await call('POST', `/api/credit-notes/${kept.body.creditNoteId}/apply`, { ...A(), body: { apply: 'Chosen', applyTo: [{ invoiceId: mid.id, amount: 100 }] } });
    expectProblem(bad, 400);
    expect(Object.keys(bad.body.errors)).toEqual(['applyTo[0].amount']);
    const chosen = await call('POST', `/api/credit-notes/${kept.body.creditNoteId}/apply`, { ...A(), body: { apply: 'Chosen', applyTo: [{ invoiceId: mid.id, amount: 20 }] } });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ status: 'PartiallyApplied', amountApplied: 20, available: 130.25 });
    expect(await getInvoice(mid.id)).toMatchObject({ status: 'PartiallyPaid', balance: 79.99 });

    // Then oldest due first: old (120.50) is paid, the rest (9.75) goes to mid.
    const later = await call('POST', `/api/credit-notes/${kept.body.creditNoteId}/apply`, { ...A(), body: {} });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ status: 'Applied', amountApplied: 150.25, available: 0 });
    expect(later.body.applications.map((a: any) => [a.invoiceNumber, a.amount])).toEqual([
      [mid.invoiceNumber, 20],
      [old.invoiceNumber, 120.5],
      [mid.invoiceNumber, 9.75],
    ]);
    expect(await getInvoice(old.id)).toMatchObject({ status: 'Paid', balance: 0 });
    expect(await getInvoice(mid.id)).toMatchObject({ status: 'PartiallyPaid', balance: 70.24 });
    expectProblem(await call('POST', `/api/credit-notes/${kept.body.creditNoteId}/apply`, { ...A(), body: {} }), 409);

    const st2 = await call('GET', `/api/customers/${customerNumber}/statement?asOf=2026-06-30`, A());
    expect(st2.body.aging.map((a: any) => [a.bucket, a.count, a.amount])).toEqual([
      ['current', 1, 200],
      ['1-30', 1, 70.24],
      ['31-60', 0, 0],
      ['61-90', 0, 0],
      ['90+', 0, 0],
    ]);
    expect(st2.body).toMatchObject({ credits: [], unappliedCredit: 0, totalDue: 270.24, openBalance: 270.24 });
    expect((await events('credit_note.applied', kept.body.creditNoteId)).map((e) => [e.data.invoiceId, e.data.amount])).toEqual([
      [mid.id, '20'],
      [old.id, '120.5'],
      [mid.id, '9.75'],
    ]);
  });

  test('when a credit note pays the invoice that holds the customer\'s credit, then the hold is released at once and the dunning process ends with the release event', async () => {
    const { customerNumber, sku } = await customerWithProduct(org, { price: 50 });
    expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 500 } })).status).toBe(200);
    const cart = await call('POST', `/api/carts/${customerNumber}`, { ...A(), body: { customerNumber, sku, quantity: 2, orderType: 'Standard' } });
    const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
    await call('PUT', `/api/carts/${customerNumber}/${cart.body.shoppingCartId}/shipping`, { ...A(), body: { customerNumber, shippingAddress: address } });
    const done = await call('POST', `/api/carts/${customerNumber}/${cart.body.shoppingCartId}/complete-checkout`, { ...A(), body: { customerNumber, channel: 'Web', payment: { method: 'OnAccount' } } });
    expect(done.status).toBe(200);
    const orders = await call('GET', `/api/orders?filters=${encodeURIComponent(JSON.stringify([{ field: 'orderNumber', operator: 'equals', value: done.body.orderNumber }]))}`, A());
    const orderId = orders.body.data[0].id as string;
    const inv = (await call('GET', `/api/invoices?orderId=${orderId}`, A())).body.items[0];

    // The shortened dunning schedule puts the customer on hold about 42 s after issue.
    const deadline = Date.now() + 120_000;
    while (!(await credit(customerNumber)).creditHold) {
      if (Date.now() > deadline) throw new Error('no credit hold');
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(await credit(customerNumber)).toMatchObject({ creditHold: true, holdInvoiceNumbers: [inv.invoiceNumber], openBalance: 100 });

    const cn = await issue({ invoiceId: inv.id, lines: [{ sku, quantity: 2 }], reason: 'Goods returned unopened' });
    expect(cn.status).toBe(201);
    expect(cn.body).toMatchObject({ orderId, orderNumber: done.body.orderNumber, amount: 100, status: 'Applied' });
    expect(await credit(customerNumber)).toMatchObject({ creditHold: false, holdInvoiceNumbers: [], openBalance: 0, availableCredit: 500 });
    expect((await getInvoice(inv.id)).status).toBe('Paid');

    // The dunning workflow woke on the signal, saw the invoice closed and recorded the release once.
    const released = () => dbQuery(`select 1 from webhook_event where organization_id = $1 and type = 'customer.credit_hold_released' and data->>'invoiceId' = $2`, [org.organizationId, inv.id]);
    const until = Date.now() + 15_000;
    while (!(await released()).length) {
      if (Date.now() > until) throw new Error('no credit_hold_released event');
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await released()).toHaveLength(1);

    // The order's credit notes are listed by orderId.
    const byOrder = await call('GET', `/api/credit-notes?orderId=${orderId}`, A());
    expect(byOrder.body).toMatchObject({ TotalCount: 1, Data: [expect.objectContaining({ creditNoteId: cn.body.creditNoteId })] });
  });

  test('who may issue and see credit notes: Admin issues; a rep gets 403; a customer user sees only its own customer\'s; another customer, rep or organization gets 404', async () => {
    const repNumber = uniq('R');
    const rep = await repToken(org, repNumber);
    const mine = await storeCustomer(repNumber);
    const theirs = await storeCustomer();
    const invMine = await invoice(mine, [{ sku: 'X', quantity: 1, price: 10 }], { invoiceDate: at('2026-06-01'), dueDate: at('2026-07-01') });
    const invTheirs = await invoice(theirs, [{ sku: 'Y', quantity: 1, price: 10 }], { invoiceDate: at('2026-06-01'), dueDate: at('2026-07-01') });
    expectProblem(await issue({ invoiceId: invMine.id, amount: 1, reason: 'Rep credit' }, rep), 403);
    const cnMine = (await issue({ invoiceId: invMine.id, amount: 1, reason: 'Mine', apply: 'None' })).body;
    const cnTheirs = (await issue({ invoiceId: invTheirs.id, amount: 2, reason: 'Theirs', apply: 'None' })).body;

    const buyer = await customerToken(org, { CustomerNumber: mine });
    const list = await call('GET', '/api/credit-notes?pageSize=100', { base: org.base, token: buyer });
    expect(list.status).toBe(200);
    expect(list.body.Data.map((n: any) => n.creditNoteId)).toEqual([cnMine.creditNoteId]);
    expect((await call('GET', `/api/credit-notes/${cnMine.creditNoteId}`, { base: org.base, token: buyer })).body.creditNoteNumber).toBe(cnMine.creditNoteNumber);
    expectProblem(await call('GET', `/api/credit-notes/${cnTheirs.creditNoteId}`, { base: org.base, token: buyer }), 404);
    expectProblem(await call('GET', `/api/credit-notes/${cnTheirs.creditNoteId}/pdf`, { base: org.base, token: buyer }), 404);
    expectProblem(await call('POST', '/api/credit-notes', { base: org.base, token: buyer, body: { invoiceId: invMine.id, amount: 1, reason: 'x' } }), 403);

    // The rep sees its customer's note and may apply it; not the other customer's.
    expect((await call('GET', `/api/credit-notes/${cnMine.creditNoteId}`, { base: org.base, token: rep })).status).toBe(200);
    expectProblem(await call('GET', `/api/credit-notes/${cnTheirs.creditNoteId}`, { base: org.base, token: rep }), 404);
    const applied = await call('POST', `/api/credit-notes/${cnMine.creditNoteId}/apply`, { base: org.base, token: rep, body: {} });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ status: 'Applied', applications: [expect.objectContaining({ invoiceId: invMine.id, amount: 1 })] });

    // Filters and paging like other lists.
    const filtered = await call('GET', `/api/credit-notes?filters=${encodeURIComponent(JSON.stringify([{ field: 'customerNumber', operator: 'equals', value: theirs }]))}`, A());
    expect(filtered.body).toMatchObject({ TotalCount: 1, PageNumber: 1, Data: [expect.objectContaining({ creditNoteId: cnTheirs.creditNoteId })] });
    expectProblem(await call('GET', '/api/credit-notes?invoiceId=nope', A()), 400);
    expectProblem(await call('GET', `/api/credit-notes?filters=${encodeURIComponent(JSON.stringify([{ field: 'secret', operator: 'equals', value: 'x' }]))}`, A()), 400);

    // Another organization: neither the note nor the invoice exists there.
    expectProblem(await call('GET', `/api/credit-notes/${cnMine.creditNoteId}`, { base: other.base, token: other.adminToken }), 404);
    const foreign = await call('POST', '/api/credit-notes', { base: other.base, token: other.adminToken, body: { invoiceId: invMine.id, amount: 1, reason: 'x' } });
    expectProblem(foreign, 404);
    expect((await call('GET', '/api/credit-notes', { base: other.base, token: other.adminToken })).body.TotalCount).toBe(0);
    expectProblem(await call('GET', '/api/credit-notes', { base: org.base }), 401);
  });
  test('when an invoice of an Approved commission statement is credited, then the rep\'s commission is clawed back as for a refund of the credited amount, once', async () => {
    const rep = await createSalesRep(org);
    const plan = await call('POST', '/api/commissions/plans', { ...A(), body: { SalesRepId: rep.salesRepId, Name: 'Flat', DefaultRate: 0.05, EffectiveStartDate: '2026-01-01T00:00:00Z', Active: true } });
    expect(plan.status).toBe(201);
    const body = invoiceBody({ invoiceDate: '2026-03-05T12:00:00.000Z', dueDate: '2026-12-31T00:00:00.000Z', items: [{ sku: 'K-1', productName: 'K', quantity: 2, price: 100 }] });
    body.primarySalesRep = { ...body.primarySalesRep, repNumber: rep.repNumber };
    const created = await call('POST', '/api/invoices', { ...A(), body });
    expect((await call('POST', `/api/invoices/${created.body.id}/issue`, A())).status).toBe(200);
    const st = await call('POST', '/api/commissions/statements', { ...A(), body: { salesRepId: rep.salesRepId, startDate: '2026-03-01', endDate: '2026-03-31' } });
    expect(st.status).toBe(202);
    const deadline = Date.now() + 60_000;
    let draft;
    for (;;) {
      draft = await call('GET', `/api/commissions/statements/${st.body.statementId}`, A());
      if (draft.body.status === 'Draft') break;
      if (Date.now() > deadline) throw new Error('statement not Draft');
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(draft.body.totalCommission).toBe(10);
    expect((await call('POST', `/api/commissions/statements/${st.body.statementId}/approve`, A())).status).toBe(200);

    const cn = await issue({ invoiceId: created.body.id, amount: 50, reason: 'Price adjustment' });
    expect(cn.status).toBe(201);
    const pending = await call('GET', `/api/commissions/clawbacks?salesRepId=${rep.salesRepId}`, A());
    expect(pending.status).toBe(200);
    // 10.00 x 50 / 200 = 2.50, as a refund of 50 would.
    expect(pending.body.clawbacks.map((x: any) => [x.invoiceNumber, x.cause, x.amount])).toEqual([[created.body.invoiceNumber, `refund:credit-note:${cn.body.creditNoteNumber}`, -2.5]]);
  });
});
