/**
 * POST /api/carts/{customerNumber}/{shoppingCartId}/complete-checkout. The route validates
 * the cart (400: missing data, no shipping address, empty cart, SKU no longer in the catalog),
 * tokenizes a card given in the request (profile only, no charge; a declined card is a 402
 * before anything starts), then starts workflow `checkoutCart` with id `checkout-<cartId>`
 * and waits for its result. A second call for the same cart attaches to the same workflow,
 * so concurrent calls give one order and one charge. Response `{ orderNumber, confirmationId }`
 * where confirmationId is the provider's charge id (the workflow run id when the total is 0).
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import * as yup from 'yup';
import { taskQueue } from '../config.js';
import type { Deps } from '../deps.js';
import { Product } from '../entities/index.js';
import { AppError, type ErrorKind } from '../errors.js';
import { defineRoute, ok } from '../http/route.js';
import { gatewayFor } from '../services/integrations/provider-settings.js';
import { searchAttributes } from '../integrations/temporal.js';
import type { CheckoutInput, CheckoutResult } from '../workflows/checkout-cart.js';
import { findVisibleCustomer } from '../services/customers/visibility.js';
import { findActivePaymentMethod } from '../services/payments/methods.js';
import { findCart } from './carts.js';

const s = (max: number) => yup.string().trim().max(max);

const checkoutSchema = yup.object({
  customerNumber: s(50).required(),
  channel: s(50).min(1).required(),
  paymentProfileId: s(200).nullable(),
  payment: yup
    .object({
      billingAddress: yup.object().required(),
      creditCard: yup
        .object({
          cardNumber: yup.string().trim().matches(/^[0-9 ]{12,23}$/, '${path} must be a card number.').required(),
          cardholderName: s(200).min(1).required(),
          expiryMonth: yup.string().trim().matches(/^(0?[1-9]|1[0-2])$/, '${path} must be a month 1-12.').required(),
          expiryYear: yup.string().trim().matches(/^\d{2}(\d{2})?$/, '${path} must be a year.').required(),
          cvv: yup.string().trim().matches(/^\d{3,4}$/, '${path} must be 3 or 4 digits.').required(),
        })
        .required(),
    })
    .nullable()
    .default(undefined),
});

const KINDS: ErrorKind[] = ['validation', 'bad_request', 'payment_required', 'not_found', 'conflict'];

async function awaitCheckout(deps: Deps, workflowId: string, start: (() => Promise<unknown>) | null): Promise<CheckoutResult> {
  const client = deps.temporal;
  try {
    if (start) {
      try {
        await start();
      } catch (e) {
        if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
      }
    }
    const handle = client.workflow.getHandle(workflowId);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('unavailable', 'Checkout is still in progress; call complete-checkout again to get its result.')), deps.config.checkoutWaitMs);
    });
    try {
      return (await Promise.race([handle.result(), timeout])) as CheckoutResult;
    } finally {
      clearTimeout(timer);
    }
  } catch (e) {
    if (e instanceof WorkflowFailedError) {
      const cause = e.cause instanceof ApplicationFailure ? e.cause : null;
      const kind = (cause?.type ?? '') as ErrorKind;
      if (cause && KINDS.includes(kind)) throw new AppError(kind, cause.message);
      throw new AppError('internal', 'Checkout failed.');
    }
    throw e;
  }
}

export const checkoutRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/carts/:customerNumber/:shoppingCartId/complete-checkout',
    summary:
      'Check out a cart: charge the saved paymentProfileId or the card in `payment` (tokenized first), create the order, close the cart. Runs as workflow checkout-<cartId>; repeated calls attach to it. confirmationId is the provider charge id',
    tag: 'Carts',
    auth: ['Admin', 'SalesRep', 'Customer'],
    idempotent: true,
    body: checkoutSchema,
    responses: {
      200: '{ orderNumber, confirmationId }',
      400: 'Missing data, no shipping address, empty cart, SKU not in the catalog, or closed cart',
      401: 'Unauthenticated',
      402: 'The card was declined; nothing was charged and the cart stays PENDING',
      404: 'No such cart (or not visible)',
      503: 'Checkout still running; call again',
    },
    async handler({ em, deps, orgId, auth, body, params }) {
      const cart = await findCart(em, orgId, auth, params.shoppingCartId, params.customerNumber);
      if (body.customerNumber !== params.customerNumber) throw AppError.field('customerNumber', 'customerNumber must match the customer number in the path.');
      const workflowId = `checkout-${cart.id}`;
      if (cart.status !== 'PENDING') {
        try {
          return ok(pick(await awaitCheckout(deps, workflowId, null)));
        } catch (e) {
          if (e instanceof WorkflowNotFoundError) throw AppError.badRequest('The cart is closed.');
          throw e;
        }
      }
      const errors: Record<string, string[]> = {};
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

      let paymentProfileId = body.paymentProfileId ?? null;
      if (paymentProfileId) await findActivePaymentMethod(em, orgId, cart.customerNumber, paymentProfileId);
      if (!paymentProfileId && body.payment) {
        const customer = await findVisibleCustomer(em, orgId, auth, cart.customerNumber);
        const card = body.payment.creditCard;
        const gateway = await gatewayFor(em, deps.config, orgId);
        const profile = await gateway.tokenizeCard({
          customerNumber: cart.customerNumber,
          email: customer.companyEmail,
          card: { number: card.cardNumber.replace(/\s+/g, ''), expMonth: card.expiryMonth, expYear: card.expiryYear, cvv: card.cvv },
          billingAddress: body.payment.billingAddress as Record<string, unknown>,
        });
        paymentProfileId = profile.paymentProfileId;
      }
      const input: CheckoutInput = { organizationId: orgId, cartId: cart.id, customerNumber: cart.customerNumber, channel: body.channel, paymentProfileId, userId: auth.userId };
      const result = await awaitCheckout(deps, workflowId, () =>
        deps.temporal.workflow.start('checkoutCart', {
          workflowId,
          taskQueue: taskQueue(deps.config, 'commerce'),
          args: [input],
          typedSearchAttributes: searchAttributes({ organizationId: orgId, customerNumber: cart.customerNumber }),
          // A failed checkout (declined card) may be retried under the same id; a finished one is attached to.
          workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
        }),
      );
      return ok(pick(result));
    },
  }),
];

const pick = (r: CheckoutResult) => ({ orderNumber: r.orderNumber, confirmationId: r.confirmationId });
