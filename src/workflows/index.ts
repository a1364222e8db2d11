/** Every workflow the worker runs (this file is the worker's workflowsPath). */
export { sendEmail } from './send-email.js';
export { ingestRemoteImages } from './ingest-remote-images.js';
export { checkoutCart } from './checkout-cart.js';
export { issueInvoice } from './issue-invoice.js';
export { hostedPayment } from './hosted-payment.js';
export { benchNoop } from './bench-noop.js';
export { deliverWebhook } from './deliver-webhook.js';
export { dispatchWebhookEvents } from './dispatch-webhook-events.js';
