/**
 * POST /api/carts/{customerNumber}/{shoppingCartId}/complete-checkout: the route and its schema.
 * The use case (validation, card tokenization, the `checkoutCart` workflow run once per cart) is
 * src/services/carts/checkout.ts. Response `{ orderNumber, confirmationId }`.
 */
import * as yup from 'yup';
import { defineRoute, ok } from '../http/route.js';
import { completeCheckout } from '../services/carts/checkout.js';

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
      const r = await completeCheckout(em, deps, orgId, auth, { customerNumber: params.customerNumber, shoppingCartId: params.shoppingCartId }, body);
      return ok({ orderNumber: r.orderNumber, confirmationId: r.confirmationId });
    },
  }),
];
