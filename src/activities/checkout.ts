/**
 * Checkout activities (workflow checkoutCart): one-line delegates to the worker-side steps of
 * src/services/carts/checkout-steps.ts, where each step's idempotency is described. The charge
 * and its void are payment activities (src/activities/payments.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { createOrderFromCart, reserveOrderNumber } from '../services/carts/checkout-steps.js';
import type { CheckoutInput } from '../workflows/checkout-cart-defs.js';
import { mapped } from './failures.js';

export function createCheckoutActivities(deps: { orm: MikroORM }) {
  return {
    reserveOrderNumber: (input: CheckoutInput) => mapped(() => reserveOrderNumber(deps.orm.em.fork(), input)),
    createOrderFromCart: (input: Parameters<typeof createOrderFromCart>[1]) => mapped(() => createOrderFromCart(deps.orm.em.fork(), input)),
  };
}
