/**
 * Response schemas of the credit operations (docs/credit.md): payment terms (PascalCase like the
 * other organization endpoints), a customer's credit account and its statement of account.
 * Building blocks: ../contract.ts; the views type their result with `Out<typeof …>`.
 */
import { arr, bool, component, date, dateTime, doc, int, intN, num, numN, obj, objN, oneOf, str, strN, uuid, type Out } from '../contract.js';
import { genericPage } from '../resources.js';
import { AGING_BUCKETS } from './aging.js';
import { TERM_TYPES } from './terms.js';

export const paymentTerm = component(
  'PaymentTerm',
  obj({
    PaymentTermId: uuid(),
    Name: str(),
    Type: oneOf(TERM_TYPES),
    Days: doc(int(), 'Net: days after the invoice date; EndOfMonth: days after the last day of the month; DueOnReceipt: 0'),
    Description: doc(str(), 'Display label', 'Net 30'),
  }),
);
export const paymentTermPage = genericPage('PaymentTermPage', paymentTerm);

const termsRef = objN({ paymentTermId: uuid(), name: str(), description: str() });
const money = (what: string) => doc(num(), `${what}, in the customer's currency, rounded to its minor unit`);

const creditFields = {
  customerNumber: str(),
  currencyCode: doc(str(), "The customer's currency (its price tier's)", 'USD'),
  paymentTerms: doc(termsRef, 'Default payment terms; null: Net 30 applies to on-account invoices'),
  creditLimit: doc(numN(), 'null: the customer cannot buy on account'),
  openBalance: money('Unpaid balance of Issued and PartiallyPaid invoices plus on-account orders not yet invoiced'),
  availableCredit: money('creditLimit - openBalance, never below 0 (0 without a limit)'),
  creditHold: doc(bool(), 'True while an invoice the dunning workflow put on hold stays unpaid'),
  holdInvoiceNumbers: doc(arr(str()), 'The unpaid invoices holding the credit, oldest due first'),
};

export const creditAccount = component('CreditAccount', obj(creditFields));
export type CreditAccountOut = Out<typeof creditAccount>;

export const statementInvoice = component(
  'StatementInvoice',
  obj({
    invoiceId: uuid(),
    invoiceNumber: str(),
    status: oneOf(['Issued', 'PartiallyPaid'] as const),
    invoiceDate: doc(dateTime(), 'Issue date'),
    dueDate: dateTime(),
    currencyCode: str(),
    total: num(),
    paid: num(),
    balance: num(),
    balanceFormatted: str(),
    daysOverdue: doc(int(), 'Whole UTC days from the due day to asOf; 0 when not yet due'),
    bucket: oneOf(AGING_BUCKETS),
    creditHold: doc(bool(), 'This invoice holds the customer\'s credit'),
  }),
);

export const agingLine = component(
  'AgingBucket',
  obj({
    bucket: oneOf(AGING_BUCKETS),
    minDays: doc(int(), 'Days past due, inclusive'),
    maxDays: doc(intN(), 'Days past due, inclusive; null: no upper end'),
    count: int(),
    amount: money('Sum of the balances of the bucket\'s invoices'),
    amountFormatted: str(),
  }),
);

export const statementCredit = component(
  'StatementCredit',
  obj({
    creditNoteId: uuid(),
    creditNoteNumber: str(),
    issuedAt: dateTime(),
    invoiceNumber: doc(str(), 'The invoice it credits'),
    currencyCode: str(),
    amount: num(),
    available: doc(num(), 'Not applied yet: lowers totalDue and the open balance'),
    availableFormatted: str(),
  }),
);

export const statement = component(
  'CustomerStatement',
  obj({
    ...creditFields,
    companyName: strN(),
    asOf: doc(date(), 'The day the invoices are aged to (UTC); invoices dated after it are not on the statement'),
    invoices: doc(arr(statementInvoice), 'Open invoices (Issued, PartiallyPaid) dated on or before asOf, oldest due first'),
    aging: doc(arr(agingLine), 'current, 1-30, 31-60, 61-90, 90+ days past due; always five lines'),
    credits: doc(arr(statementCredit), 'Credit notes with credit not applied yet, today\'s like the balances, oldest first (applied credit already lowers the invoices\' balances)'),
    unappliedCredit: money('Sum of the available credit of those credit notes in the customer\'s currency'),
    unappliedCreditFormatted: str(),
    totalDue: money('Sum of the aged balances (invoices in the customer\'s currency) less unappliedCredit'),
    totalDueFormatted: str(),
    otherCurrencyInvoiceNumbers: doc(arr(str()), 'Open invoices in another currency: listed, not summed into the aging'),
    pdf: doc(str(), 'The path of the PDF variant of this statement'),
  }),
);
/** yup infers arrays of components loosely; the rows keep their own types here. */
export type StatementOut = Omit<Out<typeof statement>, 'invoices' | 'aging' | 'credits'> & { invoices: Out<typeof statementInvoice>[]; aging: Out<typeof agingLine>[]; credits: Out<typeof statementCredit>[] };
