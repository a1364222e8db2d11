/**
 * Records a payment against an invoice and moves it to PartiallyPaid or Paid.
 *
 * CONTRACT shared by the payments (hosted callback), checkout and invoices work: keep this
 * signature. Idempotent per `idempotencyKey`: a second call with the same key records nothing
 * and returns the first result with duplicate: true.
 *
 * Concurrency: the invoice row is locked (SELECT ... FOR UPDATE) inside the transaction, so
 * two payments at the same moment see each other's amount; the unique idempotency_key column
 * settles two calls with the same key. Callers signal the issuance workflow when the result
 * is Paid (src/services/invoices/signal.ts).
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { balanceOf, checkPaymentAmount } from '../../domain/invoices/money.js';
import { transition, type InvoiceStatus } from '../../domain/invoices/state.js';
import { roundMoney } from '../../domain/money.js';
import { Invoice, InvoicePayment } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import type { PaymentStatus } from '../../entities/Invoice.js';
import type { RecordPaymentResult } from '../../workflows/invoice-payments-defs.js';

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
  /** 'Completed' (default) moves the balance; 'Pending' and 'Failed' are recorded only. */
  status?: PaymentStatus;
}

/** The result type is the payInvoiceByCard contract's (src/workflows/invoice-payments-defs.ts); re-exported for this contract's callers. */
export type { RecordPaymentResult };

const resultOf = (inv: Invoice, paymentId: string, duplicate: boolean): RecordPaymentResult => ({
  invoiceId: inv.id,
  paymentId,
  status: inv.status,
  balance: balanceOf(inv.total, inv.amountPaid, inv.currencyCode).toFixed(),
  duplicate,
});

async function duplicateOf(em: EntityManager, input: RecordPaymentInput): Promise<RecordPaymentResult | null> {
  const fork = em.fork();
  const p = await fork.findOne(InvoicePayment, { idempotencyKey: input.idempotencyKey, organizationId: input.organizationId });
  if (!p) return null;
  const inv = await fork.findOneOrFail(Invoice, { organization: input.organizationId, id: p.invoice.id });
  return resultOf(inv, p.id, true);
}

/** Checks a payment against the invoice as it is now (no lock); the same checks run again under the lock. */
export function checkPayment(inv: Invoice, input: Pick<RecordPaymentInput, 'amount' | 'currencyCode' | 'status'>): void {
  if (inv.currencyCode !== input.currencyCode) {
    throw AppError.field('currencyCode', `currencyCode must match the invoice currency ${inv.currencyCode}.`);
  }
  const balance = balanceOf(inv.total, inv.amountPaid, inv.currencyCode);
  const completed = (input.status ?? 'Completed') === 'Completed';
  const after = completed ? balance.minus(input.amount) : balance;
  const t = transition(inv.status as InvoiceStatus, { type: 'payment', balanceAfterIsZero: after.lte(0) });
  if (!t.ok) throw AppError.badRequest(t.reason);
  const err = checkPaymentAmount(input.amount, balance, inv.currencyCode);
  if (err) throw AppError.field('amount', err);
}

export async function recordInvoicePayment(em: EntityManager, input: RecordPaymentInput): Promise<RecordPaymentResult> {
  const first = await duplicateOf(em, input);
  if (first) return first;
  try {
    return await em.fork().transactional(async (tx) => {
      const inv = await tx.findOne(Invoice, { id: input.invoiceId, organization: input.organizationId, active: true }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!inv) throw AppError.notFound('Invoice');
      const dup = await tx.findOne(InvoicePayment, { idempotencyKey: input.idempotencyKey, organizationId: input.organizationId });
      if (dup) return resultOf(inv, dup.id, true);
      const payment = applyPayment(tx, inv, input);
      await tx.flush();
      return resultOf(inv, payment.id, false);
    });
  } catch (e) {
    if (isUniqueViolation(e, 'invoice_payment_idempotency_key_unique')) {
      const again = await duplicateOf(em, input);
      if (again) return again;
    }
    throw e;
  }
}

/**
 * The payment row and the invoice's new balance and status, in the caller's transaction (not
 * flushed), after the checks of checkPayment; the invoice must be locked by the caller or created
 * in the same transaction (checkout: src/services/invoices/from-order.ts).
 */
export function applyPayment(tx: EntityManager, inv: Invoice, input: RecordPaymentInput): InvoicePayment {
  checkPayment(inv, input);
  const status = input.status ?? 'Completed';
  const amount = roundMoney(input.amount, inv.currencyCode);
  const payment = tx.create(InvoicePayment, {
    organizationId: input.organizationId,
    invoice: inv,
    amount: amount.toFixed(),
    refundedAmount: '0',
    currencyCode: input.currencyCode,
    method: input.method,
    status,
    paymentDate: input.paymentDate,
    reference: input.reference ?? null,
    notes: input.notes ?? null,
    paymentProfileId: input.paymentProfileId ?? null,
    cardType: input.cardType ?? null,
    last4Digits: input.last4Digits ?? null,
    providerChargeId: input.providerChargeId ?? null,
    idempotencyKey: input.idempotencyKey,
    createdAt: new Date(),
  });
  if (status === 'Completed') {
    const paid = new Decimal(inv.amountPaid).plus(amount);
    const balance = balanceOf(inv.total, paid, inv.currencyCode);
    const t = transition(inv.status as InvoiceStatus, { type: 'payment', balanceAfterIsZero: balance.lte(0) });
    if (!t.ok) throw AppError.badRequest(t.reason);
    inv.amountPaid = paid.toFixed();
    inv.status = t.to;
  }
  return payment;
}
