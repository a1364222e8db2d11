/**
 * Activities of the invoice card-payment and refund workflows (src/workflows/invoice-payments.ts).
 * Each is idempotent: the payment by its idempotency key (unique per organization), the refund by
 * its refund key (kept on the invoice). Business refusals are non-retryable (they surface at once);
 * anything else is retried.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { roundMoney } from '../domain/money.js';
import { Invoice, InvoicePayment } from '../entities/index.js';
import { AppError } from '../errors.js';
import { checkPayment, recordInvoicePayment } from '../services/invoices/record-payment.js';
import { applyInvoiceRefund } from '../services/invoices/card-payments.js';
import type { InvoiceCardPaymentInput, RecordPaymentResult, RefundInput } from '../workflows/invoice-payments-defs.js';
import { mapped } from './failures.js';


export type PreparedCardPayment = { recorded: RecordPaymentResult } | { recorded: null; invoiceNumber: string; chargeAmount: string; currency: string };

export function createInvoicePaymentActivities(deps: { orm: MikroORM }) {
  return {
    /** Checks the invoice can take the payment now; a payment already recorded under the key is returned instead. */
    async prepareInvoiceCardPayment(input: InvoiceCardPaymentInput): Promise<PreparedCardPayment> {
      return mapped(async () => {
        const em = deps.orm.em.fork();
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
      });
    },

    /** Records the charged payment (idempotent per key) and moves the invoice to PartiallyPaid or Paid. */
    async recordInvoiceCardPayment(input: InvoiceCardPaymentInput & { providerChargeId: string }): Promise<RecordPaymentResult> {
      return mapped(() =>
        recordInvoicePayment(deps.orm.em.fork(), { ...input, method: 'Card', paymentDate: new Date(input.paymentDate), status: 'Completed' }),
      );
    },

    /** Records a refund on the invoice (idempotent per refund key). */
    async recordInvoiceRefund(input: RefundInput): Promise<{ status: string }> {
      return mapped(() => applyInvoiceRefund(deps.orm.em.fork(), input));
    },
  };
}
