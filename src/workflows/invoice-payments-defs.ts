/** Inputs and results of the payInvoiceByCard and refundInvoicePayment workflows, shared by the workflows, their activities and the API. */
import type { RecordPaymentResult } from '../services/invoices/record-payment.js';
import type { RefundInput } from '../services/invoices/card-payments.js';

export type { RecordPaymentResult, RefundInput };

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
