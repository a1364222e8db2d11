import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { withSignature } from '../src/domain/payments/callback-signature.js';
import { call, createMemberUser, createOrg, dbQuery, expectProblem, stack, uniq, type OrgFixture } from './support/helpers';
import { ensurePriceTier } from './support/matrix-fixtures';

const PROVIDER = stack.urls.provider;
const SECRET = stack.env.production.PROVIDER_CALLBACK_SECRET;
const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const nextYear = String(new Date().getUTCFullYear() + 2);
const RETURN_URL = 'https://shop.example.com/payments/return?tab=cards';

const billingAddress = {
  firstName: 'Ada',
  lastName: 'Buyer',
  company: 'Acme',
  address1: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  zipCode: '62701',
  country: 'US',
};

const PAYMENT_METHOD_KEYS = [
  'active',
  'billingAddress',
  'cardType',
  'customerNumber',
  'customerProfileId',
  'expMonth',
  'expYear',
  'expirationDate',
  'id',
  'isDefault',
  'maskedCardNumber',
  'networkTransactionId',
  'paymentProfileId',
  'paymentProvider',
];

let org: OrgFixture;
let other: OrgFixture;

async function customer(o: OrgFixture): Promise<string> {
  const customerNumber = uniq('C');
  const res = await call('PUT', '/api/customers', {
    token: o.adminToken,
    body: { customerNumber, companyName: `Co ${customerNumber}`, companyEmail: 'co@example.com', pricing: 'Retail' },
  });
  if (res.status !== 201) throw new Error(res.text);
  return customerNumber;
}

const cardBody = (customerNumber: string, extra: Record<string, unknown> = {}) => ({
  customerNumber,
  emailAddress: 'buyer@example.com',
  cardNumber: VISA,
  expirationMonth: '12',
  expirationYear: nextYear,
  cardCode: '123',
  billingAddress,
  ...extra,
});

const addCard = (o: OrgFixture, body: unknown, token = o.adminToken) => call('POST', '/api/payments/payment-methods', { token, body });
const profiles = (o: OrgFixture, customerNumber: string, token = o.adminToken) => call('GET', `/api/payments/${customerNumber}/profiles`, { token });

/** Hosted reconciliation is durable but asynchronous (the callback waits at most ~5 s): wait until `n` cards are saved. */
async function profilesWhen(o: OrgFixture, customerNumber: string, n: number, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await profiles(o, customerNumber);
    if ((Array.isArray(res.body) && res.body.length >= n) || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function customerToken(o: OrgFixture, customerNumber: string): Promise<string> {
  const user = await createMemberUser(o);
  const assoc = await call('POST', '/api/organizations/users/associate-customer', {
    token: o.adminToken,
    body: { UserId: user.userId, CustomerNumber: customerNumber },
  });
  if (assoc.status !== 200) throw new Error(assoc.text);
  const login = await call('POST', '/api/auth/token', { body: { Email: user.email, Password: 'member password 1' } });
  return login.body.AccessToken;
}

const setup = (o: OrgFixture, body: Record<string, unknown>) =>
  call('POST', '/api/payments/hosted/transaction-setup', {
    token: o.adminToken,
    body: { transactionAmount: 0, applicationReturnUrl: RETURN_URL, marketCode: 'Default', isDefault: false, ...body },
  });

/** Submits the provider's hosted page form like a browser (form-encoded, redirects not followed). */
async function payOnProviderPage(hostedPaymentUrl: string, cardNumber = VISA) {
  const page = await fetch(hostedPaymentUrl);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const res = await fetch(new URL(action ?? new URL(hostedPaymentUrl).pathname, hostedPaymentUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ cardholderName: 'Ada Buyer', cardNumber, expMonth: '12', expYear: nextYear, cvv: '123' }).toString(),
    redirect: 'manual',
  });
  return { pageStatus: page.status, html, status: res.status, location: res.headers.get('location'), text: await res.text() };
}

const resend = (transactionSetupId: string) => call('POST', `/hosted/callbacks/${transactionSetupId}/resend`, { base: PROVIDER });

