import { call, createOrg, dbQuery, ensureCustomer, expectProblem, saveCard, stack, uniq, type OrgFixture } from './support/helpers';
import { invoiceBody } from './support/matrix-fixtures';

/** Invoice payments by card on file: charged and refunded through the provider sandbox, proven by its ledger. */
const PROVIDER = stack.urls.provider;


interface LedgerEntry {
  kind: string;
  amount: string;
  status: string;
  chargeId: string;
}

async function ledger(query: string): Promise<LedgerEntry[]> {
  const res = await fetch(`${PROVIDER}/ledger?${query}`);
  return ((await res.json()) as { entries: LedgerEntry[] }).entries;
}

describe('invoice card payments through the provider', () => {
  let org: OrgFixture;
  beforeAll(async () => {
    org = await createOrg();
  });

  async function issuedInvoice(): Promise<{ id: string; invoiceNumber: string; customerNumber: string }> {
    const created = await call('POST', '/api/invoices', { token: org.adminToken, body: invoiceBody({ items: [{ sku: 'SKU-1', productName: 'Widget', quantity: 3, price: 33.33 }] }) });
    expect(created.status).toBe(201);
    expect((await call('POST', `/api/invoices/${created.body.id}/issue`, { token: org.adminToken })).status).toBe(200);
    return { ...created.body, customerNumber: created.body.customer.customerNumber };
  }

  /** A card saved on file for the invoice's customer (a paymentProfileId must be one of the customer's saved cards). */
  async function providerProfile(inv: { customerNumber: string }, card: string): Promise<string> {
    await ensureCustomer(org, inv.customerNumber);
    return saveCard(org, inv.customerNumber, card);
  }

  test('when an invoice is paid with a card on file, then it is Paid, one charge is in the provider ledger, and a replay with the same Idempotency-Key charges nothing more', async () => {
    const inv = await issuedInvoice();
    const profile = await providerProfile(inv, '4111111111111111');
    const key = uniq('pay-');
    const body = { amount: 99.99, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: profile };
    const paid = await call('POST', `/api/invoices/${inv.id}/payments`, { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('Paid');
    expect(paid.body.balance).toBe(0);
    expect(paid.body.payments).toHaveLength(1);
    const again = await call('POST', `/api/invoices/${inv.id}/payments`, { token: org.adminToken, body, headers: { 'Idempotency-Key': key } });
    expect(again.status).toBe(200);
    const charges = (await ledger(`paymentProfileId=${encodeURIComponent(profile)}`)).filter((e) => e.kind === 'charge');
    expect(charges).toHaveLength(1);
    expect(charges[0].amount).toBe('99.99');
  });

  test('when a card payment is refunded, then the provider records the refund and the invoice balance reopens', async () => {
    const inv = await issuedInvoice();
    const profile = await providerProfile(inv, '5555555555554444');
    const paid = await call('POST', `/api/invoices/${inv.id}/payments`, {
      token: org.adminToken,
      body: { amount: 99.99, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: profile },
    });
    expect(paid.status).toBe(200);
    const refund = await call('POST', `/api/invoices/${inv.id}/refunds`, { token: org.adminToken, body: { amount: 40, reason: 'damaged goods' } });
    expect(refund.status).toBe(200);
    expect(refund.body.status).toBe('PartiallyPaid');
    expect(refund.body.balance).toBe(40);
    const [charge] = (await ledger(`paymentProfileId=${encodeURIComponent(profile)}`)).filter((e) => e.kind === 'charge');
    const refunds = (await ledger(`chargeId=${encodeURIComponent(charge.chargeId)}`)).filter((e) => e.kind === 'refund');
    expect(refunds.map((e) => e.amount)).toEqual(['40.00']);
  });

  test('when the card is declined, then 402 problem details naming the provider code, nothing is charged and the invoice stays unpaid', async () => {
    const inv = await issuedInvoice();
    const saved = await providerProfile(inv, '4111111111111111');
    // The sandbox declines a saved card at charge time only when the provider no longer knows it
    // (payment_profile_not_found, a 402 refusal): the card on file points at a profile the provider dropped.
    const gone = uniq('pp_gone_');
    await dbQuery('update payment_method set payment_profile_id = $1 where organization_id = $2 and payment_profile_id = $3', [gone, org.organizationId, saved]);
    const declined = await call('POST', `/api/invoices/${inv.id}/payments`, {
      token: org.adminToken,
      body: { amount: 10, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: gone },
    });
    expectProblem(declined, 402);
    expect(declined.body.errors).toEqual({ card: ['payment_profile_not_found'] });
    expect(await ledger(`paymentProfileId=${encodeURIComponent(gone)}`)).toHaveLength(0);
    // A profile that is not one of the customer's cards on file is not found (nothing is sent to the provider).
    const notOnFile = await call('POST', `/api/invoices/${inv.id}/payments`, {
      token: org.adminToken,
      body: { amount: 10, currencyCode: 'USD', method: 'Card', paymentDate: '2026-02-01T00:00:00.000Z', paymentProfileId: 'pp_does_not_exist' },
    });
    expectProblem(notOnFile, 404);
    const after = await call('GET', `/api/invoices/${inv.id}`, { token: org.adminToken });
    expect(after.body.status).toBe('Issued');
    expect(after.body.payments).toHaveLength(0);
  });
});
