/**
 * Statement of account over HTTP against the real stack (issue 23 item 4; docs/credit.md
 * "Statement of account"): aging buckets exact on a fixed set of invoices at every boundary, the
 * PDF variant (a PDF, stored in object storage, naming the customer), the credit hold as the
 * dunning workflow places and a payment releases it, and who may read it.
 */
import { Client } from 'minio';
import { call, createOrg, customerToken, dbQuery, expectProblem, repToken, stack, uniq, type OrgFixture } from './support/helpers';
import { ensurePriceTier, invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(240_000);
let org: OrgFixture;
let other: OrgFixture;
beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
  await ensurePriceTier(org, 'Retail', 'USD');
});
const A = () => ({ base: org.base, token: org.adminToken });

async function storeCustomer(o: OrgFixture, repNumber: string | null = null): Promise<string> {
  const customerNumber = uniq('ST');
  const res = await call('PUT', '/api/customers', { base: o.base, token: o.adminToken, body: { customerNumber, companyName: `Company ${customerNumber}`, companyEmail: `${customerNumber.toLowerCase()}@example.com`, pricing: 'Retail', ...(repNumber ? { repNumber } : {}) } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`store customer failed: ${res.status} ${res.text}`);
  return customerNumber;
}

/** An invoice of the customer with one line of `amount`, dated and due as given; issued unless `draft`. */
async function invoice(customerNumber: string, amount: number, dates: { invoiceDate: string; dueDate: string }, opts: { draft?: boolean; currencyCode?: string } = {}) {
  const body = invoiceBody({ ...dates, currencyCode: opts.currencyCode ?? 'USD', items: [{ sku: 'ST-1', productName: 'Statement widget', quantity: 1, price: amount }] });
  body.customer.customerNumber = customerNumber;
  const created = await call('POST', '/api/invoices', { ...A(), body });
  expect(created.status).toBe(201);
  if (opts.draft) return created.body;
  const issued = await call('POST', `/api/invoices/${created.body.id}/issue`, A());
  expect(issued.status).toBe(200);
  return issued.body;
}
const pay = (id: string, amount: number, currencyCode = 'USD') =>
  call('POST', `/api/invoices/${id}/payments`, { ...A(), body: { amount, currencyCode, method: 'Check', paymentDate: '2026-06-15T00:00:00Z', reference: uniq('CHK') } });
const statement = (customerNumber: string, query = '', token = org.adminToken, base = org.base) => call('GET', `/api/customers/${customerNumber}/statement${query}`, { base, token });
const pdf = (customerNumber: string, query = '', token = org.adminToken, base = org.base) =>
  fetch(`${base}/api/customers/${customerNumber}/statement/pdf${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

/** The text drawn by the PDF's TJ operators (pdfkit writes hex strings split at kerning adjustments). */
function pdfText(data: Buffer): string {
  const src = data.toString('latin1');
  return [...src.matchAll(/\[([^\]]*)\]\s*TJ/g)].map((m) => [...m[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => Buffer.from(h[1], 'hex').toString('latin1')).join('')).join('\n');
}

const at = (day: string) => `${day}T00:00:00.000Z`;

describe('statement of account', () => {
  test('when a customer has open invoices at every aging boundary, then each is aged to asOf and the buckets sum exactly; drafts, paid, voided, later, other customers\' and other currencies\' invoices stay out of the sums', async () => {
    const customerNumber = await storeCustomer(org);
    expect((await call('PUT', `/api/customers/${customerNumber}/credit`, { ...A(), body: { creditLimit: 5000 } })).status).toBe(200);
    const dated = (dueDate: string) => ({ invoiceDate: at('2025-12-01'), dueDate });
    // asOf 2026-06-30: days past due in the comment.
    const J = await invoice(customerNumber, 50, dated(at('2026-01-01'))); // 180, PartiallyPaid below: balance 29.99
    const I = await invoice(customerNumber, 250, dated(at('2026-03-31'))); // 91
    const H = await invoice(customerNumber, 0.99, dated(at('2026-04-01'))); // 90
    const G = await invoice(customerNumber, 1000.01, dated(at('2026-04-30'))); // 61
    const F = await invoice(customerNumber, 33.34, dated(at('2026-05-01'))); // 60
    const P = await invoice(customerNumber, 10, dated(at('2026-05-15')), { currencyCode: 'EUR' }); // 46, another currency
    const E = await invoice(customerNumber, 33.33, dated(at('2026-05-30'))); // 31
    const D = await invoice(customerNumber, 33.33, dated('2026-05-31T18:00:00Z')); // 30 (days count by UTC day)
    const C = await invoice(customerNumber, 0.1, dated(at('2026-06-29'))); // 1
    const B = await invoice(customerNumber, 0.2, dated('2026-06-30T23:30:00Z')); // 0, due that day
    const Af = await invoice(customerNumber, 100.1, { invoiceDate: at('2026-06-30'), dueDate: at('2026-07-15') }); // not yet due
    // Not on the statement as of 2026-06-30:
    const later = await invoice(customerNumber, 5, { invoiceDate: at('2026-07-01'), dueDate: at('2026-07-31') });
    await invoice(customerNumber, 7, dated(at('2026-05-01')), { draft: true });
    const paid = await invoice(customerNumber, 8, dated(at('2026-05-01')));
    expect((await pay(paid.id, 8)).body.status).toBe('Paid');
    const voided = await invoice(customerNumber, 9, dated(at('2026-05-01')));
    expect((await call('POST', `/api/invoices/${voided.id}/void`, A())).body.status).toBe('Voided');
    await invoice(await storeCustomer(org), 11, dated(at('2026-05-01')));
    expect((await pay(J.id, 20.01)).body).toMatchObject({ status: 'PartiallyPaid', balance: 29.99 });

    const res = await statement(customerNumber, '?asOf=2026-06-30');
    expect(res.status).toBe(200);
    const s = res.body;
    expect(s.asOf).toBe('2026-06-30');
    expect(s.customerNumber).toBe(customerNumber);
    expect(s.companyName).toBe(`Company ${customerNumber}`);
    expect(s.currencyCode).toBe('USD');
    const rows = s.invoices.map((i: Record<string, unknown>) => [i.invoiceNumber, i.status, i.total, i.paid, i.balance, i.daysOverdue, i.bucket]);
    expect(rows).toEqual([
      [J.invoiceNumber, 'PartiallyPaid', 50, 20.01, 29.99, 180, '90+'],
      [I.invoiceNumber, 'Issued', 250, 0, 250, 91, '90+'],
      [H.invoiceNumber, 'Issued', 0.99, 0, 0.99, 90, '61-90'],
      [G.invoiceNumber, 'Issued', 1000.01, 0, 1000.01, 61, '61-90'],
      [F.invoiceNumber, 'Issued', 33.34, 0, 33.34, 60, '31-60'],
      [P.invoiceNumber, 'Issued', 10, 0, 10, 46, '31-60'],
      [E.invoiceNumber, 'Issued', 33.33, 0, 33.33, 31, '31-60'],
      [D.invoiceNumber, 'Issued', 33.33, 0, 33.33, 30, '1-30'],
      [C.invoiceNumber, 'Issued', 0.1, 0, 0.1, 1, '1-30'],
      [B.invoiceNumber, 'Issued', 0.2, 0, 0.2, 0, 'current'],
      [Af.invoiceNumber, 'Issued', 100.1, 0, 100.1, 0, 'current'],
    ]);
    expect(s.invoices[0]).toMatchObject({ invoiceId: J.id, invoiceDate: '2025-12-01T00:00:00.000Z', dueDate: '2026-01-01T00:00:00.000Z', currencyCode: 'USD', balanceFormatted: '$29.99' });
    expect(s.invoices[5]).toMatchObject({ currencyCode: 'EUR', balanceFormatted: '€10.00' });
    expect(s.aging).toEqual([
      { bucket: 'current', minDays: 0, maxDays: 0, count: 2, amount: 100.3, amountFormatted: '$100.30' },
      { bucket: '1-30', minDays: 1, maxDays: 30, count: 2, amount: 33.43, amountFormatted: '$33.43' },
      { bucket: '31-60', minDays: 31, maxDays: 60, count: 2, amount: 66.67, amountFormatted: '$66.67' },
      { bucket: '61-90', minDays: 61, maxDays: 90, count: 2, amount: 1001, amountFormatted: '$1,001.00' },
      { bucket: '90+', minDays: 91, maxDays: null, count: 2, amount: 279.99, amountFormatted: '$279.99' },
    ]);
    expect(s).toMatchObject({ totalDue: 1481.39, totalDueFormatted: '$1,481.39', otherCurrencyInvoiceNumbers: [P.invoiceNumber], creditLimit: 5000 });
    expect(s.pdf).toBe(`/api/customers/${customerNumber}/statement/pdf?asOf=2026-06-30`);
    // The credit position is the credit account's (today's, every open invoice and on-account order).
    const account = (await call('GET', `/api/customers/${customerNumber}/credit`, A())).body;
    expect(s.openBalance).toBe(account.openBalance);
    expect(s.availableCredit).toBe(account.availableCredit);
    // Each invoice's hold flag is the account's list (the dunning workflow places holds on its own clock).
    for (const i of s.invoices) expect(i.creditHold).toBe(s.holdInvoiceNumbers.includes(i.invoiceNumber));
    expect(s.creditHold).toBe(s.holdInvoiceNumbers.length > 0);

    // A day later (a midnight-UTC date-time names the same day) every invoice is a day older and the one dated 2026-07-01 joins: H moves to 90+, F to 61-90, D to 31-60, B to 1-30.
    const next = (await statement(customerNumber, '?asOf=2026-07-01T00:00:00Z')).body;
    expect(next.asOf).toBe('2026-07-01');
    expect(next.invoices.map((i: { invoiceNumber: string }) => i.invoiceNumber)).toContain(later.invoiceNumber);
    expect(next.aging.map((l: { bucket: string; count: number; amount: number }) => [l.bucket, l.count, l.amount])).toEqual([
      ['current', 2, 105.1],
      ['1-30', 2, 0.3],
      ['31-60', 2, 66.66],
      ['61-90', 2, 1033.35],
      ['90+', 3, 280.98],
    ]);
    expect(next.totalDue).toBe(1486.39);

    // Without asOf: today (UTC).
    const today = (await statement(customerNumber)).body;
    expect(today.asOf).toBe(new Date().toISOString().slice(0, 10));
    expect(today.totalDue).toBe(1486.39);
  });

  test('when asOf is not a day, then 400 names asOf', async () => {
    const customerNumber = await storeCustomer(org);
    for (const bad of ['2026-02-30', 'yesterday', '2026-06-30T10:00:00Z']) {
      const res = await statement(customerNumber, `?asOf=${encodeURIComponent(bad)}`);
      expectProblem(res, 400);
      expect(Object.keys(res.body.errors)).toEqual(['asOf']);
    }
    expect((await pdf(customerNumber, '?asOf=2026-13-01')).status).toBe(400);
  });

  test('when the PDF is requested, then it is a PDF stored in object storage carrying the customer number, the invoices and the aging', async () => {
    const customerNumber = await storeCustomer(org);
    const inv = await invoice(customerNumber, 123.45, { invoiceDate: at('2026-01-05'), dueDate: at('2026-02-04') });
    const res = await pdf(customerNumber, '?asOf=2026-03-01');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="statement-${customerNumber}-2026-03-01.pdf"`);
    const data = Buffer.from(await res.arrayBuffer());
    expect(data.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(data);
    expect(text).toContain(customerNumber);
    expect(text).toContain('As of: 2026-03-01');
    expect(text).toContain(inv.invoiceNumber);
    expect(text).toContain('balance $123.45  25 days overdue');
    expect(text).toContain('1-30 days: $123.45 (1 invoice)');
    expect(text).toContain('Total due: $123.45');

    const [{ id }] = await dbQuery<{ id: string }>('select id from customer where organization_id = $1 and customer_number = $2', [org.organizationId, customerNumber]);
    const env = stack.env.production;
    const endpoint = new URL(env.S3_ENDPOINT);
    const minio = new Client({ endPoint: endpoint.hostname, port: Number(endpoint.port), useSSL: endpoint.protocol === 'https:', accessKey: env.S3_ACCESS_KEY, secretKey: env.S3_SECRET_KEY });
    const key = `documents/statements/${org.organizationId}/${id}/2026-03-01.pdf`;
    const stat = await minio.statObject(env.S3_BUCKET, key);
    expect(stat.size).toBe(data.length);
    // Private: no unsigned read.
    expect((await fetch(`${env.S3_ENDPOINT.replace(/\/+$/, '')}/${env.S3_BUCKET}/${key}`)).status).toBe(403);
  });

  test('when the dunning workflow puts the customer on credit hold, then the statement names the holding invoice, and paying it releases the hold', async () => {
    const customerNumber = await storeCustomer(org);
    const inv = await invoice(customerNumber, 40, { invoiceDate: at('2026-01-05'), dueDate: at('2026-02-04') });
    // The test stack's dunning day is 1 s and the hold comes 42 s after issue (scripts/lib/stack.ts).
    const deadline = Date.now() + 150_000;
    let s = (await statement(customerNumber)).body;
    while (!s.creditHold && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      s = (await statement(customerNumber)).body;
    }
    expect(s).toMatchObject({ creditHold: true, holdInvoiceNumbers: [inv.invoiceNumber], totalDue: 40 });
    expect(s.invoices).toEqual([expect.objectContaining({ invoiceNumber: inv.invoiceNumber, creditHold: true })]);
    const held = pdfText(Buffer.from(await (await pdf(customerNumber)).arrayBuffer()));
    expect(held).toContain(`CREDIT HOLD: overdue invoices ${inv.invoiceNumber}`);

    expect((await pay(inv.id, 40)).body.status).toBe('Paid');
    const after = (await statement(customerNumber)).body;
    expect(after).toMatchObject({ creditHold: false, holdInvoiceNumbers: [], invoices: [], totalDue: 0, openBalance: 0 });
    expect(after.aging.every((l: { count: number; amount: number }) => l.count === 0 && l.amount === 0)).toBe(true);
  });

  test('who may read it: Admin, the customer\'s rep and its own users; another rep, another customer and another organization get 404, no token 401', async () => {
    const repNumber = uniq('R');
    const rep = await repToken(org, repNumber);
    const otherRep = await repToken(org, uniq('R'));
    const customerNumber = await storeCustomer(org, repNumber);
    const otherCustomer = await storeCustomer(org);
    await invoice(customerNumber, 12.34, { invoiceDate: at('2026-01-05'), dueDate: at('2026-02-04') });
    const own = await customerToken(org, { CustomerNumber: customerNumber });
    const stranger = await customerToken(org, { CustomerNumber: otherCustomer });

    for (const [who, token] of [['Admin', org.adminToken], ['rep', rep], ['own user', own]] as const) {
      const res = await statement(customerNumber, '?asOf=2026-03-01', token);
      expect([who, res.status]).toEqual([who, 200]);
      expect(res.body.totalDue).toBe(12.34);
      const p = await pdf(customerNumber, '?asOf=2026-03-01', token);
      expect([who, p.status]).toEqual([who, 200]);
      expect(Buffer.from(await p.arrayBuffer()).subarray(0, 4).toString('latin1')).toBe('%PDF');
    }
    for (const [who, token, base] of [
      ['another rep', otherRep, org.base],
      ['another customer', stranger, org.base],
      ['another organization', other.adminToken, other.base],
    ] as const) {
      const res = await statement(customerNumber, '', token, base);
      expect([who, res.status]).toEqual([who, 404]);
      expectProblem(res, 404);
      expect(res.text).not.toContain('12.34');
      expect([who, (await pdf(customerNumber, '', token, base)).status]).toEqual([who, 404]);
    }
    // A customer's user asking for its own statement under another number; a rep for an unassigned customer.
    expectProblem(await statement(otherCustomer, '', own), 404);
    expectProblem(await statement(otherCustomer, '', rep), 404);
    expectProblem(await call('GET', `/api/customers/${customerNumber}/statement`, { base: org.base }), 401);
    expect((await pdf(customerNumber, '', '')).status).toBe(401);
  });
});
