/**
 * Moves every stored secret (integration secrets, webhook signing secrets) to the first key of
 * ENCRYPTION_KEYS. Run after putting a new key first; afterwards the old key can be removed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { decryptSecret, encryptSecret, envelopeKeyId, type EncryptionKey } from '../domain/secrets/crypto.js';
import { Integration } from '../entities/Integration.js';
import { WebhookSubscription } from '../entities/Webhook.js';

export interface ReencryptReport {
  integrations: number;
  webhooks: number;
  alreadyCurrent: number;
}

const BATCH = 200;

export async function reencryptSecrets(em: EntityManager, keys: EncryptionKey[], opts: { organizationId?: string } = {}): Promise<ReencryptReport> {
  const current = keys[0].id;
  const report: ReencryptReport = { integrations: 0, webhooks: 0, alreadyCurrent: 0 };
  const move = (envelope: string | null | undefined): string | null => {
    if (!envelope) return envelope ?? null;
    if (envelopeKeyId(envelope) === current) {
      report.alreadyCurrent++;
      return envelope;
    }
    return encryptSecret(decryptSecret(envelope, keys), keys);
  };
  const scope = opts.organizationId ? { organizationId: opts.organizationId } : {};
  for (let offset = 0; ; offset += BATCH) {
    const fork = em.fork();
    const rows = await fork.find(Integration, scope, { orderBy: { id: 'asc' }, limit: BATCH, offset });
    for (const r of rows) {
      const next = move(r.secretsCiphertext);
      if (next !== r.secretsCiphertext) {
        r.secretsCiphertext = next;
        report.integrations++;
      }
    }
    await fork.flush();
    if (rows.length < BATCH) break;
  }
  for (let offset = 0; ; offset += BATCH) {
    const fork = em.fork();
    const rows = await fork.find(WebhookSubscription, scope, { orderBy: { id: 'asc' }, limit: BATCH, offset });
    for (const r of rows) {
      const a = move(r.secretCiphertext)!;
      const b = move(r.previousSecretCiphertext);
      if (a !== r.secretCiphertext || b !== r.previousSecretCiphertext) report.webhooks++;
      r.secretCiphertext = a;
      r.previousSecretCiphertext = b;
    }
    await fork.flush();
    if (rows.length < BATCH) break;
  }
  return report;
}
