/**
 * Checkout's access to the card provider. Tokenizing a card (create a customer/payment
 * profile, no charge) is not part of the PaymentGateway contract, so it is done here
 * against the ProviderDirect API of the deployment's provider. Charges and voids go through
 * `gatewayFor`; while that is not available (it throws "not implemented"), the same
 * ProviderDirect calls are made here. Card data is sent once and never stored or logged.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { gatewayFor, type CardCharge, type PaymentGateway } from './gateway.js';

const apiKey = () => process.env.PAYMENT_PROVIDER_API_KEY || 'commerce-default';

async function direct(config: Config, path: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
  if (!config.paymentProviderUrl) throw new AppError('unavailable', 'No payment provider is configured.');
  const res = await fetch(`${config.paymentProviderUrl}/direct${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey()}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, any> = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    /* non-JSON */
  }
  return { status: res.status, body: parsed };
}

function fail(status: number, body: Record<string, any>, what: string): never {
  const message = String(body?.error?.message ?? `${what} failed.`);
  if (status === 402) throw new AppError('payment_required', `The card was declined: ${message}`);
  if (status >= 400 && status < 500) throw AppError.badRequest(`${what} failed: ${message}`);
  throw new AppError('unavailable', `The payment provider is unavailable (${status}).`);
}

export interface CardInput {
  cardNumber: string;
  cardholderName: string;
  expiryMonth: string | number;
  expiryYear: string | number;
  cvv: string;
}

/** Saves the card with the provider (no charge) and returns the payment profile id. */
export async function tokenizeCard(config: Config, input: { customerNumber: string; email: string | null; card: CardInput; billingAddress: unknown }): Promise<string> {
  const res = await direct(config, '/customer-profiles', {
    customerNumber: input.customerNumber,
    email: input.email,
    card: { number: input.card.cardNumber, expMonth: input.card.expiryMonth, expYear: input.card.expiryYear, cvv: input.card.cvv, name: input.card.cardholderName },
    billingAddress: input.billingAddress,
  });
  if (res.status !== 201 && res.status !== 200) fail(res.status, res.body, 'Saving the card');
  return String(res.body.paymentProfileId);
}


function directGateway(config: Config): Pick<PaymentGateway, 'chargeProfile' | 'void'> {
  return {
    async chargeProfile(input): Promise<CardCharge> {
      const res = await direct(config, '/charges', input);
      if (res.status !== 201 && res.status !== 200) fail(res.status, res.body, 'The charge');
      return { chargeId: String(res.body.chargeId), amount: String(res.body.amount ?? input.amount), currency: String(res.body.currency ?? input.currency) };
    },
    async void(input): Promise<void> {
      const res = await direct(config, `/charges/${encodeURIComponent(input.chargeId)}/void`, { idempotencyKey: input.idempotencyKey });
      if (res.status >= 300) fail(res.status, res.body, 'The void');
    },
  };
}

/** The organization's gateway, or ProviderDirect at the deployment's provider while gatewayFor is not implemented. */
export async function checkoutGateway(em: EntityManager, config: Config, organizationId: string): Promise<Pick<PaymentGateway, 'chargeProfile' | 'void'>> {
  try {
    return await gatewayFor(em, config, organizationId);
  } catch (e) {
    if (String((e as Error).message).includes('not implemented')) return directGateway(config);
    throw e;
  }
}
