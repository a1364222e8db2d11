/**
 * Outbound webhook endpoints (DESIGN "Outbound webhooks", Admin): subscriptions, secret
 * rotation, test events, the delivery log, redeliver and replay. Use cases live in
 * src/services/webhooks/.
 */
import * as yup from 'yup';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks/rules.js';
import { accepted, created, defineRoute, noContent, ok } from '../http/route.js';
import { getDelivery, listDeliveries, redeliver, replayFailed, sendTestEvent } from '../services/webhooks/deliveries.js';
import { createSubscription, deleteSubscription, findSubscription, listSubscriptions, rotateSubscriptionSecret, updateSubscription, webhookView } from '../services/webhooks/subscriptions.js';

const SUBSCRIBABLE = [...WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test'), '*'];
const eventsSchema = () =>
  yup
    .array(
      yup
        .string()
        .oneOf(SUBSCRIBABLE, `each event must be one of: ${SUBSCRIBABLE.join(', ')}.`)
        .required(),
    )
    .min(1, 'events must name at least one event type, or ["*"] for all.')
    .max(50);
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
  since: yup
    .string()
    .required('since is required.')
    .test('iso', 'since must be an ISO 8601 date-time.', (v) => v === undefined || (/^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)))),
});

const TAG = 'Webhooks';
const ADMIN = ['Admin'] as const;
const common = { 401: 'Unauthenticated', 403: 'Not Admin' };

export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/api/webhooks',
    summary: 'Subscribe a URL to events; the signing secret (whsec_...) is shown only in this response',
    tag: TAG,
    auth: ADMIN,
    body: createBody,
    idempotent: true,
    responses: {
      201: '{ webhookId, url, events, description, isEnabled, secret, createdAt, ... }',
      400: 'Bad url (https only; no private addresses) or events',
      ...common,
    },
    async handler({ em, deps, orgId, body }) {
      return created(await createSubscription(em, deps.config, orgId, body));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks',
    summary: 'Webhook subscriptions of the organization (no secrets)',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: '{ webhooks: [Webhook] }', ...common },
    async handler({ em, orgId }) {
      return ok({ webhooks: (await listSubscriptions(em, orgId)).map(webhookView) });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/:webhookId',
    summary: 'One webhook subscription (no secret)',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: 'Webhook', 404: 'No such webhook', ...common },
    async handler({ em, orgId, params }) {
      return ok(webhookView(await findSubscription(em, orgId, params.webhookId)));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/webhooks/:webhookId',
    summary: 'Change url, events, description or isEnabled (re-enabling clears disabledReason)',
    tag: TAG,
    auth: ADMIN,
    body: updateBody,
    responses: { 200: 'Webhook', 400: 'Bad url or events', 404: 'No such webhook', ...common },
    async handler({ em, deps, orgId, params, body }) {
      return ok(await updateSubscription(em, deps.config, orgId, params.webhookId, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/webhooks/:webhookId',
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
    summary: 'New signing secret; the previous one keeps signing beside it for 24 hours',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: '{ secret }', 404: 'No such webhook', ...common },
    async handler({ em, deps, orgId, params }) {
      return ok(await rotateSubscriptionSecret(em, deps.config, orgId, params.webhookId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/:webhookId/test',
    summary: 'Send a webhook.test event to this subscription',
    tag: TAG,
    auth: ADMIN,
    idempotent: true,
    responses: { 202: '{ eventId, deliveryId }', 404: 'No such webhook', ...common },
    async handler({ em, orgId, params }) {
      return accepted(await sendTestEvent(em, orgId, params.webhookId));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/:webhookId/deliveries',
    summary: 'Delivery log, newest first (paged: data, totalRecords, currentPage, totalPages); filters on status, eventType',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: 'Paged deliveries', 400: 'Bad paging or filters', 404: 'No such webhook', ...common },
    async handler({ em, orgId, params, query }) {
      return ok(await listDeliveries(em, orgId, params.webhookId, query));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/webhooks/:webhookId/deliveries/:deliveryId',
    summary: 'One delivery with its attemptLog [{ at, statusCode, error, durationMs }]',
    tag: TAG,
    auth: ADMIN,
    responses: { 200: 'Delivery', 404: 'No such webhook or delivery', ...common },
    async handler({ em, orgId, params }) {
      return ok(await getDelivery(em, orgId, params.webhookId, params.deliveryId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    summary: 'Deliver the same event again (same webhook-id) as a new delivery',
    tag: TAG,
    auth: ADMIN,
    idempotent: true,
    responses: { 202: 'The new delivery', 404: 'No such webhook or delivery', ...common },
    async handler({ em, orgId, params }) {
      return accepted(await redeliver(em, orgId, params.webhookId, params.deliveryId));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/webhooks/:webhookId/replay',
    summary: 'Redeliver every event whose latest delivery since `since` failed',
    tag: TAG,
    auth: ADMIN,
    body: replayBody,
    idempotent: true,
    responses: { 202: '{ replayed, deliveryIds }', 400: 'since missing or not a date', 404: 'No such webhook', ...common },
    async handler({ em, orgId, params, body }) {
      return accepted(await replayFailed(em, orgId, params.webhookId, new Date(body.since)));
    },
  }),
];
