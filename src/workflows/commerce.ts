/** Workflows of the `commerce` task queue (this file is that queue's workflowsPath; add a workflow with one export line). */
export { sendEmail } from './send-email.js';
export { checkoutCart } from './checkout-cart.js';
export { issueInvoice } from './issue-invoice.js';
export { hostedPayment, settleLateHostedCallback } from './hosted-payment.js';
export { payInvoiceByCard, refundInvoicePayment } from './invoice-payments.js';
export { commissionStatement } from './commission-statement.js';
export { deliverWebhook } from './deliver-webhook.js';
export { dispatchWebhookEvents } from './dispatch-webhook-events.js';
export { collectInvoice } from './collect-invoice.js';
export { negotiateQuote } from './negotiate-quote.js';
export { approvePurchase } from './approve-purchase.js';
export { paymentJanitor } from './payment-janitor.js';
export { fulfillOrder } from './fulfill-order.js';
export { allocateBackorders } from './allocate-backorders.js';
export { refundOrderCancellation } from './cancel-order.js';
export { priceListSchedule } from './price-list-schedule.js';
export { returnOrder } from './return-order.js';
