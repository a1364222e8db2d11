/** The optional AES-GCM payload codec (src/adapters/payload-codec.ts): what Temporal stores is not the plaintext. */
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, dataConverterFor, ENCRYPTED_ENCODING, parseCodecKeys } from '../../src/adapters/payload-codec';

const keyOf = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
const text = (b?: Uint8Array | null) => Buffer.from(b ?? []).toString('utf8');

describe('payload codec', () => {
  const email = { to: 'buyer@customer.example', template: 'order-confirmation', data: { orderNumber: 'SO-1001' } };
  const payload = defaultPayloadConverter.toPayload(email);

  test('when a payload is encoded, then neither the data nor the metadata holds the plaintext and decoding gives the original', async () => {
    const codec = new AesGcmPayloadCodec(parseCodecKeys(keyOf('k1')));
    const [enc] = await codec.encode([payload]);
    expect(text(enc.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(text(enc.metadata?.['encryption-key-id'])).toBe('k1');
    expect(text(enc.data)).not.toContain('buyer@customer.example');
    expect(text(enc.data)).not.toContain('json/plain');
    const [dec] = await codec.decode([enc]);
    expect(defaultPayloadConverter.fromPayload(dec)).toEqual(email);
  });

  test('when the same payload is encoded twice, then the ciphertexts differ (random IV)', async () => {
    const codec = new AesGcmPayloadCodec(parseCodecKeys(keyOf('k1')));
    const [a] = await codec.encode([payload]);
    const [b] = await codec.encode([payload]);
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
  });

  test('when keys are rotated, then payloads of the old key still decode and new ones use the first key', async () => {
    const old = keyOf('k1');
    const [enc] = await new AesGcmPayloadCodec(parseCodecKeys(old)).encode([payload]);
    const rotated = new AesGcmPayloadCodec(parseCodecKeys(`${keyOf('k2')},${old}`));
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([enc]))[0])).toEqual(email);
    expect(text((await rotated.encode([payload]))[0].metadata?.['encryption-key-id'])).toBe('k2');
  });

  test('when the ciphertext is tampered with or the key is unknown, then decoding fails', async () => {
    const codec = new AesGcmPayloadCodec(parseCodecKeys(keyOf('k1')));
    const [enc] = await codec.encode([payload]);
    const bad = Buffer.from(enc.data!);
    bad[20] ^= 1;
    await expect(codec.decode([{ ...enc, data: new Uint8Array(bad) }])).rejects.toThrow();
    await expect(new AesGcmPayloadCodec(parseCodecKeys(keyOf('k9'))).decode([enc])).rejects.toThrow(/unknown key id "k1"/);
  });

  test('when a payload is not encrypted, then decoding passes it through (histories from before the codec stay readable)', async () => {
    const codec = new AesGcmPayloadCodec(parseCodecKeys(keyOf('k1')));
    expect(await codec.decode([payload])).toEqual([payload]);
  });

  test('when PAYLOAD_CODEC_KEYS is empty, then there is no codec; a malformed key is refused', () => {
    expect(dataConverterFor({ payloadCodecKeys: '' })).toBeUndefined();
    expect(() => dataConverterFor({ payloadCodecKeys: 'k1:c2hvcnQ=' })).toThrow(/PAYLOAD_CODEC_KEYS/);
  });
});
