/**
 * The returnOrder workflow's steps (docs/returns.md "Returns"), each one transaction under the
 * return's row lock and idempotent (a retried activity, a replayed workflow changes nothing twice):
 * read the state (and expire an Approved return whose goods never came), the staff reminder, the
 * money step (credited, or the card refund to make and then record), and the close.
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import type { Config } from '../../config.js';
import { CreditNote, InvoicePayment, OrderReturn, Organization, OrganizationMember } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { ReturnRef, ReturnReminder, ReturnSettlement, ReturnState } from '../../workflows/return-order-defs.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { emitEvent } from '../webhooks/events.js';
import { step } from './returns.js';

async function locked<T>(em: EntityManager, ref: ReturnRef, fn: (tx: EntityManager, r: OrderReturn) => Promise<T>): Promise<T> {
  return em.fork().transactional(async (tx) => {
    const r = await tx.findOne(OrderReturn, { organizationId: ref.organizationId, id: ref.returnId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!r) throw AppError.notFound('Return');
    const out = await fn(tx, r);
    await tx.flush();
    return out;
  });
}

/** The return's status; with `expire`, an Approved return whose expiry timer fired becomes Expired (its units count as not returned). */
export function syncReturn(em: EntityManager, input: ReturnRef & { expire: boolean }): Promise<ReturnState> {
  return locked(em, input, async (_tx, r) => {
    if (input.expire && r.status === 'Approved') {
      r.status = 'Expired';
      r.steps = [...r.steps, step('Expired', null, 'the goods did not arrive in time')];
    }
    return { status: r.status };
  });
}

/** The reminder to staff of a return still Requested: one e-mail per admin (none once decided). */
export function remindReturn(em: EntityManager, config: Config, ref: ReturnRef): Promise<ReturnReminder> {
  return locked(em, ref, async (tx, r) => {
    if (r.status !== 'Requested' || r.reminderSentAt) return { mails: [] };
    const org = await tx.findOneOrFail(Organization, { id: ref.organizationId }, { fields: ['id', 'name'] });
    const admins = await tx.find(OrganizationMember, { organization: ref.organizationId, isAdmin: true }, { populate: ['user'], orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    r.reminderSentAt = new Date();
    r.steps = [...r.steps, step('ReminderSent', null, `to ${admins.length} admin(s)`)];
    const mails: SendEmailInput[] = admins.map((a) => ({
      emailId: `return-reminder-${r.id}-${a.user.id}`,
      organizationId: ref.organizationId,
      template: 'generic' as const,
      to: a.user.email,
      data: {
        subject: `Return ${r.rmaNumber} of order ${r.orderNumber} awaits a decision`,
        body: `Return ${r.rmaNumber} of customer ${r.customerNumber} at ${org.name} (order ${r.orderNumber}, ${new Decimal(r.amount).toFixed()} ${r.currencyCode}) is waiting to be approved or rejected: ${config.publicBaseUrl}/api/returns/${r.id}`,
      },
    }));
    return { mails };
  });
}

/** The money step of a Received return: credited on account now (`return.credited`), or the card refund to make (recorded by recordReturnRefund). */
export function settleReturn(em: EntityManager, ref: ReturnRef): Promise<ReturnSettlement> {
  return locked(em, ref, async (tx, r) => {
    if (r.status !== 'Received') return { status: r.status, refund: null };
    if (r.refundMethod === 'card' && r.refundKey && r.chargeId && new Decimal(r.amount).gt(0))
      return { status: r.status, refund: { organizationId: ref.organizationId, chargeId: r.chargeId, amount: new Decimal(r.amount).toFixed(), idempotencyKey: r.refundKey } };
    r.status = 'Credited';
    r.steps = [...r.steps, step('Credited', null, r.creditNoteId ? 'credit note issued' : null)];
    const cn = r.creditNoteId ? await tx.findOne(CreditNote, { organizationId: ref.organizationId, id: r.creditNoteId }) : null;
    emitEvent(tx, ref.organizationId, 'return.credited', {
      returnId: r.id,
      rmaNumber: r.rmaNumber,
      orderId: r.orderId,
      orderNumber: r.orderNumber,
      customerNumber: r.customerNumber,
      currencyCode: r.currencyCode,
      amount: new Decimal(r.amount).toFixed(),
      creditNoteId: r.creditNoteId ?? null,
      creditNoteNumber: cn?.creditNoteNumber ?? null,
    });
    return { status: r.status, refund: null };
  });
}

/** After the provider refunded: the return Refunded (`return.refunded`), its credit note's refund done, and the card payment's refunded amount grown (once). */
export function recordReturnRefund(em: EntityManager, ref: ReturnRef): Promise<ReturnState> {
  return locked(em, ref, async (tx, r) => {
    if (r.status !== 'Received') return { status: r.status };
    r.status = 'Refunded';
    r.steps = [...r.steps, step('Refunded', null, `refund ${new Decimal(r.amount).toFixed()} ${r.currencyCode} to the card`)];
    if (r.creditNoteId) {
      const cn = await tx.findOne(CreditNote, { organizationId: ref.organizationId, id: r.creditNoteId });
      if (cn) cn.refundStatus = 'Refunded';
    }
    const payment = r.chargeId ? await tx.findOne(InvoicePayment, { organizationId: ref.organizationId, providerChargeId: r.chargeId, status: 'Completed' }) : null;
    if (payment) payment.refundedAmount = Decimal.min(payment.amount, new Decimal(payment.refundedAmount).plus(r.amount)).toFixed();
    emitEvent(tx, ref.organizationId, 'return.refunded', {
      returnId: r.id,
      rmaNumber: r.rmaNumber,
      orderId: r.orderId,
      orderNumber: r.orderNumber,
      customerNumber: r.customerNumber,
      currencyCode: r.currencyCode,
      amount: new Decimal(r.amount).toFixed(),
      idempotencyKey: r.refundKey,
    });
    return { status: r.status };
  });
}

/** Refunded or Credited -> Closed. */
export function closeReturn(em: EntityManager, ref: ReturnRef): Promise<ReturnState> {
  return locked(em, ref, async (_tx, r) => {
    if (r.status === 'Refunded' || r.status === 'Credited') {
      r.status = 'Closed';
      r.steps = [...r.steps, step('Closed', null)];
    }
    return { status: r.status };
  });
}
