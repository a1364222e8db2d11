/**
 * A customer's credit account (docs/credit.md): default payment terms, credit limit, open balance,
 * available credit and credit hold. Terms and limit are Admin-only (reps and customers read).
 *
 * Open balance (in the credit limit's currency only) = the unpaid balance of the customer's Issued and PartiallyPaid invoices plus the
 * total of its on-account orders that have no issued invoice yet (checkout creates the order and
 * then its invoice in two steps; less what cancellations took of them), plus what is not invoiced yet
 * of on-account orders invoiced per shipment (their total less cancellations and their shipments'
 * invoices; docs/fulfillment.md "Invoicing"), less the customer's credit notes not applied yet (available
 * credit; docs/returns.md "Credit notes": it can make the balance negative). A customer is on credit hold while one of its invoices that
 * the dunning workflow marked at the hold step (`credit_hold_at`) is still unpaid; paying,
 * voiding or cancelling every such invoice releases the hold at once.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { creditPosition } from '../../domain/credit/limits.js';
import { creditAdmission } from '../../domain/orders/admission.js';
import { dueDateFor, termLabel, type TermRule } from '../../domain/credit/terms.js';
import { moneyNumber } from '../../domain/money.js';
import { Customer, PaymentTerm, PriceTier, type Order } from '../../entities/index.js';
import { AppError } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { boundSql } from '../../db/orm-sql.js';
import { findVisibleCustomer } from '../customers/visibility.js';
import { findPaymentTerm } from './terms.js';

/** Terms when a customer with a credit limit has no default terms. */
export const DEFAULT_TERM: TermRule & { name: string } = { name: 'Net 30', type: 'Net', days: 30 };

/** The customer's currency: its price tier's (USD when the tier is gone). */
export async function customerCurrency(em: EntityManager, orgId: string, customer: Pick<Customer, 'pricing'>): Promise<string> {
  const tier = await em.findOne(PriceTier, { organization: orgId, name: customer.pricing }, { fields: ['currencyCode'] });
  return tier?.currencyCode ?? 'USD';
}

/**
 * What the customer owes on account in `currency` (the credit limit's: the customer's currency; see
 * the file comment); runs in the caller's transaction. Invoices and orders in another currency are
 * not added (they are not amounts of the limit). `exceptOrderId`: the order being admitted, which is
 * never part of the balance it is admitted against.
 */
export async function openBalance(em: EntityManager, orgId: string, customerId: string, currency: string, exceptOrderId: string | null = null): Promise<Decimal> {
  const [row] = await boundSql(em)<{ invoices: string; orders: string; credits: string }>(
    `select
       (select coalesce(sum(n."amount" - n."amount_applied" - n."amount_refunded"), 0) from "credit_note" n
         where n."organization_id" = $1 and n."customer_id" = $2 and n."amount" > n."amount_applied" + n."amount_refunded"
           and upper(n."currency_code") = upper($3)) as credits,
       (select coalesce(sum(i."total" - i."amount_paid"), 0) from "invoice" i
         where i."organization_id" = $1 and i."customer_id" = $2 and i."active" and i."status" in ('Issued', 'PartiallyPaid')
           and upper(i."currency_code") = upper($3)) as invoices,
       (select coalesce(sum(greatest(0, o."total" - coalesce((select sum(x."amount") from "order_cancellation" x
                                                   where x."organization_id" = o."organization_id" and x."order_id" = o."id"), 0)
                                 - case when o."invoice_per_shipment"
                                        then coalesce((select sum(i."total") from "invoice" i
                                                        where i."organization_id" = $4 and i."order_id" = o."id" and i."status" <> 'Draft'), 0)
                                        else 0 end)), 0) from "sales_order" o
         where o."organization_id" = $4 and o."customer_id" = $5 and o."payment_method" = 'OnAccount' and o."active" and o."order_status" <> 'Cancelled'
           and upper(o."currency_code") = upper($6) and o."id" is distinct from $7::uuid
           and (o."invoice_per_shipment"
                or not exists (select 1 from "invoice" i where i."organization_id" = $4 and i."order_id" = o."id" and i."status" <> 'Draft'))) as orders`,
    [orgId, customerId, currency, orgId, customerId, currency, exceptOrderId],
  );
  return new Decimal(row.invoices).plus(row.orders).minus(row.credits);
}

/** The unpaid invoices that hold the customer's credit (numbers, oldest due first); empty when not on hold. */
export async function holdingInvoices(em: EntityManager, orgId: string, customerId: string): Promise<string[]> {
  const rows = await boundSql(em)<{ invoice_number: string }>(
    `select "invoice_number" from "invoice" where "organization_id" = $1 and "customer_id" = $2 and "active" and "credit_hold_at" is not null
       and "status" in ('Issued', 'PartiallyPaid') and "total" > "amount_paid" order by "due_date", "invoice_number"`,
    [orgId, customerId],
  );
  return rows.map((r) => r.invoice_number);
}

