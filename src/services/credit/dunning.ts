/**
 * The dunning steps' reads and writes (the collectInvoice workflow's activities call these;
 * docs/credit.md "Dunning"). Each is idempotent by the invoice and the step key: the webhook
 * event has dedupe key `dunning-<invoiceId>-<step>`, the marks are set once, the e-mail id is
 * `dunning-<invoiceId>-<step>` (the e-mail activity sends an id once).
 */
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { dunningSchedule, reminderTemplate, type DunningStep } from '../../domain/credit/dunning.js';
import { invoiceRecipients } from '../../domain/email/recipients.js';
import { balanceOf } from '../../domain/invoices/money.js';
import { formatMoney } from '../../domain/money.js';
import { Customer, Invoice, Organization } from '../../entities/index.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { emitEventOnce } from '../webhooks/events.js';
import { holdingInvoices } from './accounts.js';

export interface InvoiceRef {
  organizationId: string;
  invoiceId: string;
}

export interface DunningPlan {
  open: boolean;
  missing: boolean;
  steps: DunningStep[];
  /** A dunning day in milliseconds (how often an invoice on hold is re-read without a signal). */
  dayMs: number;
}

const isOpen = (inv: Invoice | null): inv is Invoice =>
  !!inv && inv.active && (inv.status === 'Issued' || inv.status === 'PartiallyPaid') && balanceOf(inv.total, inv.amountPaid, inv.currencyCode).gt(0);

export async function dunningPlan(em: EntityManager, config: Config, ref: InvoiceRef): Promise<DunningPlan> {
  const inv = await em.findOne(Invoice, { organization: ref.organizationId, id: ref.invoiceId });
  const now = Date.now();
  const dueMs = config.dunning.dueAfterSeconds !== null ? now + config.dunning.dueAfterSeconds * 1000 : (inv?.dueDate.getTime() ?? now);
  return { open: isOpen(inv), missing: !inv, steps: isOpen(inv) ? dunningSchedule(dueMs, now, config.dunning) : [], dayMs: config.dunning.dayMs };
}

export async function invoiceStillOpen(em: EntityManager, ref: InvoiceRef): Promise<boolean> {
  return isOpen(await em.findOne(Invoice, { organization: ref.organizationId, id: ref.invoiceId }));
}

/**
 * One step, while the invoice is open: the overdue mark (steps after the due date), the hold mark
 * (the hold step: the customer is on credit hold while this invoice stays open), the webhook event,
 * and the e-mail to send (company e-mail and billing contacts; null when there are none).
 */
export async function recordDunningStep(em: EntityManager, config: Config, ref: InvoiceRef & { step: DunningStep }): Promise<{ open: boolean; mail: SendEmailInput | null }> {
  return em.transactional(async (tx) => {
    const inv = await tx.findOne(Invoice, { organization: ref.organizationId, id: ref.invoiceId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!isOpen(inv)) return { open: false, mail: null };
    const { step } = ref;
    const now = new Date();
    if (step.days > 0 && !inv.overdueAt) inv.overdueAt = now;
    if (step.kind === 'hold' && !inv.creditHoldAt) inv.creditHoldAt = now;
    await tx.flush();
    const balance = balanceOf(inv.total, inv.amountPaid, inv.currencyCode);
    const facts = {
      invoiceId: inv.id,
      invoiceNumber: inv.invoiceNumber,
      customerNumber: inv.customerNumber,
      dueDate: inv.dueDate.toISOString(),
      balance: Number(balance.toFixed(4)),
      currencyCode: inv.currencyCode,
      step: step.key,
      daysFromDue: step.days,
    };
    const key = `dunning-${inv.id}-${step.key}`;
    await emitEventOnce(tx, ref.organizationId, step.kind === 'hold' ? 'customer.credit_hold_placed' : 'invoice.reminder_sent', facts, key);
    const customer = inv.customerId ? await tx.findOne(Customer, { organization: ref.organizationId, id: inv.customerId, active: true }, { populate: ['contacts'] }) : null;
    const to = invoiceRecipients(customer ? { companyEmail: customer.companyEmail, contacts: customer.contacts.getItems() } : null);
    if (!to.length) return { open: true, mail: null };
    const org = await tx.findOneOrFail(Organization, { id: ref.organizationId });
    return {
      open: true,
      mail: {
        emailId: key,
        organizationId: ref.organizationId,
        template: step.kind === 'hold' ? 'credit-hold' : reminderTemplate(step.days),
        to: to.join(', '),
        data: {
          invoiceNumber: inv.invoiceNumber,
          organizationName: org.name,
          companyName: inv.customer.companyName ?? inv.customerNumber,
          dueDate: inv.dueDate.toISOString(),
          totalFormatted: formatMoney(inv.total, inv.currencyCode),
          balanceFormatted: formatMoney(balance, inv.currencyCode),
          daysOverdue: Math.max(0, step.days),
          pdfUrl: `${config.publicBaseUrl}/api/invoices/${inv.id}/pdf`,
        },
      },
    };
  });
}

/** After an invoice that held the customer's credit closed: the release event, when no other invoice holds it. */
export async function recordHoldEnded(em: EntityManager, ref: InvoiceRef): Promise<void> {
  const inv = await em.findOne(Invoice, { organization: ref.organizationId, id: ref.invoiceId });
  if (!inv?.customerId) return;
  if ((await holdingInvoices(em, ref.organizationId, inv.customerId)).length) return;
  await emitEventOnce(em, ref.organizationId, 'customer.credit_hold_released', { customerNumber: inv.customerNumber, invoiceId: inv.id, invoiceNumber: inv.invoiceNumber, status: inv.status }, `dunning-${inv.id}-released`);
}
