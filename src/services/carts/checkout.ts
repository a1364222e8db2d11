/**
 * Checking out a cart (POST /api/carts/{customerNumber}/{shoppingCartId}/complete-checkout):
 * validate the cart (400: no payment, no shipping address, empty cart, SKU no longer in the
 * catalog), tokenize a card given in the request (profile only, no charge; a declined card is a
 * 402 before anything starts), then run workflow `checkoutCart` with id `checkout-<cartId>` and
 * answer its result. A second call for the same cart attaches to the same workflow, so
 * concurrent calls give one order and one charge; a call for a closed cart answers the finished
 * checkout's result. confirmationId is the provider's charge id (the workflow run id when the
 * total is 0).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Deps } from '../../deps.js';
import { Product, type Cart } from '../../entities/index.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { gatewayFor } from '../integrations/provider-settings.js';
import type { CheckoutInput, CheckoutResult } from '../../workflows/checkout-cart-defs.js';
import { awaitWorkflow, runWorkflow } from '../../workflow-runs.js';
import { checkouts } from '../../metrics.js';
import { findVisibleCustomer } from '../customers/visibility.js';
import { findActivePaymentMethod } from '../payments/methods.js';
import { holdForApproval, type PendingApproval } from '../approvals/approvals.js';
import { assertBodyCustomer, findCart, type CartRef } from './carts.js';

export interface CheckoutRequest {
  customerNumber: string;
  channel: string;
  paymentProfileId?: string | null;
  payment?: {
    /** 'OnAccount': against the customer's credit limit (docs/credit.md); a card otherwise. */
    method?: string;
    billingAddress?: Record<string, unknown>;
    creditCard?: { cardNumber: string; cardholderName: string; expiryMonth: string; expiryYear: string; cvv: string };
  } | null;
}

const IN_PROGRESS = 'Checkout is still in progress; call complete-checkout again to get its result.';

export async function completeCheckout(em: EntityManager, deps: Deps, orgId: string, auth: Principal, ref: CartRef, body: CheckoutRequest): Promise<CheckoutResult | PendingApproval> {
  const cart = await findCart(em, orgId, auth, ref.shoppingCartId, ref.customerNumber);
  assertBodyCustomer(body.customerNumber, ref.customerNumber);
  const workflowId = `checkout-${cart.id}`;
  if (cart.status !== 'PENDING') return finishedCheckout(deps, workflowId);
  await assertCheckoutReady(em, orgId, cart, body);
  const onAccount = isOnAccount(body);
  const input: CheckoutInput = {
    organizationId: orgId,
    cartId: cart.id,
    customerNumber: cart.customerNumber,
    channel: body.channel,
    paymentProfileId: onAccount ? null : await paymentProfileFor(em, deps, orgId, auth, cart, body),
    userId: auth.userId,
    // The credit check (reserveCredit, src/services/credit/accounts.ts) runs in the order's transaction.
    ...(onAccount ? { paymentMethod: 'OnAccount' as const } : {}),
  };
  const held = await checkSpendingLimit(em, deps, orgId, auth, cart, input);
  if (held) return held;
  // A failed checkout (declined card) may be retried under the same id; a finished one is attached to.
  return countCheckout(runWorkflow<CheckoutResult>(deps.temporal, deps.config, {
    workflowType: 'checkoutCart',
    workflowId,
    args: [input],
    keys: { organizationId: orgId, customerNumber: cart.customerNumber },
    summary: `Checkout of cart ${cart.id} for customer ${cart.customerNumber}`,
    waitMs: deps.config.checkoutWaitMs,
    what: 'Checkout',
    inProgress: IN_PROGRESS,
  }));
}

/** checkouts_total by what the caller gets: completed, failed (a 4xx refusal), in_progress (the wait ran out), error. */
async function countCheckout<T>(run: Promise<T>): Promise<T> {
  try {
    const result = await run;
    checkouts.inc({ outcome: 'completed' });
    return result;
  } catch (e) {
    const status = e instanceof AppError ? e.status : 500;
    checkouts.inc({ outcome: e instanceof AppError && e.kind === 'unavailable' ? 'in_progress' : status < 500 ? 'failed' : 'error' });
    throw e;
  }
}

/**
 * The buyer's spending limits, before anything is charged (docs/approvals.md): a checkout (card or
 * on account) above the per-order or remaining monthly limit is held for approval (workflow
 * approvePurchase), which continues exactly this checkout input once approved. Null: go ahead.
 */
async function checkSpendingLimit(em: EntityManager, deps: Deps, orgId: string, auth: Principal, cart: Cart, input: CheckoutInput): Promise<PendingApproval | null> {
  return holdForApproval({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, cart, input);
}

/** A closed cart: the result of the checkout that closed it (400 when no checkout did). */
async function finishedCheckout(deps: Deps, workflowId: string): Promise<CheckoutResult> {
  try {
    return await awaitWorkflow<CheckoutResult>(deps.temporal, { workflowId, waitMs: deps.config.checkoutWaitMs, what: 'Checkout', inProgress: IN_PROGRESS });
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw AppError.badRequest('The cart is closed.');
    throw e;
  }
}

const isOnAccount = (body: CheckoutRequest) => !body.paymentProfileId && body.payment?.method === 'OnAccount';

/** Every reason the cart cannot be checked out, as field errors (400). */
async function assertCheckoutReady(em: EntityManager, orgId: string, cart: Cart, body: CheckoutRequest): Promise<void> {
  const errors: FieldErrors = {};
  if (!body.paymentProfileId && !body.payment) errors.payment = ['payment is required when paymentProfileId is absent.'];
  if (!cart.shippingAddress) errors.shippingAddress = ['The cart has no shipping address; set it with PUT .../shipping first.'];
  if (!cart.items.length) errors.items = ['The cart is empty.'];
  const skus = cart.items.getItems().map((i) => i.sku);
  if (skus.length) {
    const found = new Set((await em.find(Product, { organization: orgId, sku: { $in: skus }, active: true }, { fields: ['sku'] })).map((p) => p.sku));
    const missing = skus.filter((x) => !found.has(x));
    if (missing.length) errors.items = [...(errors.items ?? []), `These SKUs are no longer in the catalog: ${missing.join(', ')}.`];
  }
  if (Object.keys(errors).length) throw AppError.validation(errors, 'The cart cannot be checked out.');
}

/** The saved card to charge (one of the customer's), or the card in the request tokenized at the provider (402 when declined). */
async function paymentProfileFor(em: EntityManager, deps: Deps, orgId: string, auth: Principal, cart: Cart, body: CheckoutRequest): Promise<string | null> {
  if (body.paymentProfileId) {
    await findActivePaymentMethod(em, orgId, cart.customerId ?? null, body.paymentProfileId);
    return body.paymentProfileId;
  }
  if (!body.payment?.creditCard) return null;
  const customer = await findVisibleCustomer(em, orgId, auth, cart.customerNumber);
  const card = body.payment.creditCard;
  const gateway = await gatewayFor(em, deps.config, orgId, deps.readCache);
  const profile = await gateway.tokenizeCard({
    customerNumber: cart.customerNumber,
    email: customer.companyEmail,
    card: { number: card.cardNumber.replace(/\s+/g, ''), expMonth: card.expiryMonth, expYear: card.expiryYear, cvv: card.cvv },
    billingAddress: body.payment.billingAddress ?? {},
  });
  return profile.paymentProfileId;
}
