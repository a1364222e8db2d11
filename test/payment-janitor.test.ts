/**
 * Payment janitor (issue 21): a charge the provider approved that no payment records (made here
 * directly at the provider sandbox, as a lost worker or a late hosted approval would leave it) is
 * recorded on its invoice when the invoice still owes it, and voided otherwise; each action is in
 * the finance report and a `payment.reconciled` webhook event; a second pass changes nothing.
 */
import { call, createOrg, dbQuery, ensureCustomer, saveCard, stack, uniq, type OrgFixture } from './support/helpers';
import { invoiceBody } from './support/matrix-fixtures';

jest.setTimeout(120_000);
const PROVIDER = stack.urls.provider;

/** Charges a saved card at the provider directly, bypassing the service: an orphan charge. */
async function orphanCharge(paymentProfileId: string, amount: string, reference: string | null): Promise<string> {
  const res = await fetch(`${PROVIDER}/direct/charges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${stack.env.production.PAYMENT_PROVIDER_API_KEY}` },
    body: JSON.stringify({ paymentProfileId, amount, currency: 'USD', idempotencyKey: uniq('orphan-'), reference }),
  });
  const body = (await res.json()) as { chargeId: string };
  expect(res.status).toBe(201);
  return body.chargeId;
}

async function issuedInvoice(org: OrgFixture, customerNumber: string) {
  const created = await call('POST', '/api/invoices', { token: org.adminToken, body: invoiceBody({ customer: { ...invoiceBody().customer, customerNumber } }) });
  expect(created.status).toBe(201);
  const issued = await call('POST', `/api/invoices/${created.body.id}/issue`, { token: org.adminToken });
  expect(issued.status).toBe(200);
  expect(issued.body.invoiceNumber).toEqual(expect.any(String));
  return issued.body as { id: string; invoiceNumber: string; total: number };
}

const ledgerOf = async (chargeId: string) =>
  ((await (await fetch(`${PROVIDER}/ledger?chargeId=${encodeURIComponent(chargeId)}`)).json()) as { entries: { kind: string }[] }).entries.map((e) => e.kind);

test('when the provider holds approved charges no payment recorded, then the janitor records the one its invoice still owes, voids the other, reports both with webhook events, and a second run changes nothing', async () => {
  const org = await createOrg();
  const other = await createOrg();
  const customerNumber = uniq('C');
  await ensureCustomer(org, customerNumber);
  const profile = await saveCard(org, customerNumber);
  const owing = await issuedInvoice(org, customerNumber);
  const paid = await issuedInvoice(org, customerNumber);
  // The second invoice is settled offline, so a card charge for it is owed by nobody.
  const offline = await call('POST', `/api/invoices/${paid.id}/payments`, {
    token: org.adminToken,
    headers: { 'Idempotency-Key': uniq('offline-') },
    body: { amount: paid.total, currencyCode: 'USD', method: 'Check', paymentDate: '2026-02-01T00:00:00.000Z' },
  });
  expect(offline.status).toBe(200);
  const toRecord = await orphanCharge(profile, owing.total.toFixed(2), owing.invoiceNumber);
  const toVoid = await orphanCharge(profile, paid.total.toFixed(2), paid.invoiceNumber);
  // Charges younger than JANITOR_MIN_AGE_SECONDS (3 s in tests) belong to workflows still running.
  await new Promise((r) => setTimeout(r, 4_000));

  const run = await call('POST', '/api/payments/reconciliation/run', { token: org.adminToken });
  expect(run.status).toBe(200);
  expect(run.body).toMatchObject({ recorded: 1, voided: 1, refunded: 0 });

  const inv = await call('GET', `/api/invoices/${owing.id}`, { token: org.adminToken });
  expect(inv.body).toMatchObject({ status: 'Paid', balance: 0 });
  expect(inv.body.payments).toEqual([expect.objectContaining({ amount: owing.total, method: 'Card' })]);
  expect(await ledgerOf(toVoid)).toEqual(['charge', 'void']);
  expect(await ledgerOf(toRecord)).toEqual(['charge']);

  const report = await call('GET', '/api/payments/reconciliation', { token: org.adminToken });
  expect(report.status).toBe(200);
  expect(report.body.TotalCount).toBe(2);
  expect(report.body.Data).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ ChargeId: toRecord, Action: 'Recorded', InvoiceId: owing.id, Amount: owing.total }),
      expect.objectContaining({ ChargeId: toVoid, Action: 'Voided', InvoiceId: paid.id, Amount: paid.total }),
    ]),
  );
  const events = await dbQuery<{ data: { chargeId: string; action: string } }>(`select data from webhook_event where organization_id = $1 and type = 'payment.reconciled'`, [org.organizationId]);
  expect(events.map((e) => `${e.data.chargeId}:${e.data.action}`).sort()).toEqual([`${toRecord}:Recorded`, `${toVoid}:Voided`].sort());

  // Idempotent: nothing left to do.
  const again = await call('POST', '/api/payments/reconciliation/run', { token: org.adminToken });
  expect(again.body).toMatchObject({ recorded: 0, voided: 0, refunded: 0 });
  expect((await call('GET', `/api/invoices/${owing.id}`, { token: org.adminToken })).body.payments).toHaveLength(1);
  // Another organization's finance sees none of it.
  expect((await call('GET', '/api/payments/reconciliation', { token: other.adminToken })).body.TotalCount).toBe(0);
});

test('when the worker starts, then the deployment has its payment janitor schedule', async () => {
  const { Client, Connection } = await import('@temporalio/client');
  const connection = await Connection.connect({ address: stack.urls.temporal });
  try {
    const d = await new Client({ connection, namespace: 'default' }).schedule.getHandle('payment-janitor').describe();
    expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'paymentJanitor' });
  } finally {
    await connection.close();
  }
});
