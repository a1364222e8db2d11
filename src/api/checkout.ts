/**
 * POST /api/carts/{customerNumber}/{shoppingCartId}/complete-checkout: the route and its schema.
 * The use case (validation, card tokenization, the `checkoutCart` workflow run once per cart) is
 * src/services/carts/checkout.ts. Response `{ orderNumber, confirmationId }`.
 */
import * as yup from 'yup';
import { accepted, defineRoute, json, ok } from '../http/route.js';
import * as out from '../domain/contract.js';
import { completeCheckout } from '../services/carts/checkout.js';
import { paymentChoice } from './schemas.js';

const s = (max: number) => yup.string().trim().max(max);

const checkoutSchema = yup.object({
  customerNumber: s(50).required(),
  channel: s(50).min(1).required(),
  paymentProfileId: s(200).nullable(),
  payment: paymentChoice(),
});

export const checkoutRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/carts/:customerNumber/:shoppingCartId/complete-checkout',
    operationId: 'checkoutCart',
    summary:
      'Check out a cart: charge the saved paymentProfileId or the card in `payment` (tokenized first), or with `payment: { method: "OnAccount" }` buy against the customer\'s credit limit (no charge; the invoice is due by the customer\'s payment terms); create the order, close the cart. Runs as workflow checkout-<cartId>; repeated calls attach to it. confirmationId is the provider charge id (the workflow run id when nothing was charged)',
    tag: 'Carts',
    auth: ['Admin', 'SalesRep', 'Customer'],
    body: checkoutSchema,
    requestExample: {
      customerNumber: 'C-100',
      channel: 'Web',
      payment: {
        billingAddress: { line1: '1 Main St', city: 'Springfield', postalCode: '62701', country: 'US' },
        creditCard: { cardNumber: '4111111111111111', cardholderName: 'Ada Buyer', expiryMonth: '12', expiryYear: '2030', cvv: '123' },
      },
    },
    responses: {
      200: json(
        out.component('CheckoutResult', out.obj({ orderNumber: out.str(), confirmationId: out.doc(out.str(), 'The payment provider charge id (the workflow run id when nothing was charged)') })),
        'The order number and the provider confirmation; the cart is CLOSED',
        { example: { orderNumber: 'SO-000042', confirmationId: 'ch_5f2b9c1d7e' } },
      ),
      202: json(
        out.component('CheckoutPendingApproval', out.obj({ status: out.doc(out.str(), 'PendingApproval'), approvalId: out.str() })),
        "The total exceeds the buyer's spending limit; nothing was charged; the checkout continues once approved (docs/approvals.md)",
      ),
      400: 'Missing data, no shipping address, empty cart, SKU not in the catalog, or closed cart',
      401: 'Unauthenticated',
      402: 'The card was declined, or (OnAccount) the order exceeds the available credit, named in the detail; nothing was charged and the cart stays PENDING',
      404: 'No such cart (or not visible)',
      409: 'OnAccount while the customer is on credit hold (the detail names the overdue invoices; card checkouts stay allowed), or the cart was edited while it was being checked out (any charge voided; the cart stays PENDING with the edit: check out again)',
      503: 'Checkout still running; call again',
    },
    async handler({ em, deps, orgId, auth, body, params }) {
      const r = await completeCheckout(em, deps, orgId, auth, { customerNumber: params.customerNumber, shoppingCartId: params.shoppingCartId }, body);
      if ('approvalId' in r) return accepted({ status: r.status, approvalId: r.approvalId }, `/api/approvals/${r.approvalId}`);
      return ok({ orderNumber: r.orderNumber, confirmationId: r.confirmationId });
    },
  }),
];
