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
import type { Deps } from '../../deps.js';
import { UUID_RE } from '../../domain/ids.js';
import { AppError, type FieldErrors } from '../../errors.js';
import type { Principal } from '../../http/auth.js';
import { gatewayFor } from '../integrations/provider-settings.js';
import type { CheckoutInput, CheckoutResult } from '../../workflows/checkout-cart-defs.js';
import { awaitWorkflow, isWorkflowNotFound, runWorkflow } from '../../adapters/temporal.js';
import { checkouts } from '../../metrics.js';
import { visibilityArgs } from '../customers/visibility.js';
import { findActivePaymentMethod } from '../payments/methods.js';
import type { PendingApproval } from '../approvals/approvals.js';
import { admitSpending } from '../orders/admission.js';
import { assertBodyCustomer, type CartRef } from './carts.js';
import { Decimal } from 'decimal.js';
import { cartAmountDue, readVisibleCheckoutCart, type CheckoutCart } from './checkout-cart.js';
import { amountText } from '../../workflows/tags-defs.js';
import { repriceAtCheckout } from './checkout-reprice.js';

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
  const read = await readCheckoutCart(em, orgId, auth, ref);
  assertBodyCustomer(body.customerNumber, ref.customerNumber);
  const workflowId = `checkout-${read.id}`;
  if (read.status !== 'PENDING') return finishedCheckout(deps, workflowId);
  // Counted from here on (checkouts_total): a refusal before the workflow (empty cart, a card
  // declined at tokenization) is a failed checkout as much as a decline of the charge.
  return countCheckout(startCheckout(em, deps, orgId, auth, read, body, workflowId));
}

async function startCheckout(em: EntityManager, deps: Deps, orgId: string, auth: Principal, read: VisibleCart, body: CheckoutRequest, workflowId: string): Promise<CheckoutResult | PendingApproval> {
  assertCheckoutReady(read, body);
  // Charged at the prices in force now: lines priced before a price list took effect or expired are re-priced (docs/pricing.md).
  const cart = await repriceAtCheckout(em, orgId, read);
  const onAccount = isOnAccount(body);
  const total = cartAmountDue(cart);
  const input: CheckoutInput = {
    organizationId: orgId,
    cartId: cart.id,
    customerNumber: cart.customerNumber,
    channel: body.channel,
    paymentProfileId: onAccount ? null : await paymentProfileFor(em, deps, orgId, cart, body),
    userId: auth.userId,
    // The credit check (reserveCredit, src/services/credit/accounts.ts) runs in the order's transaction.
    ...(onAccount ? { paymentMethod: 'OnAccount' as const } : {}),
    // The total admitted here (spending limits below): the checkout refuses a cart edited since.
    expectedAmount: total,
    // The lines admitted with it: an approval is for exactly these (docs/approvals.md).
    expectedLines: cart.items.map((i) => ({ sku: i.sku, quantity: i.quantity, unitPrice: String(i.unitPrice) })),
  };
  const held = await checkSpendingLimit(em, deps, orgId, auth, cart, input, total);
  if (held) return held;
  // A failed checkout (declined card) may be retried under the same id; a finished one is attached to.
  return runWorkflow<CheckoutResult>(deps.temporal, deps.config, {
    workflowType: 'checkoutCart',
    workflowId,
    args: [input],
    keys: { organizationId: orgId, customerNumber: cart.customerNumber },
    about: { what: `Checkout of cart ${cart.id}`, amount: amountText(total, cart.currencyCode) },
    waitMs: deps.config.checkoutWaitMs,
    what: 'Checkout',
    inProgress: IN_PROGRESS,
  });
}

/** checkouts_total by what the caller gets: completed, held (for approval), failed (a 4xx refusal), in_progress (the wait ran out), error. */
async function countCheckout<T>(run: Promise<T>): Promise<T> {
  try {
    const result = await run;
    checkouts.inc({ outcome: (result as Partial<PendingApproval>)?.status === 'PendingApproval' ? 'held' : 'completed' });
    return result;
  } catch (e) {
    const status = e instanceof AppError ? e.status : 500;
    checkouts.inc({ outcome: e instanceof AppError && e.kind === 'unavailable' ? 'in_progress' : status < 500 ? 'failed' : 'error' });
    throw e;
  }
}

/**
 * The buyer's spending limits, before anything is charged (the one admission of orders,
 * src/services/orders/admission.ts): a checkout (card or on account) above the per-order or
 * remaining monthly limit is held for approval (workflow approvePurchase), which continues exactly
 * this checkout input once approved. Null: go ahead.
 */
