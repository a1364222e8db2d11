/**
 * Checkout activities (workflow checkoutCart): one-line delegates to the worker-side steps of
 * src/services/carts/checkout-steps.ts, where each step's idempotency is described. The charge
 * and its void are payment activities (src/activities/payments.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { createOrderFromCart, reserveOrderNumber } from '../services/carts/checkout-steps.js';
import { invoiceOrderWithReminder, type OrderInvoiceInput } from '../services/invoices/from-order.js';
import type { CheckoutInput } from '../workflows/checkout-cart-defs.js';
import { mapped } from './failures.js';

export function createCheckoutActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    /** The order's invoice, Issued and paid by the checkout charge (the activity keeps its name: recorded histories call it). */
    invoiceCheckoutOrder: (input: OrderInvoiceInput) => invoiceOrderWithReminder(deps.orm.em.fork(), deps.config, input),
    reserveOrderNumber: (input: CheckoutInput) => mapped(() => reserveOrderNumber(deps.orm.em.fork(), input)),
    createOrderFromCart: (input: Parameters<typeof createOrderFromCart>[2]) => mapped(() => createOrderFromCart(deps.orm.em.fork(), deps.config, input)),
  };
}
