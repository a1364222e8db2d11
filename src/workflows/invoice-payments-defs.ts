/**
 * Inputs and results of the payInvoiceByCard and refundInvoicePayment workflows, shared by the
 * workflows, their activities and the API. The invoice services (record-payment.ts,
 * card-payments.ts) take RecordPaymentResult and RefundInput from here.
 */

/** What recording a payment answers (recordInvoicePayment, and payInvoiceByCard's result). */
export interface RecordPaymentResult {
  invoiceId: string;
  paymentId: string;
  status: string;
  /** Decimal string. */
  balance: string;
  duplicate: boolean;
}

/** A refund of an invoice payment (the refund route, and refundInvoicePayment's recording step). */
export interface RefundInput {
  organizationId: string;
  invoiceId: string;
  /** The payment the refund applies to (null: an invoice-level refund of offline money). */
  paymentId: string | null;
  /** Decimal string. */
  amount: string;
  reason: string | null;
  /** Idempotency key of the refund (also the provider's refund key). */
  refundKey: string;
  providerRefunded: boolean;
}

/** A card payment on an invoice (JSON-safe: the payment date is an ISO string). */
export interface InvoiceCardPaymentInput {
  organizationId: string;
  invoiceId: string;
  /** Decimal string. */
  amount: string;
  currencyCode: string;
  paymentProfileId: string;
  paymentDate: string;
  reference: string | null;
  notes: string | null;
  cardType: string | null;
  last4Digits: string | null;
  /** The payment's idempotency key, also the provider's charge key. */
  idempotencyKey: string;
}

/** Input of refundInvoicePayment: the refund and the provider charge it returns money from (null: offline money). */
export type RefundInvoicePaymentInput = RefundInput & { chargeId: string | null };
