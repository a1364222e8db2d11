/**
 * Admission of a buyer's order (pure; docs/security.md "Admission of orders"). Every path by which
 * an order comes into being (checkout, quote accept, POST /api/orders by a customer user) asks the
 * same two questions, in this order:
 *
 * 1. Spending limits (`spendingAdmission`): a Customer user with a buyer role at the customer has a
 *    per-order and a monthly limit; an order above either is held for an approval (202
 *    PendingApproval), whatever the payment.
 * 2. Credit (`creditAdmission`), for an order bought on account: the customer's open balance in the
 *    limit's currency, read WITHOUT the order being admitted, plus this order must stay within the
 *    limit; on credit hold it is refused; an order in another currency than the limit's cannot be
 *    bought on account (400 naming currencyCode).
 */
import { Decimal } from 'decimal.js';
import { AppError } from '../../errors.js';
import { checkSpending, type SpendingCheck, type SpendingLimits } from '../approvals/rules.js';
import { creditPosition, fitsCredit } from '../credit/limits.js';
import { formatMoney, type Amount } from '../money.js';

/** The buyer's limits at the customer and what they spent this month; null: not a limited buyer (admins, reps, customer users without a buyer role). */
export interface BuyerSpending {
  limits: SpendingLimits;
  spentThisMonth: Amount;
}

/** Whether an order of `total` needs an approval first (an approval for exactly this total already given lets it through). */
export function spendingAdmission(total: Amount, buyer: BuyerSpending | null, approvedTotal: Amount | null = null): SpendingCheck {
  if (!buyer) return { needsApproval: false };
  if (approvedTotal !== null && new Decimal(approvedTotal).eq(total)) return { needsApproval: false };
  return checkSpending(total, buyer.spentThisMonth, buyer.limits);
}

export interface CreditFacts {
  /** The customer's credit limit (null: no on-account buying) in `limitCurrency`, the customer's currency. */
  creditLimit: Amount | null;
  limitCurrency: string;
  /** What the customer owes on account in `limitCurrency`, without the order being admitted. */
  openBalance: Amount;
  /** Unpaid invoices that put the customer on credit hold. */
  holdInvoiceNumbers: readonly string[];
}

/**
 * The credit check of an on-account order of `total` in `orderCurrency`: throws the refusal (400
 * naming currencyCode, 409 on credit hold, 402 naming the available credit), returns when it fits.
 */
export function creditAdmission(facts: CreditFacts, total: Amount, orderCurrency: string): void {
  if (orderCurrency.toUpperCase() !== facts.limitCurrency.toUpperCase())
    throw AppError.validation(
      { currencyCode: [`On-account buying is in the credit limit's currency ${facts.limitCurrency}; this order is in ${orderCurrency}. Pay by card.`] },
      `The order is in ${orderCurrency} and the customer's credit limit is in ${facts.limitCurrency}; it cannot be bought on account.`,
    );
  if (facts.holdInvoiceNumbers.length) throw AppError.conflict(`The customer is on credit hold for overdue invoices ${facts.holdInvoiceNumbers.join(', ')}; pay them or check out by card.`);
  const cur = facts.limitCurrency;
  const pos = creditPosition(facts.creditLimit, facts.openBalance, cur);
  if (pos.creditLimit === null) throw new AppError('payment_required', 'The customer has no credit limit; on-account checkout is not available.', { payment: ['Available credit: none.'] });
  if (!fitsCredit(pos, total)) {
    const avail = formatMoney(pos.availableCredit, cur);
    throw new AppError(
      'payment_required',
      `Available credit is ${avail} (limit ${formatMoney(pos.creditLimit, cur)}, open balance ${formatMoney(pos.openBalance, cur)}); this order is ${formatMoney(total, cur)}.`,
      { payment: [`Available credit: ${avail}.`] },
    );
  }
}
