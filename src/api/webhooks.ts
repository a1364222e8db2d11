/**
 * Outbound webhook endpoints (DESIGN "Outbound webhooks", Admin): subscriptions, secret
 * rotation, test events, the delivery log, redeliver and replay. Use cases live in
 * src/services/webhooks/.
 */
import * as yup from 'yup';
import { dateInput } from './schemas.js';
import { SUBSCRIBABLE_EVENTS as SUBSCRIBABLE } from '../domain/webhooks/rules.js';
import * as schema from '../domain/webhooks/responses.js';
import { accepted, created, defineRoute, json, LOCATION, noContent, ok } from '../http/route.js';
import { deliveryListSpec, getDelivery, listDeliveries, redeliver, replayFailed, sendTestEvent } from '../services/webhooks/deliveries.js';
import { createSubscription, deleteSubscription, findSubscription, listSubscriptions, rotateSubscriptionSecret, updateSubscription, webhookListSpec, webhookView } from '../services/webhooks/subscriptions.js';

const eventsSchema = () =>
  yup
    .array(
      yup
        .string()
        .oneOf(SUBSCRIBABLE, `\${path} must be one of: ${SUBSCRIBABLE.join(', ')} (webhook.test is sent only by POST /api/webhooks/{webhookId}/test).`)
        .required(),
    )
    .min(1, 'events must name at least one event type, or ["*"] for all.')
    .max(50)
    .meta({ description: 'Event types to receive, or ["*"] for all; `webhook.test` cannot be subscribed to (POST /api/webhooks/{webhookId}/test sends it to the subscription tested)' });
const urlSchema = () =>
  yup
    .string()
    .trim()
    .max(2048, 'url must be at most 2048 characters.')
    .test('url', 'url must be an absolute http(s) URL (https unless private networks are allowed).', (v) => v === undefined || /^https?:\/\/[^/\s]+/i.test(v));

const createBody = yup.object({
  url: urlSchema().required('url is required.'),
  events: eventsSchema().required('events is required.'),
  description: yup.string().trim().max(500).nullable(),
  isEnabled: yup.boolean().default(true),
});
const updateBody = yup.object({
  url: urlSchema(),
  events: eventsSchema(),
  description: yup.string().trim().max(500).nullable(),
  isEnabled: yup.boolean(),
});
const replayBody = yup.object({
  since: dateInput().required('since is required.'),
});

const TAG = 'Webhooks';
const ADMIN = ['Admin'] as const;
const common = { 401: 'Unauthenticated', 403: 'Not Admin' };

