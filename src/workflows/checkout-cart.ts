/**
 * checkoutCart (workflow id `checkout-<cartId>`): reserve the order number -> charge the
 * saved payment profile (provider idempotency key `checkout-<cartId>`) -> create the order
 * and close the cart -> the order's invoice -> queue the confirmation e-mail. Steps after the
 * charge must eventually succeed and retry without limit (a worker crash resumes where history
 * left off, even inside the charge: the provider key charges once); business refusals surface
 * at once. A non-retryable failure or a cancellation after the charge voids it (saga
 * compensation); the cart stays PENDING. Raw card data never enters this workflow.
 */
import { ApplicationFailure, CancellationScope, isCancellation, ParentClosePolicy, proxyActivities, startChild, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { createCheckoutActivities } from '../activities/checkout.js';
import type { createPaymentActivities } from '../activities/payments.js';
import type { CheckoutInput, CheckoutResult } from './checkout-cart-defs.js';
import { chargeOrReportDecline, surface } from './payment-failed.js';
import { mustSucceed, providerCall } from './retry-policies.js';
import type { SendEmailInput } from './send-email-defs.js';

const OrderNumber = defineSearchAttributeKey('OrderNumber', SearchAttributeType.KEYWORD);
const OrganizationIdKey = defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD);
const CustomerNumberKey = defineSearchAttributeKey('CustomerNumber', SearchAttributeType.KEYWORD);
const InvoiceNumberKey = defineSearchAttributeKey('InvoiceNumber', SearchAttributeType.KEYWORD);

const acts = proxyActivities<ReturnType<typeof createCheckoutActivities>>(mustSucceed);
const provider = proxyActivities<ReturnType<typeof createPaymentActivities>>(providerCall);

export async function checkoutCart(input: CheckoutInput): Promise<CheckoutResult> {
  const runId = workflowInfo().runId;
  let prepared;
  try {
    prepared = await acts.reserveOrderNumber(input);
  } catch (e) {
    surface(e);
  }
  upsertSearchAttributes([{ key: OrderNumber, value: prepared.orderNumber }]);
  let chargeId: string | null = null;
  if (Number(prepared.amount) > 0 && !prepared.existingOrderId) {
    if (!input.paymentProfileId) throw ApplicationFailure.nonRetryable('A payment method is required.', 'bad_request');
    chargeId = await chargeOrReportDecline(
      {
        organizationId: input.organizationId,
        paymentProfileId: input.paymentProfileId,
        amount: prepared.amount,
        currency: prepared.currency,
        idempotencyKey: `checkout-${input.cartId}`,
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
  try {
    order = await acts.createOrderFromCart({ ...input, orderNumber: prepared.orderNumber, chargeId });
  } catch (e) {
    const charged = chargeId;
    if (charged) {
      const voidIt = () => provider.voidCharge({ organizationId: input.organizationId, chargeId: charged, idempotencyKey: `void-checkout-${input.cartId}` });
      // A cancelled checkout still gives the money back: the void runs outside the cancelled scope.
      await (isCancellation(e) ? CancellationScope.nonCancellable(voidIt) : voidIt());
    }
    surface(e);
  }
  // The order's invoice: Issued and paid by this charge; its issuance workflow stores the PDF and e-mails it.
  const invoice = await acts.invoiceCheckoutOrder({
    organizationId: input.organizationId,
    orderId: order.orderId,
    chargeId,
    paymentKey: `checkout-${input.cartId}`,
    paymentProfileId: input.paymentProfileId,
  });
  try {
    await startChild('issueInvoice', {
      workflowId: `invoice-${invoice.invoiceId}`,
      args: [{ organizationId: input.organizationId, invoiceId: invoice.invoiceId, reminderDelaySeconds: invoice.reminderDelaySeconds }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: [
        { key: OrganizationIdKey, value: input.organizationId },
        { key: CustomerNumberKey, value: invoice.customerNumber },
        { key: InvoiceNumberKey, value: invoice.invoiceNumber },
      ],
    });
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
  if (order.customerEmail) {
    const email: SendEmailInput = {
      emailId: `order-confirmation-${order.orderId}`,
      organizationId: input.organizationId,
      template: 'order-confirmation',
      to: order.customerEmail,
      data: { orderNumber: order.orderNumber, total: order.total, currencyCode: order.currency, customerNumber: input.customerNumber },
    };
    try {
      await startChild('sendEmail', {
        workflowId: `email-${email.emailId}`,
        args: [email],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (e) {
      if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
    }
  }
  return { orderId: order.orderId, orderNumber: order.orderNumber, confirmationId: chargeId ?? runId };
}
