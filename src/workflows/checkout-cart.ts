/**
 * checkoutCart (workflow id `checkout-<cartId>`): reserve the order number -> charge the
 * saved payment profile (provider idempotency key `checkout-<cartId>`, `checkout-<cartId>-<n>` from
 * the cart's second checkout attempt on; none for an on-account
 * checkout, whose credit check runs in the order's transaction) -> create the order, close the
 * cart and write the order's invoice with its payment (one local activity, one transaction) ->
 * start the invoice's issuance, the confirmation e-mail and (an order with a tracked line) the
 * order's fulfillOrder together, as children. Steps after the
 * charge must eventually succeed and retry without limit (a worker crash resumes where history
 * left off, even inside the charge: the provider key charges once); business refusals surface
 * at once. A non-retryable failure or a cancellation after the charge voids it (saga
 * compensation); the cart stays PENDING. A cart edited during the run no longer comes to the
 * amount charged: its order is refused (409) and the charge voided. Raw card data never enters this workflow.
 */
import { ApplicationFailure, CancellationScope, isCancellation, proxyActivities, proxyLocalActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { createCheckoutActivities } from '../activities/checkout.js';
import type { createPaymentActivities } from '../activities/payments.js';
import type { CheckoutInput, CheckoutResult } from './checkout-cart-defs.js';
import { startChildOnce } from './lib/start-child-once.js';
import { surface } from './lib/surface.js';
import { chargeOrReportDecline } from './payment-failed.js';
import { localMustSucceed, providerCall } from './retry-policies.js';
import { fulfillmentWorkflowId } from './fulfill-order-defs.js';
import type { SendEmailInput } from './send-email-defs.js';
import { amountText, childTags, emailAbout, SA } from './tags-defs.js';


const local = proxyLocalActivities<ReturnType<typeof createCheckoutActivities>>(localMustSucceed);
const provider = proxyActivities<ReturnType<typeof createPaymentActivities>>(providerCall);

export async function checkoutCart(input: CheckoutInput): Promise<CheckoutResult> {
  const runId = workflowInfo().runId;
  // The database steps run as local activities (history markers, no task round trip through the server each).
  let prepared;
  try {
    prepared = await local.reserveOrderNumber(input);
  } catch (e) {
    surface(e);
  }
  upsertSearchAttributes([{ key: SA.OrderNumber, value: prepared.orderNumber }]);
  let chargeId: string | null = null;
  // The charge's provider key names this run's attempt (reserveOrderNumber); results recorded before it have none.
  const chargeKey = prepared.chargeKey ?? `checkout-${input.cartId}`;
  // On account: nothing to charge (histories from before on-account checkout have no paymentMethod and take the same path).
  if (Number(prepared.amount) > 0 && !prepared.existingOrderId && input.paymentMethod !== 'OnAccount') {
    if (!input.paymentProfileId) throw ApplicationFailure.nonRetryable('A payment method is required.', 'bad_request');
    chargeId = await chargeOrReportDecline(
      {
        organizationId: input.organizationId,
        paymentProfileId: input.paymentProfileId,
        amount: prepared.amount,
        currency: prepared.currency,
        idempotencyKey: chargeKey,
        reference: prepared.orderNumber,
      },
      {
        source: 'checkout',
        invoiceId: null,
        invoiceNumber: null,
        cartId: input.cartId,
        orderNumber: prepared.orderNumber,
        customerNumber: input.customerNumber,
      },
    );
  }
  let order;
  // The order, the closed cart, the invoice and its payment in one activity and one transaction.
  try {
    // `amount`: the order is refused (and the charge voided below) when the cart no longer comes to what was charged.
    order = await local.createOrderFromCart({
      ...input,
      orderNumber: prepared.orderNumber,
      chargeId,
      amount: prepared.amount,
      paymentKey: `checkout-${input.cartId}`,
    });
  } catch (e) {
    const charged = chargeId;
    if (charged) {
      const voidIt = () => provider.voidCharge({ organizationId: input.organizationId, chargeId: charged, idempotencyKey: `void-${chargeKey}` });
      // A cancelled checkout still gives the money back: the void runs outside the cancelled scope.
      await (isCancellation(e) ? CancellationScope.nonCancellable(voidIt) : voidIt());
    }
    surface(e);
  }
  const invoice = order.invoice;
  // A child whose id is taken (a re-run checkout) counts as started. No invoice: an on-account order
  // invoiced per shipment (docs/fulfillment.md "Invoicing"), whose shipments start their own issuance.
  const issuance = invoice && startChildOnce('issueInvoice', {
    workflowId: `invoice-${invoice.invoiceId}`,
    args: [{ organizationId: input.organizationId, invoiceId: invoice.invoiceId }],
    // The parent's keys too (OrderNumber), so the order's issuance and reminders are found by order.
    ...childTags(
      { organizationId: input.organizationId, customerNumber: invoice.customerNumber, invoiceNumber: invoice.invoiceNumber, orderNumber: order.orderNumber },
      { what: `Issue invoice ${invoice.invoiceNumber} of order ${order.orderNumber}`, amount: amountText(order.total, order.currency) },
    ),
  });
  const customerEmail = order.customerEmail;
  const confirmation = async () => {
    if (!customerEmail) return;
    const email: SendEmailInput = {
      emailId: `order-confirmation-${order.orderId}`,
      organizationId: input.organizationId,
      template: 'order-confirmation',
      to: customerEmail,
      data: { orderNumber: order.orderNumber, total: order.total, currencyCode: order.currency, customerNumber: input.customerNumber },
    };
    const keys = { organizationId: input.organizationId, customerNumber: input.customerNumber, orderNumber: order.orderNumber };
    await startChildOnce('sendEmail', {
      workflowId: `email-${email.emailId}`,
      args: [email],
      ...childTags(keys, { ...emailAbout(email.template, keys), amount: amountText(order.total, order.currency) }),
    });
  };
  // An order with a tracked line: its fulfillment process (absent from results recorded before: the outbox started those).
  const fulfillment = order.fulfillment;
  const fulfilling =
    fulfillment &&
    startChildOnce('fulfillOrder', {
      workflowId: fulfillmentWorkflowId(fulfillment.orderId),
      args: [fulfillment],
      ...childTags(
        { organizationId: input.organizationId, customerNumber: input.customerNumber, orderNumber: order.orderNumber, businessKeys: [] },
        { what: `Fulfillment of order ${order.orderNumber}` },
      ),
    });
  await Promise.all([issuance, confirmation(), fulfilling]);
  return { orderId: order.orderId, orderNumber: order.orderNumber, confirmationId: chargeId ?? runId };
}
