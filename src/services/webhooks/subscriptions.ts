/** Webhook subscriptions: create, read, update, delete, rotate the signing secret. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { decryptSecret, encryptSecret } from '../../domain/secrets/crypto.js';
import { newWebhookSecret } from '../../domain/webhooks/signature.js';
import { WebhookDelivery, WebhookSubscription } from '../../entities/Webhook.js';
import { AppError } from '../../errors.js';
import { UUID_RE } from '../../domain/ids.js';
import { genericEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { encryptionKeys } from '../secrets.js';
import { targetProblem } from './send.js';

/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

export interface WebhookView {
  webhookId: string;
  url: string;
  events: string[];
  description: string | null;
  isEnabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export function webhookView(s: WebhookSubscription): WebhookView {
  return {
    webhookId: s.id,
    url: s.url,
    events: s.events,
    description: s.description ?? null,
    isEnabled: s.isEnabled,
    disabledReason: s.disabledReason ?? null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

function checkUrl(url: string, config: Config): void {
  const problem = targetProblem(url, config.outboundAllowPrivateNetworks);
  if (problem) throw AppError.field('url', problem);
}

export async function findSubscription(em: EntityManager, orgId: string, id: string): Promise<WebhookSubscription> {
  const s = UUID_RE.test(id) ? await em.findOne(WebhookSubscription, { id, organizationId: orgId }) : null;
  if (!s) throw AppError.notFound('Webhook');
  return s;
}

/** The organization's subscriptions, oldest first. */
/** Paging, sorting and filters of the subscription list (the route documents them from this). */
export const webhookListSpec: ListSpec = {
  filters: { isEnabled: { prop: 'isEnabled', type: 'boolean' }, url: { prop: 'url', type: 'string' } },
  sorts: { createdAt: 'createdAt', url: 'url' },
  defaultSort: 'createdAt',
};

/** A page of subscriptions, oldest first by default: the generic envelope (Data, TotalCount, PageNumber, PageSize). */
export async function listSubscriptions(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, webhookListSpec);
  const [rows, total] = await em.findAndCount(
    WebhookSubscription,
    { $and: [{ organizationId: orgId }, q.where] },
    { orderBy: [q.orderBy, { id: 'asc' }], limit: q.pageSize, offset: q.offset },
  );
  return genericEnvelope(rows.map(webhookView), total, q);
}

/** Deletes a subscription and its delivery log; pending deliveries find no subscription and stop. */
export async function deleteSubscription(em: EntityManager, orgId: string, id: string): Promise<void> {
  const s = await findSubscription(em, orgId, id);
  await em.nativeDelete(WebhookDelivery, { organizationId: orgId, webhookId: s.id });
  await em.remove(s).flush();
}

export async function createSubscription(
  em: EntityManager,
  config: Config,
  orgId: string,
  input: { url: string; events: string[]; description?: string | null; isEnabled: boolean },
): Promise<WebhookView & { secret: string }> {
  checkUrl(input.url, config);
  const secret = newWebhookSecret();
  const s = em.create(WebhookSubscription, {
    organizationId: orgId,
    url: input.url,
    events: [...new Set(input.events)],
    description: input.description ?? null,
    isEnabled: input.isEnabled,
    disabledReason: null,
    secretCiphertext: encryptSecret(secret, encryptionKeys(config)),
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
  });
  await em.flush();
  return { ...webhookView(s), secret };
}

export async function updateSubscription(
  em: EntityManager,
  config: Config,
  orgId: string,
  id: string,
  input: { url?: string; events?: string[]; description?: string | null; isEnabled?: boolean },
): Promise<WebhookView> {
  const s = await findSubscription(em, orgId, id);
  if (input.url !== undefined) {
    checkUrl(input.url, config);
    s.url = input.url;
  }
  if (input.events !== undefined) s.events = [...new Set(input.events)];
  if (input.description !== undefined) s.description = input.description;
  if (input.isEnabled !== undefined) {
    s.isEnabled = input.isEnabled;
    if (input.isEnabled) s.disabledReason = null;
  }
  await em.flush();
  return webhookView(s);
}

export async function rotateSubscriptionSecret(em: EntityManager, config: Config, orgId: string, id: string, now = new Date()): Promise<{ secret: string }> {
  const s = await findSubscription(em, orgId, id);
  const secret = newWebhookSecret();
  s.previousSecretCiphertext = s.secretCiphertext;
  s.previousSecretExpiresAt = new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS);
  s.secretCiphertext = encryptSecret(secret, encryptionKeys(config));
  await em.flush();
  return { secret };
}

/** The secrets that sign now: the current one, plus the previous one during its grace period. */
export function signingSecrets(s: WebhookSubscription, config: Config, now = new Date()): string[] {
  const keys = encryptionKeys(config);
  const out = [decryptSecret(s.secretCiphertext, keys)];
  if (s.previousSecretCiphertext && s.previousSecretExpiresAt && s.previousSecretExpiresAt > now) out.push(decryptSecret(s.previousSecretCiphertext, keys));
  return out;
}
