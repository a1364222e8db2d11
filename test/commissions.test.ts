/**
 * Commission plans and statements over HTTP against the real stack: rule engine results in exact
 * cents, the statement workflow (Draft -> Approved -> Paid, Draft -> Rejected, 409s), clawbacks on
 * the next statement, reminders, tenancy and roles.
 */
import { call, createOrg, customerToken, signTestToken, waitForMail, type OrgFixture } from './support/helpers';
import { createSalesRep, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(120_000);

let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
});

const post = (path: string, body?: unknown, token = org.adminToken) => call('POST', path, { token, body });
const get = (path: string, token = org.adminToken) => call('GET', path, { token });
const repTokenFor = (o: OrgFixture, rep: { repNumber: string; userId: string }) =>
  signTestToken({ OrganizationId: o.organizationId, role: 'SalesRep', roles: ['SalesRep'], RepNumber: rep.repNumber, kind: 'user', cv: 1, UserId: rep.userId });

type Rep = Awaited<ReturnType<typeof createSalesRep>>;

const PLAN = (rep: Rep, extra: Record<string, unknown> = {}) => ({
  SalesRepId: rep.salesRepId,
  Name: 'Standard 2026',
  Description: 'Widgets pay more',
  DefaultRate: 0.05,
  EffectiveStartDate: '2026-01-01T00:00:00Z',
  Rules: [
    { Priority: 2, Name: 'Big lines', Rate: 0.08, Match: { MinLineAmount: 1000 } },
    { Priority: 1, Name: 'Widgets', Rate: 0.1, Match: { SkuPatterns: ['wid-*'] } },
    { Priority: 3, Name: 'Gadget names', Rate: 0.07, Match: { ProductNamePatterns: ['*gadget?'], MaxLineAmount: 500 } },
  ],
  CustomerOverrides: [{ CustomerNumber: 'VIP-1', EffectiveStartDate: '2026-01-01T00:00:00Z', EffectiveEndDate: null, Rules: [{ Priority: 1, Name: 'VIP', Rate: 0.15 }] }],
  Active: true,
  ...extra,
});

async function invoice(o: OrgFixture, rep: Rep, opts: { date: string; customer?: string; items: { sku: string; productName: string; quantity: number; price: number }[]; discount?: unknown; issue?: boolean }) {
  const base = invoiceBody({ invoiceDate: `${opts.date}T12:00:00.000Z`, dueDate: '2026-12-31T00:00:00.000Z', items: opts.items, ...(opts.discount ? { discount: opts.discount } : {}) });
  base.primarySalesRep = { ...base.primarySalesRep, repNumber: rep.repNumber };
  if (opts.customer) base.customer = { ...base.customer, customerNumber: opts.customer };
  const res = await call('POST', '/api/invoices', { base: o.base, token: o.adminToken, body: base });
  expect(res.status).toBe(201);
  if (opts.issue !== false) expect((await call('POST', `/api/invoices/${res.body.id}/issue`, { base: o.base, token: o.adminToken })).status).toBe(200);
  return res.body as { id: string; invoiceNumber: string };
}

async function statement(o: OrgFixture, rep: Rep, startDate: string, endDate: string, want = 'Draft') {
  const res = await call('POST', '/api/commissions/statements', { base: o.base, token: o.adminToken, body: { salesRepId: rep.salesRepId, startDate, endDate } });
  expect(res.status).toBe(202);
  expect(res.body.workflowId).toBe(`commission-statement-${res.body.statementId}`);
  return waitStatus(o, res.body.statementId, want);
}

