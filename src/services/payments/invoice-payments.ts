/**
 * Money on an invoice as the API takes it: the invoice payment choice (POST
 * /api/invoices/{id}/payments) and refunds (POST /api/invoices/{id}/refunds).
 *
 * - A Completed payment with a card on file (paymentProfileId) moves money only in the
 *   payInvoiceByCard workflow (charge, then record, crash-safe; a refusal when recording voids
 *   the charge). Offline payments (EFT, Check, Wire, Cash) and Pending/Failed card records are
 *   recorded at once.
 * - A refund of a card payment goes back through its provider in the refundInvoicePayment
 *   workflow (refund, then record); anything else is recorded at once.
 * - Idempotency keys are `<scope>:<Idempotency-Key>`; without the header, card money derives the
 *   key from the invoice, the amount and what was paid (or refunded) so far, so a repeated
 *   request does not charge or refund twice; offline payments get a fresh key.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import type { Deps } from '../../deps.js';
import { InvoicePayment, type Invoice } from '../../entities/index.js';
import type { PaymentStatus } from '../../entities/Invoice.js';

export type { PaymentStatus };
import type { Principal } from '../../http/auth.js';
import type { InvoiceCardPaymentInput, RefundInput } from '../../workflows/invoice-payments-defs.js';
import { runWorkflow } from '../../adapters/temporal.js';
import { amountText } from '../../workflows/tags-defs.js';
import { applyInvoiceRefund, checkRefund, refundRecorded, refundTarget } from '../invoices/card-payments.js';
import { findInvoice, reload } from '../invoices/invoices.js';
import { checkPayment, recordInvoicePayment } from '../invoices/record-payment.js';
import { resumeDunning, signalDunning } from '../invoices/signal.js';
import { findActivePaymentMethod } from './methods.js';

/** `<scope>:<Idempotency-Key>`; without the header `<scope>:<derived>` when given (card money), else a fresh key. */
const idempotencyKey = (header: string | undefined, scope: string, derived?: string) =>
  header && header.trim() ? `${scope}:${header.trim().slice(0, 200)}` : `${scope}:${derived ?? randomUUID()}`;

export interface InvoicePaymentRequest {
  amount: number;
  currencyCode: string;
  method: string;
  paymentDate: string;
  reference?: string | null;
  notes?: string | null;
  paymentProfileId?: string | null;
  cardType?: string | null;
  last4Digits?: string | null;
  status?: PaymentStatus;
}

/** Records (or charges) a payment; answers the updated invoice view. */
export async function payInvoice(em: EntityManager, deps: Deps, orgId: string, auth: Principal, invoiceId: string, body: InvoicePaymentRequest, idempotencyHeader?: string) {
  const inv = await findInvoice(em, orgId, invoiceId, auth);
  if (body.paymentProfileId) await findActivePaymentMethod(em, orgId, inv.customerId ?? null, body.paymentProfileId);
  const status = body.status ?? 'Completed';
  if (body.paymentProfileId && status === 'Completed') await payByCard(em, deps, orgId, inv, { ...body, paymentProfileId: body.paymentProfileId }, idempotencyHeader);
  else await payOffline(em, deps, orgId, inv, { ...body, status }, idempotencyHeader);
  // The dunning workflow re-reads the invoice: a full payment ends it (and a hold it placed ends with it).
  await signalDunning(deps.temporal, inv.id);
  return reload(em, orgId, inv.id);
}

