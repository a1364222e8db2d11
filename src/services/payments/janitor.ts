/**
 * Payment janitor (issue 21): compares the provider's charges (its report, PaymentGateway.listCharges)
 * of the last days with the payments recorded here. A charge the provider approved that no invoice
 * payment records is an orphan (a worker lost between the charge and the write for longer than any
 * retry, a hosted approval above the invoice balance, a charge made outside the service). The janitor
 * records it on its invoice when the invoice still owes it, and otherwise voids it (refunds it when the
 * provider no longer allows a void). Each action is one row in `payment_reconciliation` (the audit
 * trail finance reads, GET /api/payments/reconciliation) and one `payment.reconciled` webhook event.
 *
 * Charges younger than `minAgeSeconds` are left alone: a running checkout or card payment records its
 * own charge within seconds. A charge is attributed to the organization whose saved card it used
 * (payment_method.payment_profile_id); its invoice is its reference (invoice number or id). The
 * deployment's provider account is reconciled; organizations with their own provider integration are
 * not yet (their reports need their credentials per organization).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PaymentGateway, ProviderChargeRecord } from '../../adapters/payment-gateway.js';
import { boundRows } from '../../db/orm-sql.js';
import { AppError } from '../../errors.js';
import { log } from '../../logger.js';
import { recordInvoicePayment } from '../invoices/record-payment.js';
import { emitEventOnce } from '../webhooks/events.js';
import type { PaymentJanitorInput, PaymentJanitorResult } from '../../workflows/payment-janitor-defs.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The organization and invoice a charge belongs to, as far as the stored data says. */
async function attribute(em: EntityManager, c: ProviderChargeRecord): Promise<{ organizationId: string; invoiceId: string | null } | null> {
  if (!c.paymentProfileId) return null;
  const org = await boundRows<{ organization_id: string }>(em, 'select organization_id from payment_method where payment_profile_id = $1 limit 1', [c.paymentProfileId]);
  if (!org[0]) return null;
  const organizationId = org[0].organization_id;
  let invoiceId: string | null = null;
  if (c.reference) {
    const rows = await boundRows<{ id: string }>(em, `select id from invoice where organization_id = $1 and (invoice_number = $2${UUID.test(c.reference) ? ' or id = $3' : ''}) limit 1`, [
      organizationId,
      c.reference,
      ...(UUID.test(c.reference) ? [c.reference] : []),
    ]);
    invoiceId = rows[0]?.id ?? null;
  }
  return { organizationId, invoiceId };
}

async function audit(em: EntityManager, organizationId: string, c: ProviderChargeRecord, action: string, invoiceId: string | null, reason: string): Promise<void> {
  await boundRows(
    em,
    `insert into payment_reconciliation (organization_id, charge_id, action, amount, currency_code, invoice_id, payment_profile_id, reference, reason, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now()) on conflict do nothing`,
    [organizationId, c.chargeId, action, c.amount, c.currency, invoiceId, c.paymentProfileId, c.reference, reason.slice(0, 500)],
  );
  await emitEventOnce(em, organizationId, 'payment.reconciled', { chargeId: c.chargeId, action, amount: c.amount, currencyCode: c.currency, invoiceId, reason }, `reconcile-${c.chargeId}`);
}

/** One reconciliation pass over the provider's charges; idempotent (every write is keyed by the charge id). */
export async function reconcileCharges(em: EntityManager, gateway: PaymentGateway, input: PaymentJanitorInput, now = new Date()): Promise<PaymentJanitorResult> {
  const since = new Date(now.getTime() - input.lookbackDays * 86_400_000);
  const cutoff = now.getTime() - input.minAgeSeconds * 1000;
  const summary: PaymentJanitorResult = { examined: 0, alreadyRecorded: 0, recorded: 0, voided: 0, refunded: 0, unattributed: 0 };
  for (const c of await gateway.listCharges(since)) {
    if (c.status !== 'approved' || Number(c.refundedAmount) > 0 || Date.parse(c.createdAt) > cutoff) continue;
    summary.examined++;
    const recorded = await boundRows(em, 'select 1 from invoice_payment where provider_charge_id = $1 limit 1', [c.chargeId]);
    if (recorded.length) {
      summary.alreadyRecorded++;
      continue;
    }
    const owner = await attribute(em, c);
    if (!owner || (input.organizationId && owner.organizationId !== input.organizationId)) {
      if (!owner) summary.unattributed++;
      continue;
    }
    if (owner.invoiceId) {
      try {
        await recordInvoicePayment(em, {
          organizationId: owner.organizationId,
          invoiceId: owner.invoiceId,
          amount: c.amount,
          currencyCode: c.currency,
          method: 'Card',
          paymentDate: new Date(c.createdAt),
          reference: c.reference,
          notes: 'Recorded by the payment janitor: the provider approved this charge and no payment recorded it.',
          paymentProfileId: c.paymentProfileId,
          providerChargeId: c.chargeId,
          idempotencyKey: `janitor-${c.chargeId}`,
        });
        await audit(em, owner.organizationId, c, 'Recorded', owner.invoiceId, 'approved charge without a recorded payment; the invoice owed it');
        summary.recorded++;
        continue;
      } catch (e) {
        if (!(e instanceof AppError) || e.kind === 'unavailable' || e.kind === 'internal') throw e;
        log.info('janitor: the invoice does not owe the orphan charge', { chargeId: c.chargeId, reason: e.message });
      }
    }
    const why = owner.invoiceId ? 'approved charge without a recorded payment; its invoice no longer owes it' : 'approved charge without a recorded payment or an invoice it pays';
    try {
      await gateway.void({ chargeId: c.chargeId, idempotencyKey: `janitor-void-${c.chargeId}` });
      await audit(em, owner.organizationId, c, 'Voided', owner.invoiceId, why);
      summary.voided++;
    } catch (e) {
      if (!(e instanceof AppError) || e.kind === 'unavailable' || e.kind === 'internal') throw e;
      await gateway.refund({ chargeId: c.chargeId, amount: c.amount, idempotencyKey: `janitor-refund-${c.chargeId}` });
      await audit(em, owner.organizationId, c, 'Refunded', owner.invoiceId, why);
      summary.refunded++;
    }
  }
  return summary;
}

/** The janitor's actions for one organization, newest first (the finance report). */
export async function reconciliationReport(em: EntityManager, organizationId: string, limit: number, offset: number, direction: 'asc' | 'desc' = 'desc') {
  const rows = await boundRows<Record<string, unknown>>(
    em,
    `select charge_id, action, amount, currency_code, invoice_id, payment_profile_id, reference, reason, created_at, count(*) over () as total
       from payment_reconciliation where organization_id = $1 order by created_at ${direction === 'asc' ? 'asc' : 'desc'}, charge_id limit $2 offset $3`,
    [organizationId, limit, offset],
  );
  return {
    total: Number(rows[0]?.total ?? 0),
    rows: rows.map((r) => ({
      ChargeId: r.charge_id,
      Action: r.action,
      Amount: Number(r.amount),
      CurrencyCode: r.currency_code,
      InvoiceId: r.invoice_id,
      PaymentProfileId: r.payment_profile_id,
      Reference: r.reference,
      Reason: r.reason,
      CreatedAt: new Date(r.created_at as string).toISOString(),
    })),
  };
}