export interface CreditAccountView {
  customerNumber: string;
  currencyCode: string;
  paymentTerms: { paymentTermId: string; name: string; description: string } | null;
  creditLimit: number | null;
  openBalance: number;
  availableCredit: number;
  creditHold: boolean;
  holdInvoiceNumbers: string[];
}

/** The credit account of a customer the caller may see (the statement of account starts from it too). */
export async function accountView(em: EntityManager, orgId: string, c: Customer): Promise<CreditAccountView> {
  const currency = await customerCurrency(em, orgId, c);
  const pos = creditPosition(c.creditLimit ?? null, await openBalance(em, orgId, c.id, currency), currency);
  const term = c.paymentTermsId ? await em.findOne(PaymentTerm, { organizationId: orgId, id: c.paymentTermsId }) : null;
  const holds = await holdingInvoices(em, orgId, c.id);
  return {
    customerNumber: c.customerNumber,
    currencyCode: currency,
    paymentTerms: term ? { paymentTermId: term.id, name: term.name, description: termLabel(term) } : null,
    creditLimit: pos.creditLimit === null ? null : moneyNumber(pos.creditLimit, currency),
    openBalance: moneyNumber(pos.openBalance, currency),
    availableCredit: moneyNumber(pos.availableCredit, currency),
    creditHold: holds.length > 0,
    holdInvoiceNumbers: holds,
  };
}

/** GET /api/customers/{customerNumber}/credit: visible to Admin, the customer's rep and the customer's own users. */
export async function readCreditAccount(em: EntityManager, orgId: string, auth: Principal, customerNumber: string): Promise<CreditAccountView> {
  return accountView(em, orgId, await findVisibleCustomer(em, orgId, auth, customerNumber));
}

/** PUT /api/customers/{customerNumber}/credit (Admin): default terms (an id of this organization's, or null) and the limit (null: no on-account buying). */
export async function setCreditAccount(em: EntityManager, orgId: string, auth: Principal, customerNumber: string, input: { paymentTermId?: string | null; creditLimit?: number | null }): Promise<CreditAccountView> {
  const c = await findVisibleCustomer(em, orgId, auth, customerNumber);
  if (input.paymentTermId !== undefined) {
    if (input.paymentTermId !== null) await findPaymentTerm(em, orgId, input.paymentTermId);
    c.paymentTermsId = input.paymentTermId;
  }
  if (input.creditLimit !== undefined) c.creditLimit = input.creditLimit === null ? null : new Decimal(input.creditLimit).toFixed();
  await em.flush();
  return accountView(em, orgId, c);
}

/**
 * The one credit admission of an on-account order (docs/security.md "Admission of orders"), inside
 * the transaction that records the order (createOrder's `withinTransaction`, before the insert is
 * flushed), for every path (checkout, quote accept): marks the order OnAccount, then locks the
 * customer row first (one raw statement, so no pending insert is flushed before the lock: an order
 * row inserted first would hold a key-share lock on the customer and two admissions would deadlock),
 * so admissions of one customer run one at a time and each sees the orders committed before it. The
 * open balance is read in the limit's currency without the order itself. The rule is
 * `creditAdmission` (src/domain/orders/admission.ts): 400 naming currencyCode for another currency,
 * 409 on credit hold, 402 naming the available credit.
 */
export async function reserveCredit(tem: EntityManager, orgId: string, order: Pick<Order, 'id' | 'customerId' | 'total' | 'currencyCode' | 'paymentMethod'>): Promise<void> {
  order.paymentMethod = 'OnAccount';
  const [c] = order.customerId
    ? await boundSql(tem)<{ id: string; credit_limit: string | null; pricing: string }>(
        `select "id", "credit_limit"::text, "pricing" from "customer" where "organization_id" = $1 and "id" = $2 for no key update`,
        [orgId, order.customerId],
      )
    : [];
  if (!c) throw new AppError('payment_required', 'On-account checkout needs a stored customer with a credit limit.');
  const currency = await customerCurrency(tem, orgId, c);
  creditAdmission(
    {
      creditLimit: c.credit_limit,
      limitCurrency: currency,
      openBalance: await openBalance(tem, orgId, c.id, currency, order.id ?? null),
      holdInvoiceNumbers: await holdingInvoices(tem, orgId, c.id),
    },
    order.total,
    order.currencyCode,
  );
}

/** The terms and due date of an on-account invoice dated `invoiceDate` (the customer's default terms, else Net 30). */
export async function onAccountTerms(em: EntityManager, orgId: string, customerId: string | null, invoiceDate: Date): Promise<{ terms: string; dueDate: Date }> {
  const c = customerId ? await em.findOne(Customer, { organization: orgId, id: customerId }, { fields: ['paymentTermsId'] }) : null;
  const t = c?.paymentTermsId ? await em.findOne(PaymentTerm, { organizationId: orgId, id: c.paymentTermsId }) : null;
  const rule = t ?? DEFAULT_TERM;
  return { terms: t?.name ?? DEFAULT_TERM.name, dueDate: dueDateFor(invoiceDate, rule) };
}
