/**
 * Cards on file as the API offers them (POST /api/payments/payment-methods, GET
 * /api/payments/{customerNumber}/profiles). ProviderDirect tokenizes the card at the provider
 * (the number and CVV go to the provider once, never to the database, logs or workflow inputs);
 * ProviderHosted answers a hosted page (a 0.00 setup that only saves the card). Customer tokens
 * act only for their own customerNumber and sales reps for their customers (404 otherwise).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { checkCard } from '../../domain/payments/cards.js';
import { PaymentMethod } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { gatewayFor, paymentSettingsFor } from '../integrations/provider-settings.js';
import { findVisibleCustomer } from '../customers/visibility.js';
import { startHostedSetup } from './hosted.js';
import { customerCurrency, saveProfileAsPaymentMethod } from './methods.js';
import { assertReturnUrlAllowed } from './return-url.js';

/** Return URL of the hosted card-save flow when the client gives no appUrl (a local development address). */
const DEFAULT_APP_URL = 'http://localhost:3000/payment-methods/complete';

export interface NewCardRequest {
  customerNumber: string;
  emailAddress: string;
  cardNumber?: string;
  expirationMonth?: string;
  expirationYear?: string;
  cardCode?: string;
  billingAddress: Record<string, unknown>;
  isDefault?: boolean;
  paymentProvider?: string;
  appUrl?: string;
}

/** The saved card (ProviderDirect), or the hosted page where the customer enters it (ProviderHosted). */
export type NewCardResult = { provider: 'ProviderDirect'; method: PaymentMethod } | { provider: 'ProviderHosted'; hostedPaymentUrl: string };

export async function addPaymentMethod(em: EntityManager, deps: { config: Config; temporal: Client }, orgId: string, auth: Principal, body: NewCardRequest): Promise<NewCardResult> {
  const customer = await findVisibleCustomer(em, orgId, auth, body.customerNumber);
  const settings = await paymentSettingsFor(em, deps.config, orgId);
  const provider = (body.paymentProvider as 'ProviderDirect' | 'ProviderHosted' | undefined) ?? settings.provider;
  if (provider === 'ProviderHosted') {
    if (body.appUrl) await assertReturnUrlAllowed(em, deps.config, orgId, 'appUrl', body.appUrl);
    const setup = await startHostedSetup(em, deps, {
      organizationId: orgId,
      customerNumber: customer.customerNumber,
      customerId: customer.id,
      amount: '0.00',
      currency: await customerCurrency(em, orgId, customer),
      returnUrl: body.appUrl ?? DEFAULT_APP_URL,
      marketCode: 'Default',
      isDefault: body.isDefault ?? false,
      saveCard: true,
      billingAddress: body.billingAddress,
    });
    return { provider, hostedPaymentUrl: setup.hostedPaymentUrl };
  }
  // The schema required the card fields (the provider was not ProviderHosted in the body);
  // when the organization's default is hosted-only they may be missing: check again.
  const check = checkCard({ number: body.cardNumber, expMonth: body.expirationMonth, expYear: body.expirationYear, cvv: undefined });
  if (!body.cardNumber || !body.expirationMonth || !body.expirationYear || !body.cardCode || check.outcome === 'invalid') {
    throw AppError.field('cardNumber', 'cardNumber, expirationMonth, expirationYear and cardCode must describe a valid card.');
  }
  const gateway = await gatewayFor(em, deps.config, orgId);
  const profile = await gateway.tokenizeCard({
    customerNumber: customer.customerNumber,
    email: body.emailAddress,
    card: { number: body.cardNumber, expMonth: body.expirationMonth, expYear: body.expirationYear, cvv: body.cardCode },
    billingAddress: body.billingAddress,
  });
  const { method } = await saveProfileAsPaymentMethod(em, orgId, {
    customerNumber: customer.customerNumber,
    customerId: customer.id,
    profile,
    billingAddress: body.billingAddress,
    isDefault: body.isDefault ?? false,
    paymentProvider: 'ProviderDirect',
  });
  return { provider: 'ProviderDirect', method };
}

/** A customer's saved cards (active payment methods), default first. */
export async function listPaymentMethods(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<PaymentMethod[]> {
  const customer = await findVisibleCustomer(em, orgId, auth, customerNumber);
  return em.find(
    PaymentMethod,
    { organization: orgId, customerId: customer.id, active: true },
    { orderBy: [{ isDefault: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }] },
  );
}
