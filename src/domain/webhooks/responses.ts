/** Response schemas of the outbound webhook endpoints (camelCase); src/services/webhooks writes them. */
import { arr, bool, component, dateTime, dateTimeN, doc, int, intN, obj, oneOf, str, strN, uri, uuid } from '../contract.js';
import { genericPage } from '../resources.js';
import { SUBSCRIBABLE_EVENTS, WEBHOOK_EVENT_TYPES } from './rules.js';

const DELIVERY_STATUSES = ['Pending', 'Retrying', 'Succeeded', 'Failed'] as const;

const webhookFields = {
  webhookId: uuid(),
  url: uri(),
  events: doc(arr(oneOf(SUBSCRIBABLE_EVENTS)), 'Event types, or ["*"] for all (`webhook.test` is never subscribed: it goes only to the subscription tested)'),
  description: strN(),
  isEnabled: bool(),
  disabledReason: doc(strN(), 'Why the service disabled it (e.g. the endpoint kept failing); cleared when re-enabled'),
  createdAt: dateTime(),
  updatedAt: dateTime(),
};
export const webhook = component('Webhook', obj(webhookFields));
export const createdWebhook = component('CreatedWebhook', obj({ ...webhookFields, secret: doc(str(), 'Signing secret (whsec_...), shown only here and on rotation') }));
export const webhookList = genericPage('WebhookPage', webhook);
export const webhookSecret = component('WebhookSecret', obj({ secret: doc(str(), 'The new signing secret (whsec_...)') }));
export const webhookTestSent = component('WebhookTestSent', obj({ eventId: uuid(), deliveryId: uuid() }));

const deliveryFields = {
  deliveryId: uuid(),
  webhookId: uuid(),
  eventId: doc(uuid(), 'Sent as the webhook-id header; the same for every delivery of the event'),
  eventType: doc(oneOf(WEBHOOK_EVENT_TYPES), 'The event type: a subscribed one, or `webhook.test` from POST /api/webhooks/{webhookId}/test'),
  status: oneOf(DELIVERY_STATUSES),
  attempts: int(),
  lastStatusCode: intN(),
  lastError: strN(),
  nextAttemptAt: dateTimeN(),
  createdAt: dateTime(),
};
export const webhookDelivery = component('WebhookDelivery', obj(deliveryFields));
export const webhookDeliveryPage = genericPage('WebhookDeliveryPage', webhookDelivery);
export const webhookDeliveryDetail = component(
  'WebhookDeliveryDetail',
  obj({ ...deliveryFields, attemptLog: arr(obj({ at: dateTime(), statusCode: doc(intN(), 'Null when no answer came'), error: strN(), durationMs: int() })) }),
);
export const webhookReplay = component('WebhookReplay', obj({ replayed: int(), deliveryIds: arr(uuid()) }));
