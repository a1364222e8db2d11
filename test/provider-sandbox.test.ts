import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyCallbackSignature } from '../src/domain/payments/callback-signature.js';
import { call, stack, uniq } from './support/helpers';

const PROVIDER = stack.urls.provider;
const SECRET = stack.env.production.PROVIDER_CALLBACK_SECRET;
const apiKey = `sandbox-key-${uniq()}`;
const direct = (method: string, path: string, body?: unknown) => call(method, path, { base: PROVIDER, token: apiKey, body });
const card = (number: string, extra: Record<string, unknown> = {}) => ({
  number,
  expMonth: 12,
  expYear: 2030,
  cvv: number.startsWith('3') ? '1234' : '123',
  ...extra,
});
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

async function createProfile(number: string, extra: Record<string, unknown> = {}) {
  return direct('POST', '/direct/customer-profiles', { customerNumber: uniq('C'), email: 'buyer@example.com', card: card(number, extra), billingAddress });
}

async function ledger(query: Record<string, string>) {
  const res = await call('GET', `/ledger?${new URLSearchParams(query)}`, { base: PROVIDER });
  expect(res.status).toBe(200);
  return res.body.entries as Array<Record<string, unknown>>;
}

/** A local stand-in for the service's callback endpoint: records each form post and answers as told. */
async function startCallbackServer(answer: (res: http.ServerResponse) => void) {
  const received: Record<string, string>[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      contentTypes.push(String(req.headers['content-type']));
      received.push(Object.fromEntries(new URLSearchParams(body)));
      answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/payments/hosted/callback`;
  return { url, received, contentTypes, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function setup(body: Record<string, unknown>) {
  const res = await direct('POST', '/hosted/transaction-setup', {
    amount: '25.50',
    currency: 'USD',
    reference: uniq('INV-'),
    saveCard: false,
    expiresInSeconds: 600,
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body as { transactionSetupId: string; hostedPaymentUrl: string };
}

const submitForm = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });

describe('provider sandbox: ProviderDirect', () => {
  test('when no bearer key is sent, then the direct API answers 401', async () => {
    const res = await call('POST', '/direct/customer-profiles', { base: PROVIDER, body: { customerNumber: 'C1', card: card('4111111111111111') } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  test.each([
    ['4111111111111111', 'Visa', 'XXXX1111'],
    ['5555555555554444', 'Mastercard', 'XXXX4444'],
    ['378282246310005', 'AmericanExpress', 'XXXX0005'],
    ['6011111111111117', 'Discover', 'XXXX1117'],
  ])('when a profile is created with approving card %s, then 201 with masked details and no card number', async (number, cardType, masked) => {
    const res = await createProfile(number);
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['cardType', 'customerProfileId', 'expMonth', 'expYear', 'expirationDate', 'maskedCardNumber', 'networkTransactionId', 'paymentProfileId'].sort(),
    );
    expect(res.body).toMatchObject({ cardType, maskedCardNumber: masked, expirationDate: '1230', expMonth: 12, expYear: 2030 });
    expect(res.text).not.toContain(number);
  });

  test.each([
    ['4000000000000002', 'card_declined', {}],
    ['4000000000009995', 'insufficient_funds', {}],
    ['4000000000000069', 'expired_card', {}],
    ['4111111111111111', 'expired_card', { expMonth: 1, expYear: 2020 }],
    ['4111111111111112', 'invalid_card', {}],
  ])('when a profile is created with card %s, then 402 %s', async (number, code, extra) => {
    const res = await createProfile(number, extra);
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe('string');
    expect(res.text).not.toContain(number);
  });

  test('when required profile fields are missing, then 400 names them', async () => {
    const res = await direct('POST', '/direct/customer-profiles', { card: { number: '4111111111111111' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(Object.keys(res.body.error.fields).sort()).toEqual(['card.cvv', 'card.expMonth', 'card.expYear', 'customerNumber']);
  });

  test('when the same charge is posted twice with one idempotency key, then one charge and one ledger entry exist', async () => {
    const profile = (await createProfile('4111111111111111')).body;
    const idempotencyKey = uniq('idem-');
    const body = { paymentProfileId: profile.paymentProfileId, amount: '19.99', currency: 'USD', idempotencyKey, description: 'Invoice 1' };
    const first = await direct('POST', '/direct/charges', body);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ chargeId: expect.any(String), status: 'approved', amount: '19.99', currency: 'USD' });
    const second = await direct('POST', '/direct/charges', body);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const entries = await ledger({ idempotencyKey });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      kind: 'charge',
      amount: '19.99',
      currency: 'USD',
      idempotencyKey,
      paymentProfileId: profile.paymentProfileId,
      status: 'approved',
    });

    const conflict = await direct('POST', '/direct/charges', { ...body, amount: '20.00' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');
    expect(await ledger({ idempotencyKey })).toHaveLength(1);
  });

  test('when a charge lacks an idempotency key or a valid amount, then 400 and nothing is charged', async () => {
    const profile = (await createProfile('5555555555554444')).body;
    const res = await direct('POST', '/direct/charges', { paymentProfileId: profile.paymentProfileId, amount: '1.234', currency: 'USD' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.fields).sort()).toEqual(['amount', 'idempotencyKey']);
    expect(await ledger({ paymentProfileId: profile.paymentProfileId })).toHaveLength(0);
  });

  test('when a charge is voided, then it is voided once and a void entry is recorded', async () => {
    const profile = (await createProfile('4111111111111111')).body;
    const charge = (
      await direct('POST', '/direct/charges', { paymentProfileId: profile.paymentProfileId, amount: '10.00', currency: 'USD', idempotencyKey: uniq('idem-') })
    ).body;
    const voidKey = uniq('void-');
    const v = await direct('POST', `/direct/charges/${charge.chargeId}/void`, { idempotencyKey: voidKey });
    expect(v.status).toBe(200);
    expect(v.body).toEqual({ chargeId: charge.chargeId, status: 'voided', refundedAmount: '10.00' });
    const again = await direct('POST', `/direct/charges/${charge.chargeId}/void`, { idempotencyKey: voidKey });
    expect(again.body).toEqual(v.body);
    const entries = await ledger({ paymentProfileId: profile.paymentProfileId });
    expect(entries.map((e) => e.kind)).toEqual(['charge', 'void']);
    const refund = await direct('POST', `/direct/charges/${charge.chargeId}/refund`, { idempotencyKey: uniq('ref-') });
    expect(refund.status).toBe(409);
  });

  test('when a charge is refunded in parts, then the refunded amount adds up and an over-refund is 400', async () => {
    const profile = (await createProfile('6011111111111117')).body;
    const charge = (
      await direct('POST', '/direct/charges', { paymentProfileId: profile.paymentProfileId, amount: '30.00', currency: 'USD', idempotencyKey: uniq('idem-') })
    ).body;
    const r1 = await direct('POST', `/direct/charges/${charge.chargeId}/refund`, { amount: '10.00', idempotencyKey: uniq('ref-') });
    expect(r1.status).toBe(200);
    expect(r1.body).toEqual({ chargeId: charge.chargeId, status: 'refunded', refundedAmount: '10.00' });
    const over = await direct('POST', `/direct/charges/${charge.chargeId}/refund`, { amount: '20.01', idempotencyKey: uniq('ref-') });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('refund_exceeds_charge');
    const rest = await direct('POST', `/direct/charges/${charge.chargeId}/refund`, { idempotencyKey: uniq('ref-') });
    expect(rest.body).toEqual({ chargeId: charge.chargeId, status: 'refunded', refundedAmount: '30.00' });
    const refunds = await ledger({ paymentProfileId: profile.paymentProfileId, kind: 'refund' });
    expect(refunds.map((e) => e.amount)).toEqual(['10.00', '20.00']);
  });

  test('when an unknown charge is voided, then 404', async () => {
    const res = await direct('POST', '/direct/charges/ch_missing/void', { idempotencyKey: uniq('void-') });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('charge_not_found');
  });
});

describe('provider sandbox: ProviderHosted', () => {
  test('when a setup is paid with an approved card, then a signed callback arrives, the browser follows its redirect and resend repeats it', async () => {
    const cb = await startCallbackServer((res) => {
      res.statusCode = 302;
      res.setHeader('location', 'http://127.0.0.1:9/return?result=Approved');
      res.end();
    });
    try {
      const reference = uniq('INV-');
      const s = await setup({ callbackUrl: cb.url, reference, saveCard: true, returnUrl: 'http://127.0.0.1:9/return' });
      expect(s.hostedPaymentUrl).toBe(`${PROVIDER}/hosted/pay/${s.transactionSetupId}`);

      const pageRes = await fetch(s.hostedPaymentUrl);
      expect(pageRes.status).toBe(200);
      expect(pageRes.headers.get('content-type')).toContain('text/html');
      const html = await pageRes.text();
      expect(html).toContain(`<form method="post" action="/hosted/pay/${s.transactionSetupId}"`);
      for (const name of ['cardNumber', 'expMonth', 'expYear', 'cvv', 'cardholderName']) expect(html).toContain(`name="${name}"`);
      expect(html).toMatch(/<button type="submit"/);

      const paid = await submitForm(s.hostedPaymentUrl, {
        cardNumber: '4111111111111111',
        expMonth: '12',
        expYear: '2030',
        cvv: '123',
        cardholderName: 'Ada Buyer',
      });
      expect(paid.status).toBe(302);
      expect(paid.headers.get('location')).toBe('http://127.0.0.1:9/return?result=Approved');

      expect(cb.received).toHaveLength(1);
      expect(cb.contentTypes[0]).toContain('application/x-www-form-urlencoded');
      const f = cb.received[0];
      expect(Object.keys(f).sort()).toEqual(
        [
          'Amount',
          'ApprovalCode',
          'CardType',
          'ExpirationMonth',
          'ExpirationYear',
          'LastFour',
          'PaymentProfileId',
          'Result',
          'Signature',
          'Timestamp',
          'TransactionId',
          'TransactionSetupID',
        ].sort(),
      );
      expect(f).toMatchObject({
        TransactionSetupID: s.transactionSetupId,
        Result: 'Approved',
        Amount: '25.50',
        CardType: 'Visa',
        LastFour: '1111',
        ExpirationMonth: '12',
        ExpirationYear: '2030',
      });
      expect(f.ApprovalCode).not.toBe('');
      expect(f.PaymentProfileId).not.toBe('');
      expect(f.TransactionId).not.toBe('');
      expect(verifyCallbackSignature(f, SECRET)).toBe(true);
      expect(verifyCallbackSignature({ ...f, Amount: '1.00' }, SECRET)).toBe(false);
      expect(JSON.stringify(f)).not.toContain('4111111111111111');

      const entries = await ledger({ reference });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        kind: 'charge',
        amount: '25.50',
        currency: 'USD',
        reference,
        paymentProfileId: f.PaymentProfileId,
        status: 'approved',
      });

      const resend = await call('POST', `/hosted/callbacks/${s.transactionSetupId}/resend`, { base: PROVIDER });
      expect(resend.status).toBe(200);
      expect(cb.received).toHaveLength(2);
      expect(cb.received[1]).toEqual(f);
      expect(await ledger({ reference })).toHaveLength(1);

      const twice = await submitForm(s.hostedPaymentUrl, {
        cardNumber: '4111111111111111',
        expMonth: '12',
        expYear: '2030',
        cvv: '123',
        cardholderName: 'Ada Buyer',
      });
      expect(twice.status).toBe(409);
      expect(await ledger({ reference })).toHaveLength(1);
    } finally {
      await cb.close();
    }
  });

  test('when a setup is paid with a declining card, then the callback says Declined with no approval code and nothing is charged', async () => {
    const cb = await startCallbackServer((res) => {
      res.statusCode = 200;
      res.end('ok');
    });
    try {
      const reference = uniq('INV-');
      const s = await setup({ callbackUrl: cb.url, reference });
      const paid = await submitForm(s.hostedPaymentUrl, {
        cardNumber: '4000000000000002',
        expMonth: '12',
        expYear: '2030',
        cvv: '123',
        cardholderName: '<b>x</b>',
      });
      expect(paid.status).toBe(200);
      expect(paid.headers.get('content-type')).toContain('text/html');
      expect(cb.received).toHaveLength(1);
      expect(cb.received[0]).toMatchObject({
        TransactionSetupID: s.transactionSetupId,
        Result: 'Declined',
        ApprovalCode: '',
        PaymentProfileId: '',
        LastFour: '0002',
      });
      expect(verifyCallbackSignature(cb.received[0], SECRET)).toBe(true);
      expect(await ledger({ reference })).toHaveLength(0);
    } finally {
      await cb.close();
    }
  });

  test('when an invalid card number is submitted, then the form is shown again with an escaped error and no callback is sent', async () => {
    const cb = await startCallbackServer((res) => res.end());
    try {
      const s = await setup({ callbackUrl: cb.url });
      const res = await submitForm(s.hostedPaymentUrl, {
        cardNumber: '1234',
        expMonth: '12',
        expYear: '2030',
        cvv: '123',
        cardholderName: '<script>alert(1)</script>',
      });
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('<form method="post"');
      expect(html).not.toContain('<script>alert(1)</script>');
      expect(html).toContain('&lt;script&gt;');
      expect(cb.received).toHaveLength(0);
    } finally {
      await cb.close();
    }
  });

  test('when a setup has expired, then its page answers 410 saying so', async () => {
    const s = await setup({ callbackUrl: 'http://127.0.0.1:9/cb', expiresInSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    const res = await fetch(s.hostedPaymentUrl);
    expect(res.status).toBe(410);
    expect((await res.text()).toLowerCase()).toContain('expired');
    const post = await submitForm(s.hostedPaymentUrl, { cardNumber: '4111111111111111', expMonth: '12', expYear: '2030', cvv: '123', cardholderName: 'A' });
    expect(post.status).toBe(410);
  });

  test('when a setup has invalid fields, then 400 names them', async () => {
    const res = await direct('POST', '/hosted/transaction-setup', { amount: 'x', callbackUrl: 'not a url', saveCard: 'yes', expiresInSeconds: 0 });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.fields).sort()).toEqual(['amount', 'callbackUrl', 'expiresInSeconds', 'saveCard']);
  });

  test('when a callback is resent for an unpaid setup, then 409', async () => {
    const s = await setup({ callbackUrl: 'http://127.0.0.1:9/cb' });
    const res = await call('POST', `/hosted/callbacks/${s.transactionSetupId}/resend`, { base: PROVIDER });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('no_callback');
  });
});
