/**
 * Optional payload codec: AES-256-GCM over every payload the client and the workers send to
 * Temporal (workflow and activity inputs and results, memos, signals, updates), so personal data
 * such as customer e-mail addresses is encrypted at rest in workflow histories. Off unless
 * PAYLOAD_CODEC_KEYS is set (`id:base64key`, comma-separated; the first key encrypts, every key
 * decrypts, so keys can be rotated). Search attributes are not payloads of the codec (they must
 * stay queryable) and carry only ids and business numbers.
 *
 * Wire format (the Temporal samples' encryption format): metadata `encoding: binary/encrypted`,
 * `encryption-key-id: <id>`; data = 12-byte IV | ciphertext | 16-byte tag of the serialized
 * original Payload. The Temporal UI / CLI decode through POST /codec/decode (src/ops/server.ts).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';

const { temporal } = proto;

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : '');

export interface CodecKey {
  id: string;
  key: Buffer;
}

/** Parses `id:base64key,...` (32-byte keys); throws naming the bad entry. */
export function parseCodecKeys(raw: string): CodecKey[] {
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((entry) => {
      const i = entry.indexOf(':');
      const id = entry.slice(0, i);
      const key = Buffer.from(entry.slice(i + 1), 'base64');
      if (i <= 0 || key.length !== 32) throw new Error(`PAYLOAD_CODEC_KEYS: entry "${id || entry.slice(0, 8)}…" is not id:<32 bytes base64>`);
      return { id, key };
    });
}

export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly byId: Map<string, Buffer>;
  constructor(private readonly keys: CodecKey[]) {
    if (!keys.length) throw new Error('AesGcmPayloadCodec needs at least one key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys[0];
    return payloads.map((p) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plain = temporal.api.common.v1.Payload.encode(p).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { metadata: { encoding: utf8(ENCRYPTED_ENCODING), [KEY_ID]: utf8(id) }, data: new Uint8Array(data) };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (text(p.metadata?.encoding) !== ENCRYPTED_ENCODING) return p;
      const id = text(p.metadata?.[KEY_ID]);
      const key = this.byId.get(id);
      if (!key) throw new Error(`payload encrypted with unknown key id "${id}"`);
      const data = Buffer.from(p.data ?? new Uint8Array());
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}

/** The codec of this deployment, or null when PAYLOAD_CODEC_KEYS is unset. */
export function payloadCodecFor(config: { payloadCodecKeys: string }): AesGcmPayloadCodec | null {
  return config.payloadCodecKeys ? new AesGcmPayloadCodec(parseCodecKeys(config.payloadCodecKeys)) : null;
}

/** The data converter for Client and Worker: the default converter, plus the codec when configured. */
export function dataConverterFor(config: { payloadCodecKeys: string }): DataConverter | undefined {
  const codec = payloadCodecFor(config);
  return codec ? { payloadCodecs: [codec] } : undefined;
}