async function payByCard(em: EntityManager, deps: Deps, orgId: string, inv: Invoice, body: InvoicePaymentRequest & { paymentProfileId: string }, header?: string): Promise<void> {
  const amount = new Decimal(body.amount).toFixed();
  // Without an Idempotency-Key the key is derived from the invoice, the amount and what was paid so far.
  const key = idempotencyKey(header, `invoice-payment:${inv.id}`, `${amount}:${new Decimal(inv.amountPaid).toFixed()}`);
  if (!(await em.findOne(InvoicePayment, { organizationId: orgId, idempotencyKey: key }))) checkPayment(inv, { amount, currencyCode: body.currencyCode });
  const input: InvoiceCardPaymentInput = {
    organizationId: orgId,
    invoiceId: inv.id,
    amount,
    currencyCode: body.currencyCode,
    paymentProfileId: body.paymentProfileId,
    paymentDate: new Date(body.paymentDate).toISOString(),
    reference: body.reference ?? null,
    notes: body.notes ?? null,
    cardType: body.cardType ?? null,
    last4Digits: body.last4Digits ?? null,
    idempotencyKey: key,
  };
  await runWorkflow(deps.temporal, deps.config, {
    workflowType: 'payInvoiceByCard',
    workflowId: `invoice-payment-${key}`,
    args: [input],
    keys: { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber },
    about: { what: `Card payment on invoice ${inv.invoiceNumber}`, amount: amountText(input.amount, input.currencyCode) },
    waitMs: deps.config.checkoutWaitMs,
    what: 'The card payment',
  });
}

async function payOffline(em: EntityManager, deps: Deps, orgId: string, inv: Invoice, body: InvoicePaymentRequest & { status: PaymentStatus }, header?: string): Promise<void> {
  await recordInvoicePayment(em, {
    organizationId: orgId,
    invoiceId: inv.id,
    amount: new Decimal(body.amount).toFixed(),
    currencyCode: body.currencyCode,
    method: body.paymentProfileId ? 'Card' : body.method,
    paymentDate: new Date(body.paymentDate),
    reference: body.reference ?? null,
    notes: body.notes ?? null,
    paymentProfileId: body.paymentProfileId ?? null,
    cardType: body.cardType ?? null,
    last4Digits: body.last4Digits ?? null,
    idempotencyKey: idempotencyKey(header, `invoice-payment:${inv.id}`),
    status: body.status,
  });
}

export interface InvoiceRefundRequest {
  amount: number;
  paymentId?: string | null;
  reason?: string | null;
}

/** Refunds up to the paid amount (a card payment through its provider); answers the updated invoice view. */
export async function refundInvoice(em: EntityManager, deps: Deps, orgId: string, auth: Principal, invoiceId: string, body: InvoiceRefundRequest, idempotencyHeader?: string) {
  const inv = await findInvoice(em, orgId, invoiceId, auth);
  const amount = new Decimal(body.amount);
  const payment = await refundTarget(em, inv, body.paymentId, amount);
  const refunded = payment ? payment.refundedAmount : inv.amountPaid;
  const refundKey = idempotencyKey(idempotencyHeader, `invoice-refund:${inv.id}`, `${payment?.id ?? 'invoice'}:${amount.toFixed()}:${new Decimal(refunded).toFixed()}`);
  if (refundRecorded(inv, refundKey)) return reload(em, orgId, inv.id);
  checkRefund(inv, payment, amount);
  const refund: RefundInput = { organizationId: orgId, invoiceId: inv.id, paymentId: payment?.id ?? null, amount: amount.toFixed(), reason: body.reason ?? null, refundKey, providerRefunded: false };
  if (payment?.providerChargeId) {
    // Card money goes back through the provider in the refundInvoicePayment workflow (refund, then record).
    await runWorkflow(deps.temporal, deps.config, {
      workflowType: 'refundInvoicePayment',
      workflowId: `invoice-refund-${refundKey}`,
      args: [{ ...refund, chargeId: payment.providerChargeId }],
      keys: { organizationId: orgId, customerNumber: inv.customerNumber, invoiceNumber: inv.invoiceNumber },
      about: { what: `Card refund on invoice ${inv.invoiceNumber}`, amount: amountText(refund.amount, inv.currencyCode) },
      waitMs: deps.config.checkoutWaitMs,
      what: 'The refund',
    });
  } else {
    await applyInvoiceRefund(em, refund);
  }
  const after = await reload(em, orgId, inv.id);
  // A refund that leaves money owed reopens collection: the dunning workflow is signalled, or started again.
  if (after.status === 'Issued' || after.status === 'PartiallyPaid') await resumeDunning(deps.temporal, deps.config, {
      organizationId: orgId,
      invoiceId: inv.id,
      invoiceNumber: inv.invoiceNumber,
      customerNumber: inv.customerNumber,
      balance: (after as { balanceFormatted?: string }).balanceFormatted ?? null,
    });
  return after;
}
