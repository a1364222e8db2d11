/**
 * Cards on file (PaymentMethod rows): the SPEC view and the one way to save a card. Saving is
 * idempotent per provider paymentProfileId (unique per organization), and a new default card
 * unsets the customer's previous default in the same transaction (the partial unique index
 * "one active default per customer" backs it; a concurrent race is retried).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer, PaymentMethod } from '../../entities/index.js';
import type { CardProfile } from '../../adapters/payment-gateway.js';
import { findPriceTier } from '../catalog/pricing.js';
import { AppError, isUniqueViolation } from '../../errors.js';

export function paymentMethodView(m: PaymentMethod) {
  return {
    id: m.id,
    customerNumber: m.customerNumber,
    paymentProfileId: m.paymentProfileId,
    customerProfileId: m.customerProfileId,
    maskedCardNumber: m.maskedCardNumber,
    cardType: m.cardType,
    expirationDate: m.expirationDate,
    expMonth: m.expMonth,
    expYear: m.expYear,
    billingAddress: m.billingAddress ?? null,
    isDefault: m.isDefault,
    paymentProvider: m.paymentProvider,
    active: m.active,
    networkTransactionId: m.networkTransactionId ?? null,
  };
}

export interface NewPaymentMethod {
  customerNumber: string;
  /** The customer record the card belongs to. */
  customerId: string;
  paymentProfileId: string;
  customerProfileId: string;
  maskedCardNumber: string;
  cardType: string;
  expirationDate: string;
  expMonth: number;
  expYear: number;
  billingAddress: Record<string, unknown> | null;
  isDefault: boolean;
  paymentProvider: 'ProviderDirect' | 'ProviderHosted';
  networkTransactionId: string | null;
}

/** Saves the provider's tokenized card `profile` as a payment method of the customer (once per paymentProfileId). */
export function saveProfileAsPaymentMethod(
  em: EntityManager,
  orgId: string,
  input: { customerNumber: string; customerId: string; profile: CardProfile; billingAddress: Record<string, unknown> | null; isDefault: boolean; paymentProvider: NewPaymentMethod['paymentProvider'] },
): Promise<{ method: PaymentMethod; created: boolean }> {
  const { profile } = input;
  return savePaymentMethod(em, orgId, {
    customerNumber: input.customerNumber,
    customerId: input.customerId,
    paymentProfileId: profile.paymentProfileId,
    customerProfileId: profile.customerProfileId,
    maskedCardNumber: profile.maskedCardNumber,
    cardType: profile.cardType,
    expirationDate: profile.expirationDate,
    expMonth: profile.expMonth,
    expYear: profile.expYear,
    billingAddress: input.billingAddress,
    isDefault: input.isDefault,
    paymentProvider: input.paymentProvider,
    networkTransactionId: profile.networkTransactionId ?? null,
  });
}

/** Saves a card once per paymentProfileId; returns the row (the existing one on a repeat) and whether it was created. */
export async function savePaymentMethod(em: EntityManager, orgId: string, data: NewPaymentMethod): Promise<{ method: PaymentMethod; created: boolean }> {
  for (let attempt = 1; ; attempt++) {
    const tx = em.fork();
    try {
      return await tx.transactional(async (t) => {
        const existing = await t.findOne(PaymentMethod, { organization: orgId, paymentProfileId: data.paymentProfileId });
        if (existing) return { method: existing, created: false };
        if (data.isDefault) {
          await t.nativeUpdate(
            PaymentMethod,
            { organization: orgId, customerId: data.customerId, isDefault: true },
            { isDefault: false, updatedAt: new Date() },
          );
        }
        const method = t.create(PaymentMethod, { organization: orgId, active: true, ...data });
        await t.flush();
        return { method, created: true };
      });
    } catch (e) {
      const raced = isUniqueViolation(e, 'payment_method_org_profile_unique') || isUniqueViolation(e, 'payment_method_one_default_unique');
      if (!raced || attempt >= 3) throw e;
    }
  }
}

/** The customer record's active cards, default first, then oldest first. */
export function listActivePaymentMethods(em: EntityManager, orgId: string, customer: Customer): Promise<PaymentMethod[]> {
  return em.find(PaymentMethod, { organization: orgId, customerId: customer.id, active: true }, { orderBy: [{ isDefault: 'desc' }, { createdAt: 'asc' }, { id: 'asc' }] });
}

/** The currency of the customer's price tier (USD when the tier is unknown). */
export async function customerCurrency(em: EntityManager, orgId: string, customer: Customer): Promise<string> {
  const tier = await findPriceTier(em, orgId, customer.pricing);
  return tier?.currencyCode ?? 'USD';
}

/**
 * The saved, active card `paymentProfileId` of this organization's customer record `customerId`
 * (null: the row's customer was deleted); a profile of another customer or organization, of a
 * deleted customer whose number was reused, an inactive one, or one never saved here is a 404.
 */
export async function findActivePaymentMethod(em: EntityManager, orgId: string, customerId: string | null, paymentProfileId: string): Promise<PaymentMethod> {
  if (!customerId) throw AppError.notFound('Payment method');
  const m = await em.findOne(PaymentMethod, { organization: orgId, customerId, paymentProfileId, active: true });
  if (!m) throw AppError.notFound('Payment method');
  return m;
}
