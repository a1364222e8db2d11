/**
 * What belongs to a customer record (DESIGN "Security decisions"): cards, carts, orders and
 * invoices carry the customer's id, never just its number. Orders and invoices may be written
 * for a number no customer has yet (an Admin's order, an import of history): those stay unlinked
 * until a customer takes the number, then they are its own. Rows whose customer was deleted are
 * marked `customerDeleted` and never go to the next customer with that number; the deleted
 * customer's cards are deactivated and its open carts closed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Cart, Customer, Invoice, Order, PaymentMethod } from '../../entities/index.js';

/** Links the orders and invoices written for this customer's number while no customer had it. */
export async function adoptUnlinkedHistory(em: EntityManager, orgId: string, customer: Customer): Promise<void> {
  const unlinked = { organization: orgId, customerNumber: customer.customerNumber, customerId: null, customerDeleted: false };
  await em.nativeUpdate(Order, unlinked, { customerId: customer.id });
  await em.nativeUpdate(Invoice, unlinked, { customerId: customer.id });
}

/** SQL of adoptUnlinkedHistory for set-based appliers: $1 organization, $2 the customers' ids. */
export const ADOPT_UNLINKED_SQL = ['sales_order', 'invoice'].map(
  (t) => `update ${t} x set customer_id = c.id from customer c
           where c.organization_id = $1 and c.id = any($2::uuid[]) and x.organization_id = $1
             and x.customer_number = c.customer_number and x.customer_id is null and not x.customer_deleted`,
);

/**
 * Removes a customer: its cards are deactivated, its open carts closed, its orders and invoices
 * marked as a deleted customer's (they stay as history), then the row goes (customer_id of every
 * row above is set null by the foreign key). One transaction.
 */
export async function removeCustomer(em: EntityManager, orgId: string, customerId: string): Promise<void> {
  const now = new Date();
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(PaymentMethod, { organization: orgId, customerId, $or: [{ active: true }, { isDefault: true }] }, { active: false, isDefault: false, updatedAt: now });
    await tx.nativeUpdate(Cart, { organization: orgId, customerId, status: 'PENDING' }, { status: 'CLOSED', updatedAt: now });
    await tx.nativeUpdate(Order, { organization: orgId, customerId }, { customerDeleted: true });
    await tx.nativeUpdate(Invoice, { organization: orgId, customerId }, { customerDeleted: true });
    await tx.nativeDelete(Customer, { organization: orgId, id: customerId });
  });
}
