/**
 * Clawbacks (pure). When an invoice of an entry in an Approved or Paid statement is refunded,
 * voided or cancelled, a negative adjustment waits for the rep's next statement: for a void or
 * cancel, whatever of the entry's commission has not been clawed back yet; for a refund, the
 * entry's commission x refunded amount / invoice total (rounded half-up), never more than what is
 * left. Each (entry, cause) yields at most one adjustment, so nothing is clawed back twice.
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export interface SettledEntry {
  entryId: string;
  invoiceId: string;
  invoiceNumber: string;
  commission: Amount;
  /** The invoice total when the entry was generated. */
  invoiceTotal: Amount;
  currencyCode: string;
  /** The invoice's status now. */
  invoiceStatus: string;
  refunds: readonly { refundId: string; amount: Amount; createdAt: string }[];
}

export interface ExistingClawback {
  entryId: string;
  cause: string;
  /** Negative. */
  amount: Amount;
}

export interface NewClawback {
  entryId: string;
  invoiceId: string;
  invoiceNumber: string;
  /** `void`, `cancel` or `refund:<refundId>`. */
  cause: string;
  /** Negative, rounded to the currency. */
  amount: Decimal;
  reason: string;
}

export function clawbacksFor(entries: readonly SettledEntry[], existing: readonly ExistingClawback[]): NewClawback[] {
  const out: NewClawback[] = [];
  for (const e of entries) {
    const mine = existing.filter((x) => x.entryId === e.entryId);
    const seen = new Set(mine.map((x) => x.cause));
    const commission = new Decimal(e.commission);
    if (commission.lte(0)) continue;
    // What is left to claw back (existing amounts are negative).
    let left = commission.plus(mine.reduce((s, x) => s.plus(x.amount), new Decimal(0)));
    const add = (cause: string, amount: Decimal, reason: string) => {
      const a = Decimal.min(amount, left);
      if (a.lte(0)) return;
      left = left.minus(a);
      out.push({ entryId: e.entryId, invoiceId: e.invoiceId, invoiceNumber: e.invoiceNumber, cause, amount: a.negated(), reason });
    };
    const total = new Decimal(e.invoiceTotal);
    const refunds = [...e.refunds].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.refundId.localeCompare(b.refundId));
    for (const r of refunds) {
      const cause = `refund:${r.refundId}`;
      if (seen.has(cause) || total.lte(0)) continue;
      add(cause, roundMoney(commission.times(r.amount).dividedBy(total), e.currencyCode), `Invoice ${e.invoiceNumber} refunded ${new Decimal(r.amount).toFixed()}`);
    }
    if (e.invoiceStatus === 'Voided' || e.invoiceStatus === 'Cancelled') {
      const cause = e.invoiceStatus === 'Voided' ? 'void' : 'cancel';
      if (!seen.has('void') && !seen.has('cancel')) add(cause, left, `Invoice ${e.invoiceNumber} ${e.invoiceStatus.toLowerCase()}`);
    }
  }
  return out;
}
