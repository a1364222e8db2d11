/**
 * The payment provider sandbox: ProviderDirect (card-on-file JSON API) and ProviderHosted
 * (transaction setup, hosted HTML page, signed form-encoded callback), plus a ledger that
 * tests read to prove each charge happened exactly once. State lives in memory (a sandbox);
 * every piece of it is readable over HTTP. Card rules are in src/domain/payments/cards.ts and ./cards.ts (test cards).
 * Raw card numbers and CVVs are never stored, returned or logged.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { URL } from 'node:url';
import type { CardType } from '../../src/domain/payments/cards.js';
import { checkTestCard, directErrorCode, expirationMMYY, formatCents, hostedResult, parseAmountCents } from './cards.js';
import { withSignature, type CallbackFields } from '../../src/domain/payments/callback-signature.js';
import { esc, messagePage, page, payFormPage } from './html.js';

export interface SandboxOptions {
  callbackSecret: string;
  publicUrl: string;
  log?: (msg: string, fields: Record<string, unknown>) => void;
}

type Provider = 'ProviderDirect' | 'ProviderHosted';

interface PaymentProfile {
  customerProfileId: string;
  paymentProfileId: string;
  customerNumber: string | null;
  email: string | null;
  maskedCardNumber: string;
  cardType: CardType;
  lastFour: string;
  expMonth: number;
  expYear: number;
  networkTransactionId: string;
  provider: Provider;
  merchant: string | null;
  createdAt: string;
}

interface Charge {
  chargeId: string;
  status: 'approved' | 'voided' | 'refunded';
  amountCents: bigint;
  refundedCents: bigint;
  currency: string;
  paymentProfileId: string | null;
  reference: string | null;
  description: string | null;
  idempotencyKey: string;
  provider: Provider;
  merchant: string | null;
  createdAt: string;
}

interface LedgerEntry {
  id: string;
  kind: 'charge' | 'void' | 'refund';
  provider: Provider;
  chargeId: string;
  amount: string;
  currency: string;
  idempotencyKey: string;
  reference: string | null;
  paymentProfileId: string | null;
  status: string;
  merchant: string | null;
  createdAt: string;
}

interface StoredReply {
  fingerprint: string;
  status: number;
  body: unknown;
}

interface CallbackDelivery {
  at: string;
  status: number | null;
  location: string | null;
  error: string | null;
}

interface HostedSetup {
  transactionSetupId: string;
  amountCents: bigint;
  currency: string;
  reference: string | null;
  customerNumber: string | null;
  returnUrl: string | null;
  callbackUrl: string;
  saveCard: boolean;
  expiresAt: Date;
  createdAt: string;
  merchant: string | null;
  state: 'pending' | 'completed';
  callback: CallbackFields | null;
  deliveries: CallbackDelivery[];
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

const MAX_BODY = 64 * 1024;
const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');
const fingerprintKey = (key: string) => `mk_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;
const optString = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

export function createSandboxServer(opts: SandboxOptions): http.Server {
  const log = opts.log ?? (() => undefined);
  const publicUrl = opts.publicUrl.replace(/\/+$/, '');
  const profiles = new Map<string, PaymentProfile>();
  const customerProfiles = new Map<string, string>(); // merchant|customerNumber -> customerProfileId
  const charges = new Map<string, Charge>();
  const replies = new Map<string, StoredReply>(); // merchant|operation|idempotencyKey -> first reply
  const setups = new Map<string, HostedSetup>();
  const ledger: LedgerEntry[] = [];

  const addLedger = (e: Omit<LedgerEntry, 'id' | 'createdAt'>) => {
    const entry = { id: id('le'), createdAt: new Date().toISOString(), ...e };
    ledger.push(entry);
    return entry;
  };

  const chargeView = (c: Charge) => ({
    chargeId: c.chargeId,
    status: c.status,
    amount: formatCents(c.amountCents),
    currency: c.currency,
    refundedAmount: formatCents(c.refundedCents),
    paymentProfileId: c.paymentProfileId,
    reference: c.reference,
    idempotencyKey: c.idempotencyKey,
    createdAt: c.createdAt,
  });

  const profileView = (p: PaymentProfile) => ({
    customerProfileId: p.customerProfileId,
    paymentProfileId: p.paymentProfileId,
    maskedCardNumber: p.maskedCardNumber,
    cardType: p.cardType,
    expirationDate: expirationMMYY(p.expMonth, p.expYear),
    expMonth: p.expMonth,
    expYear: p.expYear,
    networkTransactionId: p.networkTransactionId,
  });

  const createProfile = (
    card: { cardType: CardType; lastFour: string; maskedCardNumber: string; expMonth: number; expYear: number },
    extra: { customerNumber: string | null; email: string | null; provider: Provider; merchant: string | null },
  ): PaymentProfile => {
    const custKey = `${extra.merchant ?? ''}|${extra.customerNumber ?? randomUUID()}`;
    let customerProfileId = customerProfiles.get(custKey);
    if (!customerProfileId) {
      customerProfileId = id('cus');
      customerProfiles.set(custKey, customerProfileId);
    }
    const p: PaymentProfile = {
      customerProfileId,
      paymentProfileId: id('pp'),
      ...extra,
      cardType: card.cardType,
      lastFour: card.lastFour,
      maskedCardNumber: card.maskedCardNumber,
      expMonth: card.expMonth,
      expYear: card.expYear,
      networkTransactionId: digits(15),
      createdAt: new Date().toISOString(),
    };
    profiles.set(p.paymentProfileId, p);
    return p;
  };

  /** Replays the first answer for an idempotency key; a different request under the same key is 409. */
  const idempotent = (scope: string, key: string, fingerprint: string, run: () => { status: number; body: unknown }) => {
    const prior = replies.get(scope + '|' + key);
    if (prior) {
      if (prior.fingerprint !== fingerprint) throw new HttpError(409, 'idempotency_conflict', 'This idempotencyKey was already used with a different request.');
      return { status: prior.status === 201 ? 200 : prior.status, body: prior.body };
    }
    const reply = run();
    replies.set(scope + '|' + key, { fingerprint, ...reply });
    return reply;
  };

  // ---------- ProviderDirect ----------

  function directCustomerProfile(merchant: string, body: Record<string, unknown>) {
    const card = (body.card ?? {}) as Record<string, unknown>;
    const fields: Record<string, string> = {};
    if (!nonEmpty(body.customerNumber)) fields.customerNumber = 'required';
    if (typeof card !== 'object' || card === null || Array.isArray(card)) fields.card = 'required object';
    else {
      if (!nonEmpty(card.number)) fields['card.number'] = 'required';
      if (card.expMonth === undefined || card.expMonth === null || card.expMonth === '') fields['card.expMonth'] = 'required';
      if (card.expYear === undefined || card.expYear === null || card.expYear === '') fields['card.expYear'] = 'required';
      if (card.cvv === undefined || card.cvv === null || card.cvv === '') fields['card.cvv'] = 'required';
    }
    if (Object.keys(fields).length) throw new HttpError(400, 'invalid_request', 'Some fields are missing or invalid.', fields);
    const check = checkTestCard({ number: card.number, expMonth: card.expMonth, expYear: card.expYear, cvv: card.cvv });
    log('direct customer profile', { outcome: check.outcome, cardType: check.cardType ?? null, lastFour: check.lastFour ?? null });
    if (check.outcome !== 'approved') {
      return { status: 402, body: { error: { code: directErrorCode(check.outcome), message: check.reason ?? messageFor(check.outcome) } } };
    }
    const p = createProfile(check as Required<typeof check>, {
      customerNumber: String(body.customerNumber).trim(),
      email: optString(body.email),
      provider: 'ProviderDirect',
      merchant,
    });
    return { status: 201, body: profileView(p) };
  }

  function directCharge(merchant: string, body: Record<string, unknown>) {
    const fields: Record<string, string> = {};
    const cents = parseAmountCents(body.amount);
    if (!nonEmpty(body.paymentProfileId)) fields.paymentProfileId = 'required';
    if (cents === null || cents <= 0n) fields.amount = 'a positive decimal string with up to 2 decimals';
    const currency = typeof body.currency === 'string' ? body.currency.trim().toUpperCase() : '';
    if (!/^[A-Z]{3}$/.test(currency)) fields.currency = 'a three-letter currency code';
    if (!nonEmpty(body.idempotencyKey)) fields.idempotencyKey = 'required';
    if (Object.keys(fields).length) throw new HttpError(400, 'invalid_request', 'Some fields are missing or invalid.', fields);
    const key = String(body.idempotencyKey);
    const paymentProfileId = String(body.paymentProfileId);
    const fp = JSON.stringify([paymentProfileId, String(cents), currency]);
    return idempotent(`${merchant}|charge`, key, fp, () => {
      const profile = profiles.get(paymentProfileId);
      if (!profile) return { status: 404, body: { error: { code: 'payment_profile_not_found', message: 'No such payment profile.' } } };
      const now = new Date();
      if (now.getTime() >= Date.UTC(profile.expYear, profile.expMonth, 1)) {
        return { status: 402, body: { error: { code: 'expired_card', message: messageFor('expired') } } };
      }
      const charge: Charge = {
        chargeId: id('ch'),
        status: 'approved',
        amountCents: cents!,
        refundedCents: 0n,
        currency,
        paymentProfileId,
        reference: optString(body.reference),
        description: optString(body.description),
        idempotencyKey: key,
        provider: 'ProviderDirect',
        merchant,
        createdAt: now.toISOString(),
      };
      charges.set(charge.chargeId, charge);
      addLedger({
        kind: 'charge',
        provider: 'ProviderDirect',
        chargeId: charge.chargeId,
        amount: formatCents(charge.amountCents),
        currency,
        idempotencyKey: key,
        reference: charge.reference,
        paymentProfileId,
        status: 'approved',
        merchant,
      });
      log('direct charge', { chargeId: charge.chargeId, amount: formatCents(charge.amountCents), currency });
      return { status: 201, body: { chargeId: charge.chargeId, status: charge.status, amount: formatCents(charge.amountCents), currency } };
    });
  }

  function directReverse(merchant: string, chargeId: string, kind: 'void' | 'refund', body: Record<string, unknown>) {
    const fields: Record<string, string> = {};
    if (!nonEmpty(body.idempotencyKey)) fields.idempotencyKey = 'required';
    let requested: bigint | null = null;
    if (kind === 'refund' && body.amount !== undefined && body.amount !== null) {
      requested = parseAmountCents(body.amount);
      if (requested === null || requested <= 0n) fields.amount = 'a positive decimal string with up to 2 decimals';
    }
    if (Object.keys(fields).length) throw new HttpError(400, 'invalid_request', 'Some fields are missing or invalid.', fields);
    const key = String(body.idempotencyKey);
    const fp = JSON.stringify([chargeId, kind, requested === null ? null : String(requested)]);
    return idempotent(`${merchant}|reverse`, key, fp, () => {
      const c = charges.get(chargeId);
      if (!c) return { status: 404, body: { error: { code: 'charge_not_found', message: 'No such charge.' } } };
      const reply = () => ({ status: 200, body: { chargeId: c.chargeId, status: c.status, refundedAmount: formatCents(c.refundedCents) } });
      if (kind === 'void') {
        if (c.status === 'voided') return reply();
        if (c.refundedCents > 0n) return { status: 409, body: { error: { code: 'charge_refunded', message: 'A refunded charge cannot be voided.' } } };
        c.status = 'voided';
        c.refundedCents = c.amountCents;
        addLedger({
          kind: 'void',
          provider: c.provider,
          chargeId: c.chargeId,
          amount: formatCents(c.amountCents),
          currency: c.currency,
          idempotencyKey: key,
          reference: c.reference,
          paymentProfileId: c.paymentProfileId,
          status: 'voided',
          merchant,
        });
        return reply();
      }
      if (c.status === 'voided') return { status: 409, body: { error: { code: 'charge_voided', message: 'A voided charge cannot be refunded.' } } };
      const remaining = c.amountCents - c.refundedCents;
      const amount = requested ?? remaining;
      if (amount <= 0n || amount > remaining) {
        return {
          status: 400,
          body: { error: { code: 'refund_exceeds_charge', message: `The refund exceeds the refundable amount ${formatCents(remaining)}.` } },
        };
      }
      c.refundedCents += amount;
      c.status = 'refunded';
      addLedger({
        kind: 'refund',
        provider: c.provider,
        chargeId: c.chargeId,
        amount: formatCents(amount),
        currency: c.currency,
        idempotencyKey: key,
        reference: c.reference,
        paymentProfileId: c.paymentProfileId,
        status: 'refunded',
        merchant,
      });
      return reply();
    });
  }

  // ---------- ProviderHosted ----------

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

  // ---------- routing ----------

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const p = (i: number) => parts[i] ?? '';

    if (method === 'GET' && url.pathname === '/health') return sendJson(res, 200, { status: 'ok' });

    if (p(0) === 'direct') {
      const merchant = merchantOf(req);
      if (!merchant) throw new HttpError(401, 'unauthorized', 'Authorization: Bearer <apiKey> is required.');
      if (method === 'POST' && parts.length === 2 && p(1) === 'customer-profiles') return reply(res, directCustomerProfile(merchant, await readJson(req)));
      if (method === 'GET' && parts.length === 3 && p(1) === 'payment-profiles') {
        const prof = profiles.get(p(2));
        if (!prof) throw new HttpError(404, 'payment_profile_not_found', 'No such payment profile.');
        return sendJson(res, 200, profileView(prof));
      }
      if (method === 'POST' && parts.length === 2 && p(1) === 'charges') return reply(res, directCharge(merchant, await readJson(req)));
      // The merchant's charges since a time (the provider's settlement report): the payment janitor reconciles against it.
      if (method === 'GET' && parts.length === 2 && p(1) === 'charges') {
        const since = Date.parse(url.searchParams.get('since') ?? '') || 0;
        const list = [...charges.values()].filter((c) => c.merchant === merchant && Date.parse(c.createdAt) >= since);
        return sendJson(res, 200, { charges: list.map((c) => ({ ...chargeView(c), idempotencyKey: c.idempotencyKey, createdAt: c.createdAt })) });
      }
      if (method === 'GET' && parts.length === 3 && p(1) === 'charges') {
        const c = charges.get(p(2));
        if (!c) throw new HttpError(404, 'charge_not_found', 'No such charge.');
        return sendJson(res, 200, chargeView(c));
      }
      if (method === 'POST' && parts.length === 4 && p(1) === 'charges' && (p(3) === 'void' || p(3) === 'refund')) {
        return reply(res, directReverse(merchant, p(2), p(3) as 'void' | 'refund', await readJson(req)));
      }
      throw new HttpError(404, 'not_found', 'No such endpoint.');
    }

    if (p(0) === 'hosted') {
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

    if (method === 'GET' && url.pathname === '/ledger') {
      const q = url.searchParams;
      const filters: [keyof LedgerEntry, string | null][] = [
        ['reference', q.get('reference')],
        ['idempotencyKey', q.get('idempotencyKey')],
        ['paymentProfileId', q.get('paymentProfileId')],
        ['chargeId', q.get('chargeId')],
        ['kind', q.get('kind')],
      ];
      const entries = ledger.filter((e) => filters.every(([k, v]) => v === null || e[k] === v));
      return sendJson(res, 200, { entries });
    }

    throw new HttpError(404, 'not_found', 'No such endpoint.');
  }

  return http.createServer((req, res) => {
    const started = Date.now();
    res.on('finish', () => {
      // Path only: card data travels in bodies, which are never logged.
      log('request', { method: req.method, path: (req.url ?? '').split('?')[0], status: res.statusCode, ms: Date.now() - started });
    });
    route(req, res).catch((e: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      if (e instanceof HttpError) return sendJson(res, e.status, { error: { code: e.code, message: e.message, ...(e.fields ? { fields: e.fields } : {}) } });
      log('internal error', { error: (e as Error).message });
      sendJson(res, 500, { error: { code: 'internal_error', message: 'Internal sandbox error.' } });
    });
  });
}

function messageFor(outcome: string): string {
  return (
    {
      declined: 'The card was declined.',
      insufficient_funds: 'The card has insufficient funds.',
      expired: 'The card has expired.',
      invalid: 'The card is not valid.',
    } as Record<string, string>
  )[outcome];
}

function isHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The merchant is identified by a fingerprint of its API key (the key itself is not kept). */
function merchantOf(req: http.IncomingMessage): string | null {
  const m = /^Bearer\s+(\S.*)$/i.exec(req.headers.authorization ?? '');
  return m ? fingerprintKey(m[1].trim()) : null;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'payload_too_large', 'The request body is too large.'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  if (!text.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  return v as Record<string, unknown>;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(body));
}

function sendHtml(res: http.ServerResponse, status: number, html: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-frame-options', 'DENY');
  res.end(html);
}

const reply = (res: http.ServerResponse, r: { status: number; body: unknown }) => sendJson(res, r.status, r.body);