async function postCallback(fields: Record<string, string>) {
  const res = await fetch(`${stack.urls.api}/api/payments/hosted/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, location: res.headers.get('location'), body, headers: res.headers, text };
}

const setupRow = async (transactionSetupId: string) =>
  (
    await dbQuery(
      'select status, result, amount::text as amount, save_card, payment_method_id, last_four from hosted_payment_setup where transaction_setup_id = $1',
      [transactionSetupId],
    )
  )[0];

/** Waits until the setup row leaves 'pending' (reconciliation runs in the hostedPayment workflow). */
async function setupRowSettled(transactionSetupId: string, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await setupRow(transactionSetupId);
    if ((row && row.status !== 'pending') || Date.now() > deadline) return row;
    await new Promise((r) => setTimeout(r, 300));
  }
}

function logsContaining(needle: string): string[] {
  const hits: string[] = [];
  for (const f of readdirSync(stack.logDir)) {
    if (!/^(api|worker)/.test(f)) continue;
    const text = readFileSync(path.join(stack.logDir, f), 'utf8');
    if (text.includes(needle)) hits.push(f);
  }
  return hits;
}

beforeAll(async () => {
  [org, other] = await Promise.all([createOrg(), createOrg()]);
  await Promise.all([ensurePriceTier(org), ensurePriceTier(other)]);
});

describe('payment methods (ProviderDirect)', () => {
  test('when a valid card is saved with ProviderDirect, then 201 with the exact payment method and no card number anywhere', async () => {
    const cn = await customer(org);
    const res = await addCard(org, cardBody(cn, { isDefault: true, paymentProvider: 'ProviderDirect' }));
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['paymentMethod', 'provider', 'redirectUrl', 'requiresRedirect']);
    expect(res.body).toMatchObject({ requiresRedirect: false, redirectUrl: null, provider: 'ProviderDirect' });
    const pm = res.body.paymentMethod;
    expect(Object.keys(pm).sort()).toEqual(PAYMENT_METHOD_KEYS);
    expect(pm).toEqual({
      id: expect.any(String),
      customerNumber: cn,
      paymentProfileId: expect.stringMatching(/^pp_/),
      customerProfileId: expect.stringMatching(/^cus_/),
      maskedCardNumber: 'XXXX1111',
      cardType: 'Visa',
      expirationDate: `12${nextYear.slice(2)}`,
      expMonth: 12,
      expYear: Number(nextYear),
      billingAddress,
      isDefault: true,
      paymentProvider: 'ProviderDirect',
      active: true,
      networkTransactionId: expect.stringMatching(/^\d{15}$/),
    });
    expect(res.text).not.toContain(VISA);
    const list = await profiles(org, cn);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([pm]);
    expect(list.text).not.toContain(VISA);
  });

  test('when the paymentProvider is omitted, then the deployment default ProviderDirect tokenizes the card', async () => {
    const cn = await customer(org);
    const res = await addCard(org, cardBody(cn, { cardNumber: MASTERCARD }));
    expect(res.status).toBe(201);
    expect(res.body.provider).toBe('ProviderDirect');
    expect(res.body.paymentMethod).toMatchObject({ cardType: 'Mastercard', maskedCardNumber: 'XXXX4444', isDefault: false });
  });

  test('when several card fields are bad at once, then 400 names every one and never echoes the number', async () => {
    const cn = await customer(org);
    const bad = '4111111111111112';
    const res = await addCard(org, cardBody(cn, { cardNumber: bad, expirationMonth: '7', expirationYear: '25', cardCode: '12', emailAddress: 'nope' }));
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['cardCode', 'cardNumber', 'emailAddress', 'expirationMonth', 'expirationYear']);
    expect(res.text).not.toContain(bad);
  });

  test('when the expiry is in the past or required fields are missing, then 400 names them', async () => {
    const cn = await customer(org);
    const past = await addCard(org, cardBody(cn, { expirationMonth: '01', expirationYear: '2020' }));
    expectProblem(past, 400);
    expect(Object.keys(past.body.errors)).toEqual(['expirationYear']);
    const missing = await addCard(org, { customerNumber: cn, cardNumber: 4111111111111111 });
    expectProblem(missing, 400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(['billingAddress', 'cardCode', 'cardNumber', 'emailAddress', 'expirationMonth', 'expirationYear']);
    expect(missing.text).not.toContain(VISA);
  });

  test('when the provider declines the card, then 402 names the provider code and nothing is saved', async () => {
    const cn = await customer(org);
    const res = await addCard(org, cardBody(cn, { cardNumber: '4000000000000002' }));
    expectProblem(res, 402);
    expect(res.body.errors).toEqual({ card: ['card_declined'] });
    expect((await profiles(org, cn)).body).toEqual([]);
  });

  test('when a second default card is saved, then the first one is no longer default', async () => {
    const cn = await customer(org);
    const first = await addCard(org, cardBody(cn, { isDefault: true }));
    const second = await addCard(org, cardBody(cn, { isDefault: true, cardNumber: MASTERCARD }));
    expect([first.status, second.status]).toEqual([201, 201]);
    const list = await profiles(org, cn);
    expect(list.body.map((m: any) => [m.id, m.isDefault])).toEqual([
      [second.body.paymentMethod.id, true],
      [first.body.paymentMethod.id, false],
    ]);
    const rows = await dbQuery('select count(*)::int as n from payment_method where customer_number = $1 and is_default and active', [cn]);
    expect(rows[0].n).toBe(1);
  });

  test('when the customer is unknown or belongs to another organization, then 404', async () => {
    const foreign = await customer(other);
    expect((await addCard(org, cardBody(foreign))).status).toBe(404);
    expect((await profiles(org, foreign)).status).toBe(404);
    expect((await profiles(org, 'no-such-customer')).status).toBe(404);
  });

  test("when a Customer token lists cards, then it sees its own customer's and 404 for another customer", async () => {
    const mine = await customer(org);
    const theirs = await customer(org);
    await addCard(org, cardBody(mine));
    const token = await customerToken(org, mine);
    const own = await profiles(org, mine, token);
    expect(own.status).toBe(200);
    expect(own.body).toHaveLength(1);
    expect((await profiles(org, theirs, token)).status).toBe(404);
    expect((await addCard(org, cardBody(theirs), token)).status).toBe(404);
  });

  test('when cards were saved, then no card number appears in the api or worker logs', async () => {
    const cn = await customer(org);
    expect((await addCard(org, cardBody(cn, { cardNumber: '6011111111111117' }))).status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect(logsContaining('6011111111111117')).toEqual([]);
    expect(logsContaining(VISA)).toEqual([]);
    expect(logsContaining(MASTERCARD)).toEqual([]);
  });
});

describe('payment methods (ProviderHosted)', () => {
  test('when ProviderHosted is asked for, then the answer is a redirect to the hosted page and paying there saves the card', async () => {
    const cn = await customer(org);
    const appUrl = 'https://shop.example.com/cards/done';
    const res = await addCard(org, cardBody(cn, { paymentProvider: 'ProviderHosted', cardNumber: 'ignored', cardCode: 'x', isDefault: true, appUrl }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      requiresRedirect: true,
      redirectUrl: expect.stringMatching(new RegExp(`^${PROVIDER}/hosted/pay/`)),
      provider: 'ProviderHosted',
      paymentMethod: null,
    });
    const paid = await payOnProviderPage(res.body.redirectUrl);
    expect(paid.status).toBe(302);
    const loc = new URL(paid.location!);
    expect(`${loc.origin}${loc.pathname}`).toBe(appUrl);
    expect(loc.searchParams.get('result')).toBe('Approved');
    expect(loc.searchParams.get('amount')).toBe('0.00');
    const list = await profilesWhen(org, cn, 1);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      paymentProvider: 'ProviderHosted',
      maskedCardNumber: 'XXXX1111',
      isDefault: true,
      billingAddress,
      customerNumber: cn,
    });
    expect(Object.keys(list.body[0]).sort()).toEqual(PAYMENT_METHOD_KEYS);
  });
});

describe('hosted payments', () => {
  let connection: Connection;
  let client: Client;
  beforeAll(async () => {
    connection = await Connection.connect({ address: stack.urls.temporal });
    client = new Client({ connection, namespace: 'default' });
  });
  afterAll(async () => {
    await connection?.close();
  });

  test('when the customer pays on the hosted page, then the service reconciles once and redirects with the result, also on resent callbacks', async () => {
    const cn = await customer(org);
    const res = await setup(org, { customerNumber: cn, transactionAmount: 0, isDefault: true });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['hostedPaymentUrl', 'transactionSetupId']);
    const { transactionSetupId, hostedPaymentUrl } = res.body;
    expect(hostedPaymentUrl).toBe(`${PROVIDER}/hosted/pay/${transactionSetupId}`);
    expect(await setupRow(transactionSetupId)).toMatchObject({ status: 'pending', amount: '0.00', save_card: true });

    const paid = await payOnProviderPage(hostedPaymentUrl);
    expect(paid.pageStatus).toBe(200);
    expect(paid.status).toBe(302);
    const loc = new URL(paid.location!);
    expect(`${loc.origin}${loc.pathname}`).toBe('https://shop.example.com/payments/return');
    expect(Object.fromEntries(loc.searchParams)).toEqual({ tab: 'cards', result: 'Approved', transactionSetupId, amount: '0.00', last4: '1111' });
    expect((await profilesWhen(org, cn, 1)).body).toHaveLength(1);

    for (let i = 0; i < 2; i++) {
      const again = await resend(transactionSetupId);
      expect(again.status).toBe(200);
      expect(again.body.delivery.status).toBe(302);
      expect(new URL(again.body.delivery.location).searchParams.get('result')).toBe('Approved');
    }
    const list = await profiles(org, cn);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ paymentProvider: 'ProviderHosted', isDefault: true, maskedCardNumber: 'XXXX1111' });
    const row = await setupRow(transactionSetupId);
    expect(row).toMatchObject({ status: 'approved', result: 'Approved', last_four: '1111', payment_method_id: list.body[0].id });
    const outcome = await client.workflow.getHandle(`hosted-payment-${transactionSetupId}`).result();
    expect(outcome).toMatchObject({ transactionSetupId, status: 'approved', result: 'Approved', paymentMethodId: list.body[0].id });
    expect(logsContaining(VISA)).toEqual([]);
  });

  test('when a payment above zero is approved, then the setup is approved with the amount and the provider ledger holds one charge', async () => {
    const cn = await customer(org);
    const res = await setup(org, { customerNumber: cn, transactionAmount: 42.5 });
    expect(res.status).toBe(201);
    const { transactionSetupId, hostedPaymentUrl } = res.body;
    const paid = await payOnProviderPage(hostedPaymentUrl, MASTERCARD);
    const loc = new URL(paid.location!);
    expect(Object.fromEntries(loc.searchParams)).toMatchObject({ result: 'Approved', amount: '42.50', last4: '4444' });
    expect(await setupRowSettled(transactionSetupId)).toMatchObject({ status: 'approved' });
    await resend(transactionSetupId);
    expect(await setupRow(transactionSetupId)).toMatchObject({ status: 'approved', amount: '42.50', save_card: false, payment_method_id: null });
    const ledger = await call('GET', `/ledger?idempotencyKey=${transactionSetupId}`, { base: PROVIDER });
    expect(ledger.body.entries).toHaveLength(1);
    expect((await profiles(org, cn)).body).toEqual([]);
  });

  test('when a card is declined on the hosted page, then the redirect says Declined and nothing is saved', async () => {
    const cn = await customer(org);
    const res = await setup(org, { customerNumber: cn, transactionAmount: 0 });
    const paid = await payOnProviderPage(res.body.hostedPaymentUrl, '4000000000000002');
    expect(new URL(paid.location!).searchParams.get('result')).toBe('Declined');
    expect(await setupRow(res.body.transactionSetupId)).toMatchObject({ status: 'declined', payment_method_id: null });
    expect((await profiles(org, cn)).body).toEqual([]);
  });

  test('when a callback carries a bad Signature, then 401 and nothing changes', async () => {
    const cn = await customer(org);
    const res = await setup(org, { customerNumber: cn, transactionAmount: 0 });
    const forged = withSignature(
      {
        TransactionSetupID: res.body.transactionSetupId,
        Result: 'Approved',
        Amount: '0.00',
        CardType: 'Visa',
        LastFour: '1111',
        PaymentProfileId: 'pp_forged',
        TransactionId: 'tx_forged',
      },
      'not-the-secret',
    );
    const cb = await postCallback(forged);
    expect(cb.status).toBe(401);
    expect(cb.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const unsigned = await postCallback({ TransactionSetupID: res.body.transactionSetupId, Result: 'Approved' });
    expect(unsigned.status).toBe(401);
    expect(await setupRow(res.body.transactionSetupId)).toMatchObject({ status: 'pending' });
  });

  test('when a transaction setup is created, then its workflow is findable by the CustomerNumber search attribute', async () => {
    const cn = await customer(org);
    const res = await setup(org, { customerNumber: cn, transactionAmount: 0 });
    const deadline = Date.now() + 15000;
    let ids: string[] = [];
    while (Date.now() < deadline) {
      ids = [];
      for await (const wf of client.workflow.list({ query: `CustomerNumber = '${cn}'` })) ids.push(`${wf.type}:${wf.workflowId}`);
      if (ids.length) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(ids).toEqual([`hostedPayment:hosted-payment-${res.body.transactionSetupId}`]);
  });

  test('when the setup expires before the callback, then the service answers Expired and records nothing', async () => {
    const cn = await customer(org);
    const res = await setup(org, { customerNumber: cn, transactionAmount: 0, isDefault: true });
    const { transactionSetupId, hostedPaymentUrl } = res.body;
    await new Promise((r) => setTimeout(r, 9500));
    // The provider page refuses an expired setup too.
    expect((await fetch(hostedPaymentUrl)).status).toBe(410);
    const outcome = await client.workflow.getHandle(`hosted-payment-${transactionSetupId}`).result();
    expect(outcome).toMatchObject({ status: 'expired', result: 'Expired' });
    // A late, correctly signed callback (as a slow provider would send it) changes nothing.
    const late = withSignature(
      {
        TransactionSetupID: transactionSetupId,
        ApprovalCode: 'ABC123',
        Result: 'Approved',
        Amount: '0.00',
        CardType: 'Visa',
        LastFour: '1111',
        ExpirationMonth: '12',
        ExpirationYear: nextYear,
        PaymentProfileId: 'pp_late',
        TransactionId: 'tx_late',
        Timestamp: new Date().toISOString(),
      },
      SECRET,
    );
    const cb = await postCallback(late);
    expect(cb.status).toBe(302);
    const loc = new URL(cb.location!);
    expect(Object.fromEntries(loc.searchParams)).toEqual({ tab: 'cards', result: 'Expired', transactionSetupId, amount: '0.00' });
    expect(await setupRow(transactionSetupId)).toMatchObject({ status: 'expired', result: 'Expired', payment_method_id: null });
    expect((await profiles(org, cn)).body).toEqual([]);
  });

  test('when three signed callbacks for one setup arrive at once, then one reconciliation and every answer redirects with the same result', async () => {
    const cn = await customer(org);
    const res = await setup(org, { customerNumber: cn, transactionAmount: 10 });
    const { transactionSetupId } = res.body;
    const fields = withSignature(
      {
        TransactionSetupID: transactionSetupId,
        ApprovalCode: 'A1B2C3',
        Result: 'Approved',
        Amount: '10.00',
        CardType: 'Visa',
        LastFour: '1111',
        ExpirationMonth: '12',
        ExpirationYear: nextYear,
        PaymentProfileId: '',
        TransactionId: uniq('tx_'),
        Timestamp: new Date().toISOString(),
      },
      SECRET,
    );
    const answers = await Promise.all([postCallback(fields), postCallback(fields), postCallback(fields)]);
    for (const a of answers) {
      expect(a.status).toBe(302);
      expect(Object.fromEntries(new URL(a.location!).searchParams)).toEqual({
        tab: 'cards',
        result: 'Approved',
        transactionSetupId,
        amount: '10.00',
        last4: '1111',
      });
    }
    await setupRowSettled(transactionSetupId);
    const rows = await dbQuery('select status, completed_at from hosted_payment_setup where transaction_setup_id = $1', [transactionSetupId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('approved');
    const outcome = await client.workflow.getHandle(`hosted-payment-${transactionSetupId}`).result();
    expect(outcome).toMatchObject({ status: 'approved', amount: '10.00', lastFour: '1111', paymentMethodId: null });
  });

  test("when a Customer token asks for another customer's setup, then 404; for its own, 201", async () => {
    const mine = await customer(org);
    const theirs = await customer(org);
    const token = await customerToken(org, mine);
    const body = { transactionAmount: 0, applicationReturnUrl: RETURN_URL };
    expect((await call('POST', '/api/payments/hosted/transaction-setup', { token, body: { ...body, customerNumber: theirs } })).status).toBe(404);
    expect((await call('POST', '/api/payments/hosted/transaction-setup', { token, body: { ...body, customerNumber: mine } })).status).toBe(201);
    const foreign = await customer(other);
    expect((await setup(org, { customerNumber: foreign })).status).toBe(404);
  });

  test('when setup input is bad, then 400 names every bad field', async () => {
    const res = await call('POST', '/api/payments/hosted/transaction-setup', {
      token: org.adminToken,
      body: { transactionAmount: -1, applicationReturnUrl: 'not a url', invoiceId: 'x' },
    });
    expectProblem(res, 400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['applicationReturnUrl', 'customerNumber', 'invoiceId', 'transactionAmount']);
  });
});
