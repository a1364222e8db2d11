/**
 * Credit limits (pure). A customer's open balance is what it owes on account: the unpaid
 * balance of its open invoices plus the total of its on-account orders that have no invoice
 * yet. Available credit is the limit minus that balance (never below zero); a null limit means
 * the customer cannot buy on account at all.
 */
import { Decimal } from 'decimal.js';
import { roundMoney, type Amount } from '../money.js';

export interface CreditPosition {
  creditLimit: Decimal | null;
  openBalance: Decimal;
  availableCredit: Decimal;
}

export function creditPosition(limit: Amount | null, openBalance: Amount, currency: string): CreditPosition {
  const balance = roundMoney(openBalance, currency);
  if (limit === null) return { creditLimit: null, openBalance: balance, availableCredit: new Decimal(0) };
  const lim = roundMoney(limit, currency);
  return { creditLimit: lim, openBalance: balance, availableCredit: Decimal.max(0, lim.minus(balance)) };
}

/** Whether an order of `amount` fits into the customer's available credit. */
export function fitsCredit(position: CreditPosition, amount: Amount): boolean {
  return position.creditLimit !== null && new Decimal(amount).lte(position.availableCredit);
}
