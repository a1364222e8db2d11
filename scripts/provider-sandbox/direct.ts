/** ProviderDirect of the sandbox: card-on-file customer profiles, charges, voids and refunds (a JSON API behind a Bearer API key). */
import type http from 'node:http';
import type { URL } from 'node:url';
import { checkTestCard, directErrorCode, formatCents, parseAmountCents } from './cards.js';
import { HttpError, id, merchantOf, messageFor, nonEmpty, optString, readJson, reply, sendJson } from './http.js';
import type { Charge, SandboxState } from './state.js';

export function directRoutes(st: SandboxState) {
  const { log, profiles, charges, addLedger, chargeView, profileView, createProfile, idempotent } = st;


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


  /** Answers /direct/...; the caller has matched the first path part. */
  async function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL, method: string, parts: string[]): Promise<void> {
    const p = (i: number) => parts[i] ?? '';
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

  return { route };
}