async function waitStatus(o: OrgFixture, id: string, want: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call('GET', `/api/commissions/statements/${id}`, { base: o.base, token: o.adminToken });
    if (res.status === 200 && res.body.status === want) return res.body;
    if (Date.now() > deadline) throw new Error(`statement ${id} not ${want}: ${res.status} ${res.text.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('commission plans', () => {
  test('when a plan is created, then it answers 201 with SPEC PascalCase fields, rules by priority, exact rates', async () => {
    const rep = await createSalesRep(org);
    const res = await post('/api/commissions/plans', PLAN(rep));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      SalesRepId: rep.salesRepId,
      Name: 'Standard 2026',
      Description: 'Widgets pay more',
      DefaultRate: 0.05,
      EffectiveStartDate: '2026-01-01T00:00:00.000Z',
      EffectiveEndDate: null,
      Active: true,
      CustomerOverrides: [{ CustomerNumber: 'VIP-1', EffectiveStartDate: '2026-01-01T00:00:00.000Z', EffectiveEndDate: null, Rules: [expect.objectContaining({ Name: 'VIP', Rate: 0.15 })] }],
    });
    expect(res.body.Rules.map((r: { Name: string }) => r.Name)).toEqual(['Widgets', 'Big lines', 'Gadget names']);
    expect(res.body.Rules[0]).toEqual({ Priority: 1, Name: 'Widgets', Rate: 0.1, Match: { SkuPatterns: ['wid-*'], ProductNamePatterns: [], CustomerNumbers: [], MinLineAmount: null, MaxLineAmount: null } });
    const id = res.body.CommissionPlanId;
    expect((await get(`/api/commissions/plans/${id}`)).body).toEqual(res.body);
    const list = await get(`/api/commissions/plans?salesRepId=${rep.salesRepId}`);
    expect(list.body).toMatchObject({ TotalCount: 1, PageNumber: 1, PageSize: 25 });
    expect(list.body.Data.map((p: { CommissionPlanId: string }) => p.CommissionPlanId)).toEqual([id]);
  });

  test('when fields are invalid, then 400 names every bad field (rate, duplicate priority, dates, pattern)', async () => {
    const rep = await createSalesRep(org);
    const res = await post(
      '/api/commissions/plans',
      PLAN(rep, {
        DefaultRate: 1.5,
        EffectiveEndDate: '2025-01-01T00:00:00Z',
        Rules: [
          { Priority: 1, Name: 'A', Rate: 0.1, Match: { SkuPatterns: ['  '] } },
          { Priority: 1, Name: 'B', Rate: 0.2 },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors)).toEqual(expect.arrayContaining(['DefaultRate', 'Rules[0].Match.SkuPatterns[0]']));
    const res2 = await post('/api/commissions/plans', PLAN(rep, { EffectiveEndDate: '2025-01-01T00:00:00Z', Rules: [{ Priority: 1, Name: 'A', Rate: 0.1 }, { Priority: 1, Name: 'B', Rate: 2 }] }));
    expect(res2.status).toBe(400);
    expect(Object.keys(res2.body.errors).sort()).toEqual(['Rules[1].Rate']);
    const res3 = await post('/api/commissions/plans', PLAN(rep, { EffectiveEndDate: '2025-01-01T00:00:00Z', Rules: [{ Priority: 1, Name: 'A', Rate: 0.1 }, { Priority: 1, Name: 'B', Rate: 0.2 }] }));
    expect(res3.status).toBe(400);
    expect(Object.keys(res3.body.errors).sort()).toEqual(['EffectiveEndDate', 'Rules[1].Priority']);
  });

  test('when a second plan of the rep is activated, then 409 names the active one; after deactivating it, activation works', async () => {
    const rep = await createSalesRep(org);
    const first = (await post('/api/commissions/plans', PLAN(rep))).body;
    const second = await post('/api/commissions/plans', PLAN(rep, { Active: false, Name: 'Next' }));
    expect(second.status).toBe(201);
    const clash = await post(`/api/commissions/plans/${second.body.CommissionPlanId}/activate`);
    expect(clash.status).toBe(409);
    expect(clash.body.detail).toContain(first.CommissionPlanId);
    expect((await post(`/api/commissions/plans/${first.CommissionPlanId}/deactivate`)).body.Active).toBe(false);
    expect((await post(`/api/commissions/plans/${second.body.CommissionPlanId}/activate`)).body.Active).toBe(true);
  });

  test('when another organization or a non-admin asks, then 404 or 403', async () => {
    const rep = await createSalesRep(org);
    const id = (await post('/api/commissions/plans', PLAN(rep))).body.CommissionPlanId;
    expect((await get(`/api/commissions/plans/${id}`, other.adminToken)).status).toBe(404);
    expect((await post(`/api/commissions/plans/${id}/activate`, undefined, other.adminToken)).status).toBe(404);
    expect((await get(`/api/commissions/plans/${id}`, repTokenFor(org, rep))).status).toBe(403);
  });
});

describe('commission statements', () => {
  let rep: Rep;
  let other1: Rep;
  let a: { id: string; invoiceNumber: string };
  let b: { id: string; invoiceNumber: string };
  let c: { id: string; invoiceNumber: string };
  let paid: { statementId: string };

  beforeAll(async () => {
    rep = await createSalesRep(org);
    other1 = await createSalesRep(org);
    expect((await post('/api/commissions/plans', PLAN(rep))).status).toBe(201);
    expect((await post('/api/commissions/plans', PLAN(other1))).status).toBe(201);
    a = await invoice(org, rep, {
      date: '2026-03-05',
      customer: 'C-1',
      items: [
        { sku: 'WID-100', productName: 'Widget', quantity: 3, price: 33.33 },
        { sku: 'BOLT-1', productName: 'Bolt crate', quantity: 1, price: 1500 },
        { sku: 'NUT-1', productName: 'Nut', quantity: 7, price: 1.15 },
        { sku: 'G-1', productName: 'Mega Gadget2', quantity: 2, price: 12.5 },
      ],
    });
    b = await invoice(org, rep, { date: '2026-03-06', customer: 'VIP-1', items: [{ sku: 'WID-200', productName: 'Widget XL', quantity: 2, price: 50 }] });
    c = await invoice(org, rep, {
      date: '2026-03-31',
      customer: 'C-2',
      items: [
        { sku: 'X-1', productName: 'X one', quantity: 1, price: 100 },
        { sku: 'X-2', productName: 'X two', quantity: 1, price: 200 },
      ],
      discount: { type: 'Amount', value: 10 },
    });
    await invoice(org, rep, { date: '2026-03-10', items: [{ sku: 'WID-1', productName: 'Draft', quantity: 1, price: 999 }], issue: false });
    const voided = await invoice(org, rep, { date: '2026-03-11', items: [{ sku: 'WID-1', productName: 'Void', quantity: 1, price: 999 }] });
    expect((await post(`/api/invoices/${voided.id}/void`)).status).toBe(200);
    await invoice(org, rep, { date: '2026-04-01', items: [{ sku: 'WID-1', productName: 'Later', quantity: 1, price: 999 }] });
    await invoice(org, other1, { date: '2026-03-05', items: [{ sku: 'WID-1', productName: 'Other rep', quantity: 1, price: 999 }] });
  });

  test('when a statement is generated, then each line has its rule and rate and exact cents; Draft and Voided invoices are excluded', async () => {
    const st = await statement(org, rep, '2026-03-01', '2026-03-31');
    paid = st;
    expect(st).toMatchObject({ salesRepId: rep.salesRepId, repNumber: rep.repNumber, startDate: '2026-03-01', endDate: '2026-03-31', status: 'Draft', currencyCode: 'USD', adjustments: [] });
    expect(st.entries.map((e: { invoiceNumber: string }) => e.invoiceNumber)).toEqual([a.invoiceNumber, b.invoiceNumber, c.invoiceNumber]);
    const [ea, eb, ec] = st.entries;
    // SKU wildcard (case-insensitive) 99.99 x 0.10 = 9.999 -> 10.00; line amount >= 1000 at 0.08; default 8.05 x 0.05 = 0.4025 -> 0.40;
    // product-name wildcard 25.00 x 0.07 = 1.75.
    expect(ea).toMatchObject({ invoiceId: a.id, customerNumber: 'C-1', invoiceDate: '2026-03-05T12:00:00.000Z', base: 1633.04, commission: 132.15 });
    expect(ea.lines).toEqual([
      { sku: 'WID-100', productName: 'Widget', quantity: 3, base: 99.99, rule: 'Widgets', rate: 0.1, commission: 10 },
      { sku: 'BOLT-1', productName: 'Bolt crate', quantity: 1, base: 1500, rule: 'Big lines', rate: 0.08, commission: 120 },
      { sku: 'NUT-1', productName: 'Nut', quantity: 7, base: 8.05, rule: 'Default', rate: 0.05, commission: 0.4 },
      { sku: 'G-1', productName: 'Mega Gadget2', quantity: 2, base: 25, rule: 'Gadget names', rate: 0.07, commission: 1.75 },
    ]);
    // The customer override beats the SKU rule.
    expect(eb).toMatchObject({ customerNumber: 'VIP-1', base: 100, commission: 15 });
    expect(eb.lines[0]).toMatchObject({ rule: 'VIP', rate: 0.15, commission: 15 });
    // Discount 10.00 spread 3.33 / 6.67: bases 96.67 and 193.33; 4.8335 -> 4.83, 9.6665 -> 9.67.
    expect(ec).toMatchObject({ base: 290, commission: 14.5 });
    expect(ec.lines.map((l: { base: number; commission: number; rule: string }) => [l.base, l.commission, l.rule])).toEqual([
      [96.67, 4.83, 'Default'],
      [193.33, 9.67, 'Default'],
    ]);
    expect(st.totalCommission).toBe(161.65);
    expect(st.payableTotal).toBe(161.65);
    expect(st.events.map((e: { type: string }) => e.type).slice(0, 2)).toEqual(['Requested', 'Generated']);
  });

  test('when a period overlaps a statement that is not Rejected, then 409', async () => {
    const res = await post('/api/commissions/statements', { salesRepId: rep.salesRepId, startDate: '2026-03-31', endDate: '2026-04-15' });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain(paid.statementId);
    // The same days written as date-times at midnight UTC mean the same period (so the same overlap); another instant is refused, not guessed.
    const asInstants = await post('/api/commissions/statements', { salesRepId: rep.salesRepId, startDate: '2026-03-31T00:00:00Z', endDate: '2026-04-15T02:00:00+02:00' });
    expect(asInstants.status).toBe(409);
    const unclear = await post('/api/commissions/statements', { salesRepId: rep.salesRepId, startDate: '2026-03-31T12:00:00Z', endDate: '2026-04-15' });
    expect(unclear.status).toBe(400);
    expect(Object.keys(unclear.body.errors)).toEqual(['startDate']);
  });

  test('when a rep token reads, then it sees only its own statements; finance actions are 403 for it', async () => {
    const mine = repTokenFor(org, rep);
    const theirs = await statement(org, other1, '2026-03-01', '2026-03-31');
    const list = await get('/api/commissions/statements', mine);
    expect(list.status).toBe(200);
    expect(list.body.Data.map((s: { statementId: string }) => s.statementId)).toEqual([paid.statementId]);
    expect(list.body.TotalCount).toBe(1);
    expect((await get(`/api/commissions/statements/${paid.statementId}`, mine)).status).toBe(200);
    expect((await get(`/api/commissions/statements/${theirs.statementId}`, mine)).status).toBe(404);
    expect((await post(`/api/commissions/statements/${paid.statementId}/approve`, undefined, mine)).status).toBe(403);
    const cust = await customerToken(org, { CustomerNumber: 'C-1' });
    expect((await get('/api/commissions/statements', cust)).status).toBe(403);
    // The rep's own user made an admin may still not approve their own statement.
    expect((await post('/api/organizations/users/admins', { Email: rep.email })).status).toBe(200);
    const selfAdmin = signTestToken({ OrganizationId: org.organizationId, role: 'Admin', roles: ['Admin'], kind: 'user', cv: 1, UserId: rep.userId });
    const self = await post(`/api/commissions/statements/${paid.statementId}/approve`, undefined, selfAdmin);
    expect(self.status).toBe(403);
    expect(self.body.detail).toContain('own');
    // Another organization: 404.
    expect((await get(`/api/commissions/statements/${paid.statementId}`, other.adminToken)).status).toBe(404);
    expect((await post(`/api/commissions/statements/${paid.statementId}/approve`, undefined, other.adminToken)).status).toBe(404);
    // Draft -> Rejected: final, and the period is free again.
    const rej = await post(`/api/commissions/statements/${theirs.statementId}/reject`, { reason: 'Wrong period' });
    expect(rej.status).toBe(200);
    expect(rej.body).toMatchObject({ status: 'Rejected', rejectedReason: 'Wrong period' });
    expect(rej.body.events.map((e: { type: string }) => e.type)).toContain('Rejected');
    expect((await post(`/api/commissions/statements/${theirs.statementId}/approve`)).status).toBe(409);
    const key = { 'Idempotency-Key': `again-${theirs.statementId}` };
    const again = await call('POST', '/api/commissions/statements', { token: org.adminToken, headers: key, body: { salesRepId: other1.salesRepId, startDate: '2026-03-01', endDate: '2026-03-31' } });
    expect(again.status).toBe(202);
    // The same Idempotency-Key replays the first answer instead of a 409 or a second statement.
    const replay = await call('POST', '/api/commissions/statements', { token: org.adminToken, headers: key, body: { salesRepId: other1.salesRepId, startDate: '2026-03-01', endDate: '2026-03-31' } });
    expect(replay.status).toBe(202);
    expect(replay.body.statementId).toBe(again.body.statementId);
    const listed = await get(`/api/commissions/statements?salesRepId=${other1.salesRepId}&sortOn=CreatedAt`);
    expect(listed.body.Data.map((x: { statementId: string; status: string }) => [x.statementId, x.status])).toEqual([
      [theirs.statementId, 'Rejected'],
      [again.body.statementId, expect.any(String)],
    ]);
    const rejected = await get(`/api/commissions/statements?status=Rejected&salesRepId=${other1.salesRepId}`);
    expect(rejected.body).toMatchObject({ TotalCount: 1, PageNumber: 1, PageSize: 25, Data: [{ statementId: theirs.statementId, totalCommission: theirs.totalCommission }] });
    expect((await get('/api/commissions/statements?status=Done')).status).toBe(400);
  });

  test('when finance recalculates, approves and marks paid, then each step answers the new state and is in events; wrong moves are 409', async () => {
    expect((await post(`/api/commissions/statements/${paid.statementId}/mark-paid`, { paymentReference: 'PAY-1', paidAt: '2026-04-05T00:00:00Z' })).status).toBe(409);
    const re = await post(`/api/commissions/statements/${paid.statementId}/recalculate`);
    expect(re.status).toBe(200);
    expect(re.body).toMatchObject({ status: 'Draft', totalCommission: 161.65 });
    const ap = await post(`/api/commissions/statements/${paid.statementId}/approve`);
    expect(ap.status).toBe(200);
    expect(ap.body).toMatchObject({ status: 'Approved', approvedBy: org.adminUserId, totalCommission: 161.65 });
    expect(ap.body.approvedAt).toEqual(expect.any(String));
    expect((await post(`/api/commissions/statements/${paid.statementId}/approve`)).status).toBe(409);
    expect((await post(`/api/commissions/statements/${paid.statementId}/recalculate`)).status).toBe(409);
    expect((await post(`/api/commissions/statements/${paid.statementId}/reject`, { reason: 'late' })).status).toBe(409);
    const pd = await post(`/api/commissions/statements/${paid.statementId}/mark-paid`, { paymentReference: 'PAY-1', paidAt: '2026-04-05T00:00:00Z' });
    expect(pd.status).toBe(200);
    expect(pd.body).toMatchObject({ status: 'Paid', paymentReference: 'PAY-1', paidAt: '2026-04-05T00:00:00.000Z' });
    expect(pd.body.events.map((e: { type: string }) => e.type).filter((t: string) => t !== 'ReminderSent')).toEqual(['Requested', 'Generated', 'Recalculated', 'Approved', 'Paid']);
    expect((await post(`/api/commissions/statements/${paid.statementId}/mark-paid`, { paymentReference: 'PAY-2', paidAt: '2026-04-05T00:00:00Z' })).status).toBe(409);
    const csv = await call('GET', `/api/commissions/statements/${paid.statementId}/export?format=csv`, { token: org.adminToken });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain(`,Commission,${a.invoiceNumber},C-1,2026-03-05T12:00:00.000Z,1633.04,132.15,`);
    const pdf = await fetch(`${org.base}/api/commissions/statements/${paid.statementId}/pdf`, { headers: { authorization: `Bearer ${org.adminToken}` } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const src = Buffer.from(await pdf.arrayBuffer()).toString('latin1');
    expect(src.startsWith('%PDF')).toBe(true);
    // The text drawn by the TJ operators (pdfkit writes hex strings split at kerning adjustments).
    const text = [...src.matchAll(/\[([^\]]*)\]\s*TJ/g)].map((x) => [...x[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => Buffer.from(h[1], 'hex').toString('latin1')).join('')).join('\n');
    expect(text).toContain('Status: Paid');
    expect(text).toContain('Payable: $161.65');
  });

  test('when an invoice of a Paid statement is cancelled or refunded, then the clawback lands on the next statement once', async () => {
    expect((await post(`/api/invoices/${a.id}/cancel`)).status).toBe(200);
    expect((await post(`/api/invoices/${b.id}/payments`, { amount: 100, currencyCode: 'USD', method: 'Check', paymentDate: '2026-03-20T00:00:00Z' })).status).toBe(200);
    expect((await post(`/api/invoices/${b.id}/refunds`, { amount: 40, reason: 'damaged' })).status).toBe(200);
    const pending = await get(`/api/commissions/clawbacks?salesRepId=${rep.salesRepId}`);
    expect(pending.status).toBe(200);
    expect(pending.body.clawbacks.map((x: { invoiceNumber: string; amount: number }) => [x.invoiceNumber, x.amount]).sort()).toEqual(
      [
        [a.invoiceNumber, -132.15],
        [b.invoiceNumber, -6],
      ].sort(),
    );
    await invoice(org, rep, { date: '2026-04-02', items: [{ sku: 'Z-1', productName: 'Z', quantity: 1, price: 200 }] });
    const next = await statement(org, rep, '2026-04-01', '2026-04-30');
    // April: 999 x 0.10 (WID-1) = 99.90 plus 200 x 0.05 = 10.00; clawbacks -132.15 (cancel) and -6.00 (15.00 x 40/100).
    expect(next.totalCommission).toBe(109.9);
    expect(next.adjustments.map((x: { type: string; invoiceNumber: string; amount: number }) => [x.type, x.invoiceNumber, x.amount]).sort()).toEqual(
      [
        ['Clawback', a.invoiceNumber, -132.15],
        ['Clawback', b.invoiceNumber, -6],
      ].sort(),
    );
    expect(next.payableTotal).toBe(-28.25);
    const re = await post(`/api/commissions/statements/${next.statementId}/recalculate`);
    expect(re.body.adjustments).toHaveLength(2);
    expect(re.body.payableTotal).toBe(-28.25);
    expect((await get(`/api/commissions/clawbacks?salesRepId=${rep.salesRepId}`)).body.clawbacks).toEqual([]);
  });

  test('when a Draft waits, then the admins get a reminder e-mail and the event is recorded', async () => {
    const r = await createSalesRep(org);
    const st = await statement(org, r, '2026-05-01', '2026-05-31');
    const mail = await waitForMail(org.adminEmail, (m) => m.subject.includes(r.repNumber), 60_000);
    expect(mail.text).toContain(st.statementId);
    const after = await waitStatus(org, st.statementId, 'Draft');
    expect(after.events.map((e: { type: string }) => e.type)).toContain('ReminderSent');
    expect((await post(`/api/commissions/statements/${st.statementId}/approve`)).status).toBe(200);
  });
});
