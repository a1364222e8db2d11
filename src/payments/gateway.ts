/**
 * Card payment gateway: the one interface the service uses to talk to a payment provider
 * (ProviderDirect card-on-file charges, refunds, voids). `gatewayFor` picks the provider
 * from the organization's Payment integration, else the deployment's default settings
 * (PAYMENT_PROVIDER_URL: the provider sandbox in dev and tests).
 *
 * CONTRACT shared by the payments, checkout and invoices work: keep these signatures.
 * The payments work replaces the body of `gatewayFor`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';

export interface CardCharge {
  chargeId: string;
  /** Decimal string, e.g. "99.90". */
  amount: string;
  currency: string;
}

export interface PaymentGateway {
  provider: 'ProviderDirect' | 'ProviderHosted';
  /** Charges a stored payment profile; the same idempotencyKey never charges twice. Declines throw AppError('payment_required'). */
  chargeProfile(input: { paymentProfileId: string; amount: string; currency: string; idempotencyKey: string; reference?: string }): Promise<CardCharge>;
  /** Tokenizes a card once (never stored) and charges it in one step; used by checkout with a card in the request. */
  chargeCard?(input: {
    customerNumber: string;
    email: string;
    card: { number: string; expMonth: string; expYear: string; cvv: string };
    billingAddress: Record<string, unknown>;
    amount: string;
    currency: string;
    idempotencyKey: string;
    reference?: string;
  }): Promise<CardCharge & { paymentProfileId: string }>;
  /** Refunds part or all of a charge; idempotent per key. */
  refund(input: { chargeId: string; amount: string; idempotencyKey: string }): Promise<{ refundedAmount: string }>;
  /** Voids a charge (compensation when a later step fails); idempotent per key. */
  void(input: { chargeId: string; idempotencyKey: string }): Promise<void>;
}

export async function gatewayFor(_em: EntityManager, _config: Config, _organizationId: string): Promise<PaymentGateway> {
  throw new Error('payment gateway not implemented yet');
}
