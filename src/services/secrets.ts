/** The deployment's encryption keys (ENCRYPTION_KEYS), parsed once per configuration. */
import type { Config } from '../config.js';
import { parseEncryptionKeys, type EncryptionKey } from '../domain/secrets/crypto.js';

const cache = new Map<string, EncryptionKey[]>();

export function encryptionKeys(config: Pick<Config, 'encryptionKeys'>): EncryptionKey[] {
  let keys = cache.get(config.encryptionKeys);
  if (!keys) {
    keys = parseEncryptionKeys(config.encryptionKeys);
    cache.set(config.encryptionKeys, keys);
  }
  return keys;
}