export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/webhooks',
    operationId: 'createWebhook',
    summary: 'Subscribe a URL to events; the signing secret (whsec_...) is shown only in this response',
    tag: TAG,
    auth: ADMIN,
    answersSecret: true,
    body: createBody,
    responses: {
      201: json(schema.createdWebhook, 'The subscription with its signing secret (shown only here)', { headers: LOCATION }),
      400: 'Bad url (https only; no private addresses) or events',
      ...common,
    },
    async handler({ em, deps, orgId, body }) {
      const webhook = await createSubscription(em, deps.config, orgId, body);
      return created(webhook, `/api/webhooks/${webhook.webhookId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks',
    operationId: 'listWebhooks',
    summary: 'Webhook subscriptions of the organization, oldest first (paged: Data, TotalCount, PageNumber, PageSize; no secrets); filters on isEnabled, url',
    tag: TAG,
    auth: ADMIN,
    paged: webhookListSpec,
    responses: { 200: json(schema.webhookList, 'A page of subscriptions (oldest first by default)'), 400: 'Bad paging, sorting or filters', ...common },
    async handler({ em, orgId, query }) {
      return ok(await listSubscriptions(em, orgId, query));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/:webhookId',
    operationId: 'getWebhook',
    summary: 'One webhook subscription (no secret)',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: json(schema.webhook, 'The subscription'), 404: 'No such webhook', ...common },
    async handler({ em, orgId, params }) {
      return ok(webhookView(await findSubscription(em, orgId, params.webhookId)));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/webhooks/:webhookId',
    operationId: 'updateWebhook',
    summary: 'Change url, events, description or isEnabled (re-enabling clears disabledReason)',
    tag: TAG,
    auth: ADMIN,
    body: updateBody,
    responses: { 200: json(schema.webhook, 'The subscription as it now stands'), 400: 'Bad url or events', 404: 'No such webhook', ...common },
    async handler({ em, deps, orgId, params, body }) {
      return ok(await updateSubscription(em, deps.config, orgId, params.webhookId, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/webhooks/:webhookId',
    operationId: 'deleteWebhook',
    summary: 'Delete a subscription and its delivery log; pending deliveries stop',
    tag: TAG,
    auth: ADMIN,
    responses: { 204: 'Deleted', 404: 'No such webhook', ...common },
    async handler({ em, orgId, params }) {
      await deleteSubscription(em, orgId, params.webhookId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/:webhookId/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'New signing secret; the previous one keeps signing beside it for 24 hours',
    tag: TAG,
    auth: ADMIN,
    answersSecret: true,
    responses: { 200: json(schema.webhookSecret, 'The new signing secret'), 404: 'No such webhook', ...common },
    async handler({ em, deps, orgId, params }) {
      return ok(await rotateSubscriptionSecret(em, deps.config, orgId, params.webhookId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/:webhookId/test',
    operationId: 'sendTestWebhook',
    summary: 'Send a webhook.test event to this subscription',
    tag: TAG,
    auth: ADMIN,
    responses: { 202: json(schema.webhookTestSent, 'The test event and its delivery'), 404: 'No such webhook', ...common },
    async handler({ em, orgId, params }) {
      const sent = await sendTestEvent(em, orgId, params.webhookId);
      return accepted(sent, `/api/webhooks/${params.webhookId}/deliveries/${sent.deliveryId}`);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/:webhookId/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: 'Delivery log, newest first (paged: Data, TotalCount, PageNumber, PageSize); filters on status, eventType',
    tag: TAG,
    auth: ADMIN,
    paged: deliveryListSpec,
    responses: { 200: json(schema.webhookDeliveryPage, 'A page of deliveries (newest first by default)'), 400: 'Bad paging or filters', 404: 'No such webhook', ...common },
    async handler({ em, orgId, params, query }) {
      return ok(await listDeliveries(em, orgId, params.webhookId, query));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/:webhookId/deliveries/:deliveryId',
    operationId: 'getWebhookDelivery',
    summary: 'One delivery with its attemptLog [{ at, statusCode, error, durationMs }]',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: json(schema.webhookDeliveryDetail, 'The delivery with every attempt'), 404: 'No such webhook or delivery', ...common },
    async handler({ em, orgId, params }) {
      return ok(await getDelivery(em, orgId, params.webhookId, params.deliveryId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    operationId: 'redeliverWebhookDelivery',
    summary: 'Deliver the same event again (same webhook-id) as a new delivery',
    tag: TAG,
    auth: ADMIN,
    responses: { 202: json(schema.webhookDelivery, 'The new delivery (Pending)'), 404: 'No such webhook or delivery', ...common },
    async handler({ em, orgId, params }) {
      const again = await redeliver(em, orgId, params.webhookId, params.deliveryId);
      return accepted(again, `/api/webhooks/${params.webhookId}/deliveries/${again.deliveryId}`);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/:webhookId/replay',
    operationId: 'replayWebhookEvents',
    summary: 'Redeliver every event whose latest delivery since `since` failed',
    tag: TAG,
    auth: ADMIN,
    body: replayBody,
    responses: { 202: json(schema.webhookReplay, 'How many events are delivered again, and their new deliveries'), 400: 'since missing or not a date', 404: 'No such webhook', ...common },
    async handler({ em, orgId, params, body }) {
      // Several deliveries at once: the delivery log, newest first, shows them.
      return accepted(await replayFailed(em, orgId, params.webhookId, new Date(body.since)), `/api/webhooks/${params.webhookId}/deliveries`);
    },
  }),
];
