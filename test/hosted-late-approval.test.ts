/**
 * Hosted payments whose approval arrives after the setup's timer fired (DESIGN security decisions,
 * issue 9 item 10): the charge is voided at the provider, the setup records `Voided`, and the
 * browser is redirected with result=Voided. The callback route gets its answer from the workflow
 * (a workflow update in time; settleLateHostedCallback once hostedPayment has closed).
 *
 * The late approval is a real charge at the provider sandbox (made through its direct API with the
 * deployment's key), announced by a correctly signed callback, as a provider that approved at the
 * last second and called back late would send it.
 */
import { withSignature } from '../src/domain/payments/callback-signature.js';
import { call, createOrg, dbQuery, stack, uniq, type OrgFixture } from './support/helpers';
import { pathParamFixtures } from './support/matrix-fixtures';

jest.setTimeout(90_000);
const PROVIDER = stack.urls.provider;
const SECRET = stack.env.production.PROVIDER_CALLBACK_SECRET;
const KEY = stack.env.production.PAYMENT_PROVIDER_API_KEY;
const RETURN_URL = 'https://shop.example.com/payments/return';
const nextYear = String(new Date().getUTCFullYear() + 2);

let org: OrgFixture;
beforeAll(async () => {
  org = await createOrg();
});

async function provider<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${PROVIDER}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function postCallback(fields: Record<string, string>) {
  const res = await fetch(`${stack.urls.api}/api/payments/hosted/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') };
}

const ledger = async (query: string) =>
  ((await (await fetch(`${PROVIDER}/ledger?${query}`)).json()) as { entries: { kind: string; chargeId: string; amount: string }[] }).entries;

test('when a provider approval arrives after the setup expired, then the charge is voided at the provider, recorded as Voided, and the browser told so', async () => {
  const customerNumber = await pathParamFixtures.customerNumber(org);
  const res = await call('POST', '/api/payments/hosted/transaction-setup', {
    token: org.adminToken,
    body: { customerNumber, transactionAmount: 15, applicationReturnUrl: RETURN_URL, marketCode: 'Default', isDefault: false },
  });
  expect(res.status).toBe(201);
  const { transactionSetupId } = res.body as { transactionSetupId: string };

  // The money the provider took at the last second.
  const profile = await provider<{ paymentProfileId: string }>('/direct/customer-profiles', {
    customerNumber,
    email: 'ap@example.com',
    card: { number: '4111111111111111', expMonth: '12', expYear: nextYear, cvv: '123' },
    billingAddress: { address1: '1 Main St', zipCode: '62701', country: 'US' },
  });
  const charge = await provider<{ chargeId: string }>('/direct/charges', {
    paymentProfileId: profile.paymentProfileId,
    amount: '15.00',
    currency: 'USD',
    idempotencyKey: uniq('late-'),
    reference: null,
  });

  // The test stack's setups expire after 8 s; wait until the workflow's timer has fired and it recorded the expiry.
  const deadline = Date.now() + 30_000;
  while ((await dbQuery('select status from hosted_payment_setup where transaction_setup_id = $1', [transactionSetupId]))[0].status !== 'expired') {
    if (Date.now() > deadline) throw new Error('setup never expired');
    await new Promise((r) => setTimeout(r, 300));
  }

  const late = withSignature(
    {
      TransactionSetupID: transactionSetupId,
      ApprovalCode: 'LATE01',
      Result: 'Approved',
      Amount: '15.00',
      CardType: 'Visa',
      LastFour: '1111',
      ExpirationMonth: '12',
      ExpirationYear: nextYear,
      PaymentProfileId: '',
      TransactionId: charge.chargeId,
      Timestamp: new Date().toISOString(),
    },
    SECRET,
  );
  const cb = await postCallback(late);
  expect(cb.status).toBe(302);
  expect(Object.fromEntries(new URL(cb.location!).searchParams)).toEqual({ result: 'Voided', transactionSetupId, amount: '15.00', last4: '1111' });
  const [row] = await dbQuery('select status, result, provider_transaction_id, invoice_payment_id from hosted_payment_setup where transaction_setup_id = $1', [
    transactionSetupId,
  ]);
  expect(row).toEqual({ status: 'expired', result: 'Voided', provider_transaction_id: charge.chargeId, invoice_payment_id: null });
  expect((await ledger(`chargeId=${charge.chargeId}`)).map((e) => e.kind)).toEqual(['charge', 'void']);

  // The provider calling back again changes nothing and gets the same answer.
  const again = await postCallback(late);
  expect(new URL(again.location!).searchParams.get('result')).toBe('Voided');
  expect((await ledger(`chargeId=${charge.chargeId}`)).map((e) => e.kind)).toEqual(['charge', 'void']);
});

test('when an approval arrives in time, then the callback answers with the workflow update result (Approved) and no void', async () => {
  const customerNumber = await pathParamFixtures.customerNumber(org);
  const res = await call('POST', '/api/payments/hosted/transaction-setup', {
    token: org.adminToken,
    body: { customerNumber, transactionAmount: 7.25, applicationReturnUrl: RETURN_URL, marketCode: 'Default', isDefault: false },
  });
  const { transactionSetupId, hostedPaymentUrl } = res.body as { transactionSetupId: string; hostedPaymentUrl: string };
  const page = await fetch(hostedPaymentUrl);
  const action = /<form method="post" action="([^"]+)"/.exec(await page.text())?.[1];
  const paid = await fetch(new URL(action ?? new URL(hostedPaymentUrl).pathname, hostedPaymentUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ cardholderName: 'Ada Buyer', cardNumber: '4111111111111111', expMonth: '12', expYear: nextYear, cvv: '123' }).toString(),
    redirect: 'manual',
  });
  expect(paid.status).toBe(302);
  expect(Object.fromEntries(new URL(paid.headers.get('location')!).searchParams)).toEqual({
    result: 'Approved',
    transactionSetupId,
    amount: '7.25',
    last4: '1111',
  });
  // Answered from the workflow: the row is already reconciled when the redirect comes back.
  const [row] = await dbQuery('select status, result from hosted_payment_setup where transaction_setup_id = $1', [transactionSetupId]);
  expect(row).toEqual({ status: 'approved', result: 'Approved' });
  expect((await ledger(`idempotencyKey=${transactionSetupId}`)).map((e) => e.kind)).toEqual(['charge']);
});
