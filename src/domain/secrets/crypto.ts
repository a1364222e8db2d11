/**
 * Secrets at rest (integration secrets, webhook signing secrets): AES-256-GCM with a key id
 * stored in the envelope, so keys can rotate. ENCRYPTION_KEYS is `id:base64key[,id:base64key...]`;
 * the first key encrypts, every listed key decrypts. Envelope: `<keyId>:<iv>:<tag>:<ciphertext>`
 * (base64url parts). Errors never contain plaintext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** Parses ENCRYPTION_KEYS; throws naming the bad entry (never its key bytes). */
export function parseEncryptionKeys(spec: string): EncryptionKey[] {
  const keys = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry, i) => {
      const sep = entry.indexOf(':');
      const id = sep > 0 ? entry.slice(0, sep) : '';
      if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id))
        throw new Error(`ENCRYPTION_KEYS entry ${i + 1} needs the form id:base64key (id of letters, digits, - or _).`);
      const key = Buffer.from(entry.slice(sep + 1), 'base64');
      if (key.length !== 32) throw new Error(`ENCRYPTION_KEYS key "${id}" must be 32 bytes, base64 encoded.`);
      return { id, key };
    });
  if (!keys.length) throw new Error('ENCRYPTION_KEYS is empty.');
  const ids = new Set<string>();
  for (const k of keys) {
    if (ids.has(k.id)) throw new Error(`ENCRYPTION_KEYS lists the key id "${k.id}" twice.`);
    ids.add(k.id);
  }
  return keys;
}

export function encryptSecret(plaintext: string, keys: EncryptionKey[]): string {
  const { id, key } = keys[0];
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(id));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(':');
}

/** The key id an envelope was written with. */
export function envelopeKeyId(envelope: string): string {
  return envelope.split(':')[0];
}

export function decryptSecret(envelope: string, keys: EncryptionKey[]): string {
  const [id, iv, tag, ct] = envelope.split(':');
  const k = keys.find((x) => x.id === id);
  if (!k || iv === undefined || tag === undefined || ct === undefined)
    throw new Error(`A stored secret is encrypted with key "${id}", which ENCRYPTION_KEYS does not list.`);
  const decipher = createDecipheriv('aes-256-gcm', k.key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(id));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`A stored secret encrypted with key "${id}" failed authentication.`);
  }
}

/** Encrypts a string map as one envelope (integration secrets). */
export function encryptJson(value: Record<string, string>, keys: EncryptionKey[]): string {
  return encryptSecret(JSON.stringify(value), keys);
}

export function decryptJson(envelope: string, keys: EncryptionKey[]): Record<string, string> {
  return JSON.parse(decryptSecret(envelope, keys)) as Record<string, string>;
}
