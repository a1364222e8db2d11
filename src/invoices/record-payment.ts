/**
 * Records a payment against an invoice and moves it to PartiallyPaid or Paid.
 *
 * CONTRACT shared by the payments (hosted callback), checkout and invoices work: keep this
 * signature. The invoices work replaces the body. Idempotent per `idempotencyKey`: a second
 * call with the same key records nothing and returns the first result with duplicate: true.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface RecordPaymentInput {
  organizationId: string;
  invoiceId: string;
  /** Decimal string. */
  amount: string;
  currencyCode: string;
  /** 'EFT' | 'Check' | 'Wire' | 'Cash' | 'Card' */
  method: string;
  paymentDate: Date;
  reference?: string | null;
  notes?: string | null;
  paymentProfileId?: string | null;
  cardType?: string | null;
  last4Digits?: string | null;
  /** Provider charge id for card payments (refunds go through it). */
  providerChargeId?: string | null;
  idempotencyKey: string;
}

export interface RecordPaymentResult {
  invoiceId: string;
  paymentId: string;
  status: string;
  /** Decimal string. */
  balance: string;
  duplicate: boolean;
}

export async function recordInvoicePayment(_em: EntityManager, _input: RecordPaymentInput): Promise<RecordPaymentResult> {
  throw new Error('invoice payments not implemented yet');
}
