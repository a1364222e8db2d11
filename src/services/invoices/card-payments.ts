/**
 * Refunds of invoice payments: which payment a refund applies to, the checks, and the one
 * transaction that records it. Shared by the refund route (payments that never went through a
 * provider) and the refundInvoicePayment workflow's activity (card payments: the provider refunds
 * first, with the same key). Idempotent per refund key: a recorded key is never applied twice.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { checkRefundAmount } from '../../domain/invoices/money.js';
import { transition, type InvoiceStatus } from '../../domain/invoices/state.js';
import { roundMoney } from '../../domain/money.js';
import { Invoice, InvoicePayment } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { RefundInput } from '../../workflows/invoice-payments-defs.js';

/** The refund type is the refundInvoicePayment contract's (src/workflows/invoice-payments-defs.ts); re-exported for this file's callers. */
export type { RefundInput };

/** Throws a 400 when the invoice state or the refundable amount forbids refunding `amount`. */
export function checkRefund(inv: Invoice, payment: InvoicePayment | null, amount: Decimal.Value): void {
  const a = new Decimal(amount);
  const paidAfter = new Decimal(inv.amountPaid).minus(a);
  const t = transition(inv.status as InvoiceStatus, { type: 'refund', paidAfterIsZero: paidAfter.lte(0) });
  if (!t.ok) throw AppError.badRequest(t.reason);
  const refundable = payment ? new Decimal(payment.amount).minus(payment.refundedAmount) : new Decimal(inv.amountPaid);
  const err = checkRefundAmount(a, Decimal.min(refundable, inv.amountPaid), inv.currencyCode);
  if (err) throw AppError.field('amount', err);
}

/** The payment a refund applies to: the named one (404 unknown, 400 not Completed), else the latest completed payment that covers it. */
export async function refundTarget(
  em: EntityManager,
  inv: Invoice,
  paymentId: string | null | undefined,
  amount: Decimal.Value,
): Promise<InvoicePayment | null> {
  if (paymentId) {
    const payment = await em.findOne(InvoicePayment, { id: paymentId, invoice: inv.id, organizationId: inv.organization.id });
    if (!payment) throw AppError.notFound('Payment');
    if (payment.status !== 'Completed') throw AppError.field('paymentId', 'Only a Completed payment can be refunded.');
    // Credit applied from a credit note is not money received (docs/returns.md "Credit notes").
    if (payment.method === 'CreditNote') throw AppError.field('paymentId', 'A CreditNote payment is credit, not money received; it cannot be refunded.');
    return payment;
  }
  // Money taken by card goes back to the card through its provider.
  const candidates = await em.find(
    InvoicePayment,
    { invoice: inv.id, organizationId: inv.organization.id, status: 'Completed' },
    { orderBy: { createdAt: 'desc' } },
  );
  return candidates.find((p) => p.method !== 'CreditNote' && new Decimal(p.amount).minus(p.refundedAmount).gte(amount)) ?? null;
}

export const refundRecorded = (inv: Invoice, refundKey: string) => (inv.refunds ?? []).some((r) => r.refundId === refundKey);

/** Records a refund on the invoice (and its payment) under a row lock; a key already recorded changes nothing. */
export async function applyInvoiceRefund(em: EntityManager, input: RefundInput): Promise<{ status: string }> {
  return em.fork().transactional(async (tx) => {
    const i = await tx.findOne(Invoice, { id: input.invoiceId, organization: input.organizationId, active: true }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!i) throw AppError.notFound('Invoice');
    if (refundRecorded(i, input.refundKey)) return { status: i.status };
    const p = input.paymentId ? await tx.findOneOrFail(InvoicePayment, { id: input.paymentId, organizationId: input.organizationId }) : null;
    checkRefund(i, p, input.amount);
    const amount = new Decimal(input.amount);
    const paidAfter = roundMoney(new Decimal(i.amountPaid).minus(amount), i.currencyCode);
    const t = transition(i.status as InvoiceStatus, { type: 'refund', paidAfterIsZero: paidAfter.lte(0) });
    if (!t.ok) throw AppError.badRequest(t.reason);
    i.status = t.to;
    i.amountPaid = paidAfter.toFixed();
    if (p) p.refundedAmount = new Decimal(p.refundedAmount).plus(amount).toFixed();
    i.refunds = [
      ...(i.refunds ?? []),
      {
        refundId: input.refundKey,
        paymentId: p?.id ?? null,
        amount: amount.toFixed(),
        reason: input.reason,
        providerRefunded: input.providerRefunded,
        createdAt: new Date().toISOString(),
      },
    ];
    await tx.flush();
    return { status: i.status };
  });
}
