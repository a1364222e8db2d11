/**
 * The invoice card-payment workflow's steps (payInvoiceByCard; called by
 * src/activities/invoice-payments.ts). Each is idempotent: the payment by its idempotency key
 * (unique per organization), which is also the provider's charge key. Business refusals are
 * AppErrors (non-retryable once mapped by the activity).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { roundMoney } from '../../domain/money.js';
import { Invoice, InvoicePayment } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { InvoiceCardPaymentInput } from '../../workflows/invoice-payments-defs.js';
import { checkPayment, recordInvoicePayment, type RecordPaymentResult } from './record-payment.js';

export type PreparedCardPayment = { recorded: RecordPaymentResult } | { recorded: null; invoiceNumber: string; chargeAmount: string; currency: string };

/** Checks the invoice can take the payment now; a payment already recorded under the key is returned instead. */
export async function prepareInvoiceCardPayment(em: EntityManager, input: InvoiceCardPaymentInput): Promise<PreparedCardPayment> {
  const inv = await em.findOne(Invoice, { id: input.invoiceId, organization: input.organizationId, active: true });
  if (!inv) throw AppError.notFound('Invoice');
  const already = await em.findOne(InvoicePayment, { organizationId: input.organizationId, idempotencyKey: input.idempotencyKey });
  if (already) return { recorded: await recordInvoicePayment(em, { ...input, method: 'Card', paymentDate: new Date(input.paymentDate) }) };
  checkPayment(inv, { amount: input.amount, currencyCode: input.currencyCode });
  return {
    recorded: null,
    invoiceNumber: inv.invoiceNumber,
    chargeAmount: roundMoney(input.amount, inv.currencyCode).toFixed(),
    currency: inv.currencyCode,
  };
}

/** Records the charged payment (idempotent per key) and moves the invoice to PartiallyPaid or Paid. */
export async function recordInvoiceCardPayment(em: EntityManager, input: InvoiceCardPaymentInput & { providerChargeId: string }): Promise<RecordPaymentResult> {
  return recordInvoicePayment(em, { ...input, method: 'Card', paymentDate: new Date(input.paymentDate), status: 'Completed' });
}
