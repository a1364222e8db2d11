import { call, createOrg, customerToken, mailsFor, repToken, uniq, waitForMail, type OrgFixture } from './support/helpers';
import { ensurePriceTier, invoiceBody } from './support/matrix-fixtures';

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
  await ensurePriceTier(org, 'Retail', 'USD');
});

/** Stores the customer record invoices of `customerNumber` are mailed from (its company e-mail and contacts). */
async function storeCustomer(customerNumber: string, companyEmail: string, extra: Record<string, unknown> = {}) {
  const res = await call('PUT', '/api/customers', { token: org.adminToken, body: { customerNumber, companyName: `Co ${customerNumber}`, companyEmail, pricing: 'Retail', ...extra } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`store customer failed: ${res.status} ${res.text}`);
}

/** The text drawn by the PDF's TJ operators (pdfkit writes hex strings split at kerning adjustments). */
function pdfText(data: Buffer): string {
  const src = data.toString('latin1');
  const lines = [...src.matchAll(/\[([^\]]*)\]\s*TJ/g)].map((m) => [...m[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => Buffer.from(h[1], 'hex').toString('latin1')).join(''));
  return lines.join('\n');
}

async function downloadPdf(id: string, token: string) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const res = await fetch(`${org.base}/api/invoices/${id}/pdf`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 200) return { res, data: Buffer.from(await res.arrayBuffer()) };
    if (Date.now() > deadline) throw new Error(`pdf not available: ${res.status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('invoice issuance workflow', () => {
  test('when an invoice is issued and stays unpaid, then the PDF downloads, the customer is e-mailed and a reminder follows', async () => {
    const to = `${uniq('billing')}@example.com`;
    const body = invoiceBody({ items: [{ sku: 'PDF-1', productName: 'Printed widget', quantity: 3, price: 12.5 }] });
    await storeCustomer(body.customer.customerNumber, to);
    const inv = (await call('POST', '/api/invoices', { token: org.adminToken, body })).body;
    const res = await call('POST', `/api/invoices/${inv.id}/issue`, { token: org.adminToken });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('Issued');

    const { res: pdfRes, data } = await downloadPdf(inv.id, org.adminToken);
    expect(pdfRes.headers.get('content-type')).toBe('application/pdf');
    expect(pdfRes.headers.get('content-disposition')).toBe(`attachment; filename="invoice-${inv.invoiceNumber}.pdf"`);
    expect(data.subarray(0, 4).toString()).toBe('%PDF');
    const text = pdfText(data);
    expect(text).toContain(inv.invoiceNumber);
    expect(text).toContain('$37.50');
    expect(text).toContain('PDF-1');

    const mail = await waitForMail(to, (m) => m.subject.startsWith(`Invoice ${inv.invoiceNumber}`));
    expect(mail.text).toContain(`/api/invoices/${inv.id}/pdf`);
    expect(mail.text).toContain('$37.50');

    const reminder = await waitForMail(to, (m) => m.subject === `Reminder: invoice ${inv.invoiceNumber} is due`, 30000);
    expect(reminder.text).toContain('$37.50');
  }, 60000);

  test('when the invoice is paid before the timer, then no reminder is sent', async () => {
    const to = `${uniq('billing')}@example.com`;
    const body = invoiceBody();
    await storeCustomer(body.customer.customerNumber, to);
    const inv = (await call('POST', '/api/invoices', { token: org.adminToken, body })).body;
    await call('POST', `/api/invoices/${inv.id}/issue`, { token: org.adminToken });
    const paid = await call('POST', `/api/invoices/${inv.id}/payments`, { token: org.adminToken, body: { amount: 20, currencyCode: 'USD', method: 'Wire', paymentDate: '2026-01-20T00:00:00Z' } });
    expect(paid.body.status).toBe('Paid');
    await waitForMail(to, (m) => m.subject.startsWith(`Invoice ${inv.invoiceNumber}`));
    await new Promise((r) => setTimeout(r, 9000));
    expect((await mailsFor(to)).filter((m) => m.subject.startsWith('Reminder'))).toEqual([]);
  }, 60000);

  test('mail redirection: when a rep issues an invoice with an outside companyEmail and a company name carrying a link, then only the stored billing addresses are mailed, with the link as escaped text', async () => {
    const repNumber = uniq('R');
    const rep = await repToken(org, repNumber);
    const customerNumber = uniq('C');
    const office = `${uniq('office')}@example.com`;
    const billing = `${uniq('billing')}@example.com`;
    const buyer = `${uniq('buyer')}@example.com`;
    const attacker = `${uniq('attacker')}@evil.test`;
    const link = '<a href="http://evil.test/pay">Pay here</a>';
    await storeCustomer(customerNumber, office, {
      repNumber,
      companyName: link,
      contacts: [
        { firstName: 'Bea', lastName: 'Billing', email: billing, contactType: 'Accounts Payable' },
        { firstName: 'Bo', lastName: 'Buyer', email: buyer, contactType: 'Purchasing' },
      ],
    });
    const sku = uniq('SKU-');
    const product = await call('PUT', '/api/products', { token: org.adminToken, body: { sku, name: 'Widget', prices: [{ tier: 'Retail', price: 10, atQuantity: 1 }] } });
    expect(product.status).toBe(201);
    // The rep's own order for the customer: a rep may only invoice an order it can see.
    const order = await call('POST', '/api/orders', {
      token: rep,
      body: { customer: { customerNumber, companyName: 'Any' }, orderType: 'Standard', poNumber: 'PO-1', priceTier: 'Retail', currencyCode: 'USD', primarySalesRep: {}, items: [{ sku, productName: 'Widget', quantity: 1, price: 10 }], user: {} },
    });
    expect(order.status).toBe(201);
    const body = invoiceBody({
      orderId: order.body.data.id,
      orderNumber: order.body.data.orderNumber,
      customer: { customerNumber, companyName: link, companyEmail: attacker },
      primarySalesRep: { repNumber, firstName: 'Rita', lastName: 'Rep' },
      items: [{ sku, productName: 'Widget', quantity: 1, price: 10 }],
    });
    const created = await call('POST', '/api/invoices', { token: rep, body });
    expect(created.status).toBe(201);
    const issued = await call('POST', `/api/invoices/${created.body.id}/issue`, { token: rep });
    expect(issued.status).toBe(200);
    const subject = `Invoice ${created.body.invoiceNumber}`;
    const mail = await waitForMail(billing, (m) => m.subject.startsWith(subject));
    expect(mail.to.map((t) => t.toLowerCase()).sort()).toEqual([billing, office].map((t) => t.toLowerCase()).sort());
    expect(mail.html).not.toContain('<a href="http://evil.test');
    expect(mail.html).toContain('&#60;a href=&#34;http://evil.test/pay&#34;&#62;Pay here&#60;/a&#62;');
    await waitForMail(billing, (m) => m.subject === `Reminder: invoice ${created.body.invoiceNumber} is due`, 30000);
    expect(await mailsFor(attacker)).toEqual([]);
    expect(await mailsFor(buyer)).toEqual([]);
  }, 60000);

  test("when a Customer token downloads the PDF, then its own invoice works and another customer's is 404", async () => {
    const body = invoiceBody();
    const inv = (await call('POST', '/api/invoices', { token: org.adminToken, body })).body;
    await call('POST', `/api/invoices/${inv.id}/issue`, { token: org.adminToken });
    const own = await customerToken(org, { CustomerNumber: body.customer.customerNumber });
    const stranger = await customerToken(org, { CustomerNumber: 'SOMEONE-ELSE' });
    const { data } = await downloadPdf(inv.id, own);
    expect(data.subarray(0, 4).toString()).toBe('%PDF');
    expect((await call('GET', `/api/invoices/${inv.id}/pdf`, { token: stranger })).status).toBe(404);
  }, 60000);
});
