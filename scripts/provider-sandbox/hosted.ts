/** ProviderHosted of the sandbox: transaction setups, the hosted HTML payment page and its signed form-encoded callback. */
import { randomBytes, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { withSignature } from '../../src/domain/payments/callback-signature.js';
import { checkTestCard, formatCents, hostedResult, parseAmountCents } from './cards.js';
import { esc, messagePage, page, payFormPage } from './html.js';
import { HttpError, id, isHttpUrl, merchantOf, optString, readBody, readJson, reply, sendHtml, sendJson } from './http.js';
import type { CallbackDelivery, Charge, HostedSetup, SandboxState } from './state.js';

export function hostedRoutes(st: SandboxState) {
  const { opts, log, publicUrl, charges, setups, addLedger, createProfile } = st;


  function hostedSetup(merchant: string | null, body: Record<string, unknown>) {
    const fields: Record<string, string> = {};
    const cents = parseAmountCents(body.amount);
    if (cents === null) fields.amount = 'a decimal (string or number) of at least 0.00, up to 2 decimals';
    const currency = body.currency === undefined ? 'USD' : typeof body.currency === 'string' ? body.currency.trim().toUpperCase() : '';
    if (!/^[A-Z]{3}$/.test(currency)) fields.currency = 'a three-letter currency code';
    if (!isHttpUrl(body.callbackUrl)) fields.callbackUrl = 'an absolute http(s) URL';
    if (body.returnUrl !== undefined && body.returnUrl !== null && !isHttpUrl(body.returnUrl)) fields.returnUrl = 'an absolute http(s) URL';
    if (body.saveCard !== undefined && typeof body.saveCard !== 'boolean') fields.saveCard = 'a boolean';
    const ttl = body.expiresInSeconds === undefined ? 600 : body.expiresInSeconds;
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > 86400) fields.expiresInSeconds = 'an integer from 1 to 86400';
    if (body.reference !== undefined && body.reference !== null && typeof body.reference !== 'string') fields.reference = 'a string';
    if (Object.keys(fields).length) throw new HttpError(400, 'invalid_request', 'Some fields are missing or invalid.', fields);
    const s: HostedSetup = {
      transactionSetupId: randomUUID(),
      amountCents: cents!,
      currency,
      reference: optString(body.reference),
      customerNumber: optString(body.customerNumber),
      returnUrl: optString(body.returnUrl),
      callbackUrl: String(body.callbackUrl),
      saveCard: body.saveCard === true,
      expiresAt: new Date(Date.now() + (ttl as number) * 1000),
      createdAt: new Date().toISOString(),
      merchant,
      state: 'pending',
      callback: null,
      deliveries: [],
    };
    setups.set(s.transactionSetupId, s);
    log('hosted transaction setup', { transactionSetupId: s.transactionSetupId, amount: formatCents(s.amountCents) });
    return {
      status: 201,
      body: {
        transactionSetupId: s.transactionSetupId,
        hostedPaymentUrl: `${publicUrl}/hosted/pay/${s.transactionSetupId}`,
        expiresAt: s.expiresAt.toISOString(),
      },
    };
  }

  const setupView = (s: HostedSetup) => ({
    transactionSetupId: s.transactionSetupId,
    status: s.state === 'completed' ? 'completed' : s.expiresAt.getTime() <= Date.now() ? 'expired' : 'pending',
    amount: formatCents(s.amountCents),
    currency: s.currency,
    reference: s.reference,
    saveCard: s.saveCard,
    callbackUrl: s.callbackUrl,
    returnUrl: s.returnUrl,
    expiresAt: s.expiresAt.toISOString(),
    createdAt: s.createdAt,
    result: s.callback?.Result ?? null,
    callback: s.callback,
    deliveries: s.deliveries,
  });

  async function deliverCallback(s: HostedSetup): Promise<CallbackDelivery> {
    const d: CallbackDelivery = { at: new Date().toISOString(), status: null, location: null, error: null };
    try {
      const res = await fetch(s.callbackUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(s.callback!).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(15_000),
      });
      d.status = res.status;
      d.location = res.headers.get('location');
      await res.arrayBuffer().catch(() => undefined);
    } catch (e) {
      d.error = (e as Error).message;
    }
    s.deliveries.push(d);
    log('hosted callback delivered', { transactionSetupId: s.transactionSetupId, status: d.status, error: d.error });
    return d;
  }

  async function hostedPay(s: HostedSetup, form: URLSearchParams, res: http.ServerResponse): Promise<void> {
    if (s.state === 'completed') return sendHtml(res, 409, messagePage('Payment already processed', 'This payment has already been processed.'));
    if (s.expiresAt.getTime() <= Date.now())
      return sendHtml(res, 410, messagePage('Payment page expired', 'This payment page has expired. Please start the payment again.'));
    const check = checkTestCard({
      number: form.get('cardNumber') ?? '',
      expMonth: form.get('expMonth') ?? '',
      expYear: form.get('expYear') ?? '',
      cvv: form.get('cvv') ?? '',
    });
    log('hosted payment submitted', {
      transactionSetupId: s.transactionSetupId,
      outcome: check.outcome,
      cardType: check.cardType ?? null,
      lastFour: check.lastFour ?? null,
    });
    if (check.outcome === 'invalid') {
      return sendHtml(res, 400, payFormPage(view(s), check.reason ?? 'The card details are not valid.', { cardholderName: form.get('cardholderName') ?? '' }));
    }
    s.state = 'completed';
    const approved = check.outcome === 'approved';
    const transactionId = id('tx');
    let paymentProfileId = '';
    if (approved && s.saveCard) {
      paymentProfileId = createProfile(check as Required<typeof check>, {
        customerNumber: s.customerNumber,
        email: null,
        provider: 'ProviderHosted',
        merchant: s.merchant,
      }).paymentProfileId;
    }
    if (approved && s.amountCents > 0n) {
      const charge: Charge = {
        chargeId: transactionId,
        status: 'approved',
        amountCents: s.amountCents,
        refundedCents: 0n,
        currency: s.currency,
        paymentProfileId: paymentProfileId || null,
        reference: s.reference,
        description: null,
        idempotencyKey: s.transactionSetupId,
        provider: 'ProviderHosted',
        merchant: s.merchant,
        createdAt: new Date().toISOString(),
      };
      charges.set(charge.chargeId, charge);
      addLedger({
        kind: 'charge',
        provider: 'ProviderHosted',
        chargeId: charge.chargeId,
        amount: formatCents(s.amountCents),
        currency: s.currency,
        idempotencyKey: s.transactionSetupId,
        reference: s.reference,
        paymentProfileId: charge.paymentProfileId,
        status: 'approved',
        merchant: s.merchant,
      });
    }
    s.callback = withSignature(
      {
        TransactionSetupID: s.transactionSetupId,
        ApprovalCode: approved ? randomBytes(3).toString('hex').toUpperCase() : '',
        Result: hostedResult(check.outcome),
        Amount: formatCents(s.amountCents),
        CardType: check.cardType!,
        LastFour: check.lastFour!,
        ExpirationMonth: String(check.expMonth!).padStart(2, '0'),
        ExpirationYear: String(check.expYear!),
        PaymentProfileId: paymentProfileId,
        TransactionId: transactionId,
        Timestamp: new Date().toISOString(),
      },
      opts.callbackSecret,
    );
    const d = await deliverCallback(s);
    if (d.status !== null && d.status >= 300 && d.status < 400 && d.location) {
      res.statusCode = 302;
      res.setHeader('location', d.location);
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(page('Redirecting', `<p><a href="${esc(d.location)}">Continue</a></p>`));
      return;
    }
    const text = approved ? 'Your payment was approved.' : `Your payment was not approved (${s.callback.Result}).`;
    const back = s.returnUrl ? `<p><a href="${esc(s.returnUrl)}">Return to the merchant</a></p>` : '';
    return sendHtml(res, 200, page(approved ? 'Payment approved' : 'Payment not approved', `<p>${esc(text)}</p>${back}`));
  }

  const view = (s: HostedSetup) => ({
    transactionSetupId: s.transactionSetupId,
    amount: formatCents(s.amountCents),
    currency: s.currency,
    reference: s.reference,
  });


  /** Answers /hosted/...; the caller has matched the first path part. */
  async function route(req: http.IncomingMessage, res: http.ServerResponse, method: string, parts: string[]): Promise<void> {
    const p = (i: number) => parts[i] ?? '';
    if (method === 'POST' && parts.length === 2 && p(1) === 'transaction-setup') return reply(res, hostedSetup(merchantOf(req), await readJson(req)));
    if (method === 'GET' && parts.length === 3 && p(1) === 'transaction-setup') {
      const s = setups.get(p(2));
      if (!s) throw new HttpError(404, 'transaction_setup_not_found', 'No such transaction setup.');
      return sendJson(res, 200, setupView(s));
    }
    if (parts.length === 3 && p(1) === 'pay') {
      const s = setups.get(p(2));
      if (method === 'GET') {
        if (!s) return sendHtml(res, 404, messagePage('Payment not found', 'This payment page does not exist.'));
        if (s.state === 'completed') return sendHtml(res, 409, messagePage('Payment already processed', 'This payment has already been processed.'));
        if (s.expiresAt.getTime() <= Date.now())
          return sendHtml(res, 410, messagePage('Payment page expired', 'This payment page has expired. Please start the payment again.'));
        return sendHtml(res, 200, payFormPage(view(s)));
      }
      if (method === 'POST') {
        const form = new URLSearchParams(await readBody(req));
        if (!s) return sendHtml(res, 404, messagePage('Payment not found', 'This payment page does not exist.'));
        return hostedPay(s, form, res);
      }
    }
    if (method === 'POST' && parts.length === 4 && p(1) === 'callbacks' && p(3) === 'resend') {
      const s = setups.get(p(2));
      if (!s) throw new HttpError(404, 'transaction_setup_not_found', 'No such transaction setup.');
      if (!s.callback) throw new HttpError(409, 'no_callback', 'This setup has not been paid yet; there is no callback to resend.');
      const d = await deliverCallback(s);
      return sendJson(res, 200, { transactionSetupId: s.transactionSetupId, delivery: d, callback: s.callback });
    }
    throw new HttpError(404, 'not_found', 'No such endpoint.');
  }

  return { route };
}
