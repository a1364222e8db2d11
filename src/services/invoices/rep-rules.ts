/**
 * What a SalesRep (or Customer) token may write on an invoice (DESIGN "Security decisions", issue
 * 16 finding 6): lines priced from the catalog in the customer's tier by the orders' own rule
 * (`catalogPricing`), the customer block and the credited rep taken from the records, and never
 * `importedInvoiceTotal` or `importedBalance` (Admin and import only: 403 naming the field). The
 * order it names must be one the rep may see (404), and its rep is the customer's (403 otherwise).
 * Used by POST /api/invoices, PUT /api/invoices/{id} and (through the applier) the bulk upsert.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { adminOnlyChanges } from '../../domain/invoices/admin-fields.js';
import { Order } from '../../entities/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { catalogPricing, customerSnapshot } from '../orders/create.js';
import { orderScope } from '../orders/orders.js';
import type { InvoiceFields, InvoiceState } from './invoices.js';

/** Admins (and Super) write invoices as given; every other role by the rep rules. */
export const writesAsGiven = (auth: Principal) => auth.isSuper || auth.role === 'Admin';

/** 403 naming each Admin-only field the input would change on `stored` (null: a new invoice). */
export function assertNoAdminOnlyChanges(input: InvoiceFields, stored: Pick<InvoiceState, 'importedInvoiceTotal' | 'importedBalance'> | null): void {
  const errors = adminOnlyChanges(input, stored);
  if (Object.keys(errors).length) throw new AppError('forbidden', 'Imported totals and balances are set by an Admin or an import only.', errors);
}

/**
 * The input as a rep may write it: when it touches the lines, the customer, the rep or the
 * currency, the lines (the given ones, else the stored ones) are priced from the catalog in the
 * customer's tier and currency, the customer block comes from the customer record (the given
 * shipping address is kept) and the credited rep is the customer's. Other fields stay as given.
 */
export async function repPriced<T extends InvoiceFields>(em: EntityManager, orgId: string, auth: Principal, input: T, stored: InvoiceState | null): Promise<T> {
  if (writesAsGiven(auth)) return input;
  await assertOrderVisible(em, orgId, auth, input, stored);
  const touches = input.items !== undefined || input.customer !== undefined || input.primarySalesRep !== undefined || input.currencyCode !== undefined;
  const customerNumber = input.customer?.customerNumber ?? stored?.customerNumber;
  if (!touches || !customerNumber) return input;
  const priced = await catalogPricing(em, orgId, auth, customerNumber, input.items ?? stored?.items ?? []);
  const c = customerSnapshot(priced.customer, input.customer?.shippingAddress ?? stored?.customer.shippingAddress ?? null);
  const rep = priced.primarySalesRep;
  const named = input.primarySalesRep?.repNumber;
  if (named && named !== (priced.customer.repNumber ?? null))
    throw new AppError('forbidden', "A sales rep's invoice credits the customer's rep.", { 'primarySalesRep.repNumber': ["primarySalesRep.repNumber must be the customer's rep number (or omitted)."] });
  return {
    ...input,
    customer: { customerNumber: c.customerNumber, companyName: c.companyName, companyEmail: c.companyEmail, companyPhone: c.companyPhone, billingAddress: c.billingAddress, shippingAddress: c.shippingAddress },
    primarySalesRep: rep ? { repNumber: rep.repNumber, firstName: rep.firstName, lastName: rep.lastName, email: rep.email, phoneNumber: rep.phoneNumber } : {},
    currencyCode: priced.tier.currencyCode,
    items: priced.items.map((l) => ({ sku: l.sku, productName: l.productName, quantity: l.quantity, price: l.price.toNumber(), ...(l.priceListId ? { priceListId: l.priceListId } : {}) })),
  };
}

/** A rep's invoice names an order (orderId, orderNumber) only when the rep may see that order; else 404 naming the field. */
async function assertOrderVisible(em: EntityManager, orgId: string, auth: Principal, input: InvoiceFields, stored: InvoiceState | null): Promise<void> {
  const scope = await orderScope(em, orgId, auth);
  const errors: FieldErrors = {};
  if (input.orderId && input.orderId !== stored?.orderId && !(await em.count(Order, { $and: [{ organization: orgId, id: input.orderId }, scope] })))
    errors.orderId = ['No order you may see has this orderId.'];
  if (input.orderNumber && input.orderNumber !== stored?.orderNumber && !(await em.count(Order, { $and: [{ organization: orgId, orderNumber: input.orderNumber }, scope] })))
    errors.orderNumber = ['No order you may see has this orderNumber.'];
  if (Object.keys(errors).length) throw new AppError('not_found', 'The invoice names an order that does not exist or is not visible to you.', errors);
}
