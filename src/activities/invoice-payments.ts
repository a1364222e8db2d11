/**
 * Activities of the invoice card-payment and refund workflows (src/workflows/invoice-payments.ts):
 * one-line delegates to src/services/invoices/card-payment-steps.ts and card-payments.ts. Each is
 * idempotent: the payment by its idempotency key, the refund by its refund key (kept on the
 * invoice). Business refusals are non-retryable (they surface at once); anything else is retried.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { prepareInvoiceCardPayment, recordInvoiceCardPayment } from '../services/invoices/card-payment-steps.js';
import { applyInvoiceRefund, type RefundInput } from '../services/invoices/card-payments.js';
import type { InvoiceCardPaymentInput } from '../workflows/invoice-payments-defs.js';
import { mapped } from './failures.js';

export function createInvoicePaymentActivities(deps: { orm: MikroORM }) {
  return {
    prepareInvoiceCardPayment: (input: InvoiceCardPaymentInput) => mapped(() => prepareInvoiceCardPayment(deps.orm.em.fork(), input)),
    recordInvoiceCardPayment: (input: InvoiceCardPaymentInput & { providerChargeId: string }) => mapped(() => recordInvoiceCardPayment(deps.orm.em.fork(), input)),
    recordInvoiceRefund: (input: RefundInput) => mapped(() => applyInvoiceRefund(deps.orm.em.fork(), input)),
  };
}
