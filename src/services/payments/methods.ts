/**
 * Cards on file (PaymentMethod rows): the SPEC view and the one way to save a card. Saving is
 * idempotent per provider paymentProfileId (unique per organization), and a new default card
 * unsets the customer's previous default in the same transaction (the partial unique index
 * "one active default per customer" backs it; a concurrent race is retried).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer, PaymentMethod, PriceTier } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { visibleTo } from '../../api/customers.js';

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
            { organization: orgId, customerNumber: data.customerNumber, isDefault: true },
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

/** The customer `customerNumber` of the organization, if the principal may see it; else 404. */
export async function findVisibleCustomer(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<Customer> {
  const c = await em.findOne(Customer, { $and: [{ organization: orgId, customerNumber }, visibleTo(auth)] });
  if (!c) throw AppError.notFound('Customer');
  return c;
}

/** The currency of the customer's price tier (USD when the tier is unknown). */
export async function customerCurrency(em: EntityManager, orgId: string, customer: Customer): Promise<string> {
  const tiers = await em.find(PriceTier, { organization: orgId });
  const tier = tiers.find((t) => t.name.toLowerCase() === customer.pricing.toLowerCase());
  return tier?.currencyCode ?? 'USD';
}