async function checkSpendingLimit(em: EntityManager, deps: Deps, orgId: string, auth: Principal, cart: VisibleCart, input: CheckoutInput, total: string): Promise<PendingApproval | null> {
  return admitSpending({ em, temporal: deps.temporal, config: deps.config }, orgId, auth, {
    subject: 'Cart',
    customerId: cart.customerId,
    customerNumber: cart.customerNumber,
    currencyCode: cart.currencyCode,
    total: new Decimal(total),
    lines: cart.items.map((i) => ({ sku: i.sku, name: i.name, quantity: i.quantity, unitPrice: String(i.unitPrice), lineTotal: String(i.lineTotal) })),
    checkout: input,
  });
}

/** A closed cart: the result of the checkout that closed it (400 when no checkout did). */
async function finishedCheckout(deps: Deps, workflowId: string): Promise<CheckoutResult> {
  try {
    return await awaitWorkflow<CheckoutResult>(deps.temporal, { workflowId, waitMs: deps.config.checkoutWaitMs, what: 'Checkout', inProgress: IN_PROGRESS });
  } catch (e) {
    if (isWorkflowNotFound(e)) throw AppError.badRequest('The cart is closed.');
    throw e;
  }
}

const isOnAccount = (body: CheckoutRequest) => !body.paymentProfileId && body.payment?.method === 'OnAccount';

/**
 * The cart as checkout needs it, in one statement with bound parameters (issue 18 item 4; the one
 * read of a checkout, ./checkout-cart.ts): the cart of the stored customer with the path's number
 * (by the customer's id, never by the number), under the caller's visibility, its lines (each with
 * whether its SKU is still active in the catalog) and the customer's e-mail for a card's profile.
 * 404 when absent or not visible.
 */
async function readCheckoutCart(em: EntityManager, orgId: string, auth: Principal, ref: CartRef): Promise<VisibleCart> {
  const visible = visibilityArgs(auth);
  if (!UUID_RE.test(ref.shoppingCartId) || !visible) throw AppError.notFound('Cart');
  const cart = await readVisibleCheckoutCart(em, orgId, ref.shoppingCartId, visible, ref.customerNumber);
  if (!cart?.customerId || !cart.customer) throw AppError.notFound('Cart');
  return { ...cart, customerId: cart.customerId, companyEmail: cart.customer.companyEmail ?? null };
}

/** A checkout cart of a stored customer (the path's). */
type VisibleCart = CheckoutCart & { customerId: string; companyEmail: string | null };

/** Every reason the cart cannot be checked out, as field errors (400). */
function assertCheckoutReady(cart: CheckoutCart, body: CheckoutRequest): void {
  const errors: FieldErrors = {};
  if (!body.paymentProfileId && !body.payment) errors.payment = ['payment is required when paymentProfileId is absent.'];
  if (!cart.shippingAddress) errors.shippingAddress = ['The cart has no shipping address; set it with PUT .../shipping first.'];
  if (!cart.items.length) errors.items = ['The cart is empty.'];
  const missing = cart.items.filter((i) => !i.inCatalog).map((i) => i.sku);
  if (missing.length) errors.items = [...(errors.items ?? []), `These SKUs are no longer in the catalog: ${missing.join(', ')}.`];
  if (Object.keys(errors).length) throw AppError.validation(errors, 'The cart cannot be checked out.');
}

/** The saved card to charge (one of the customer's), or the card in the request tokenized at the provider (402 when declined). */
async function paymentProfileFor(em: EntityManager, deps: Deps, orgId: string, cart: VisibleCart, body: CheckoutRequest): Promise<string | null> {
  if (body.paymentProfileId) {
    await findActivePaymentMethod(em, orgId, cart.customerId, body.paymentProfileId);
    return body.paymentProfileId;
  }
  if (!body.payment?.creditCard) return null;
  const card = body.payment.creditCard;
  const gateway = await gatewayFor(em, deps.config, orgId, deps.readCache);
  const profile = await gateway.tokenizeCard({
    customerNumber: cart.customerNumber,
    email: cart.companyEmail,
    card: { number: card.cardNumber.replace(/\s+/g, ''), expMonth: card.expiryMonth, expYear: card.expiryYear, cvv: card.cvv },
    billingAddress: body.payment.billingAddress ?? {},
  });
  return profile.paymentProfileId;
}
