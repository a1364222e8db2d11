import { decryptJson, decryptSecret, encryptJson, encryptSecret, envelopeKeyId, parseEncryptionKeys } from '../../src/domain/secrets/crypto';
import { classifyResponse, parseRetryAfter, retryDelaysMs, subscriptionMatches } from '../../src/domain/webhooks/rules';
import { newWebhookSecret, signatureHeader, signPayload, verifySignature } from '../../src/domain/webhooks/signature';
import { targetProblem } from '../../src/services/webhooks/send';

const key = (b: number) => Buffer.alloc(32, b).toString('base64');

describe('Standard Webhooks signatures', () => {
  test('when signed, then the entry is v1,<base64 HMAC-SHA256 of id.timestamp.body keyed with the decoded secret>', () => {
    // Example from the Standard Webhooks specification's reference implementation.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signPayload(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('when two secrets sign, then the header has two entries and either secret verifies', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    const now = 1_700_000_000;
    const header = signatureHeader([a, b], 'evt', now, '{}');
    expect(header.split(' ')).toHaveLength(2);
    for (const s of [a, b]) expect(verifySignature(s, { id: 'evt', timestamp: String(now), signature: header }, '{}', { nowSeconds: now })).toBe(true);
    expect(verifySignature(newWebhookSecret(), { id: 'evt', timestamp: String(now), signature: header }, '{}', { nowSeconds: now })).toBe(false);
    expect(verifySignature(a, { id: 'evt', timestamp: String(now), signature: header }, '{ }', { nowSeconds: now })).toBe(false);
    expect(verifySignature(a, { id: 'evt', timestamp: String(now), signature: header }, '{}', { nowSeconds: now + 301 })).toBe(false);
  });

  test('when a secret is made, then it is whsec_ and base64 of 32 bytes', () => {
    const s = newWebhookSecret();
    expect(s).toMatch(/^whsec_/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
  });
});

describe('webhook rules', () => {
  test('when scaled, then the schedule is 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h times the factor', () => {
    expect(retryDelaysMs()).toEqual([0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
    expect(retryDelaysMs(0.001)).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
  });

  test('when answers are classified, then 2xx succeeds, 410 is gone, redirects fail, 429/503 honour Retry-After', () => {
    expect(classifyResponse(204, null, 0)).toEqual({ kind: 'succeeded' });
    expect(classifyResponse(410, null, 0)).toEqual({ kind: 'gone' });
    expect(classifyResponse(302, null, 0)).toEqual({ kind: 'retry', retryAfterMs: null, error: 'HTTP 302 redirect (not followed)' });
    expect(classifyResponse(429, '7', 0)).toEqual({ kind: 'retry', retryAfterMs: 7000, error: 'HTTP 429' });
    expect(classifyResponse(503, 'Thu, 01 Jan 1970 00:00:10 GMT', 4000)).toEqual({ kind: 'retry', retryAfterMs: 6000, error: 'HTTP 503' });
    expect(classifyResponse(500, '7', 0)).toEqual({ kind: 'retry', retryAfterMs: null, error: 'HTTP 500' });
    expect(parseRetryAfter('soon', 0)).toBeNull();
  });

  test('when matching, then * selects every event but webhook.test, which goes only where asked', () => {
    expect(subscriptionMatches(['*'], 'order.created')).toBe(true);
    expect(subscriptionMatches(['invoice.paid'], 'order.created')).toBe(false);
    expect(subscriptionMatches(['*'], 'webhook.test')).toBe(false);
  });

  test('when private networks are not allowed, then http, loopback, private and link-local targets are refused', () => {
    expect(targetProblem('http://example.com/hook', false)).toBe('url must use https.');
    expect(targetProblem('https://127.0.0.1/hook', false)).toMatch(/private, loopback or link-local/);
    expect(targetProblem('https://10.1.2.3/hook', false)).toMatch(/private/);
    expect(targetProblem('https://169.254.169.254/latest', false)).toMatch(/link-local/);
    expect(targetProblem('https://[::1]/hook', false)).toMatch(/loopback/);
    expect(targetProblem('https://user:pw@example.com/', false)).toBe('url must not contain credentials.');
    expect(targetProblem('https://example.com/hook', false)).toBeNull();
    expect(targetProblem('https://2130706433/hook', false)).toMatch(/private, loopback or link-local/);
    expect(targetProblem('https://0x7f.1/hook', false)).toMatch(/private, loopback or link-local/);
    expect(targetProblem('https://[::ffff:169.254.169.254]/', false)).toMatch(/link-local/);
    expect(targetProblem('http://127.0.0.1:8080/hook', true)).toBeNull();
  });
});

describe('secrets at rest', () => {
  const keys = parseEncryptionKeys(`k2:${key(2)},k1:${key(1)}`);

  test('when encrypted, then the envelope names the first key, hides the plaintext and decrypts', () => {
    const env = encryptSecret('s3cret-value', keys);
    expect(envelopeKeyId(env)).toBe('k2');
    expect(env).not.toContain('s3cret');
    expect(decryptSecret(env, keys)).toBe('s3cret-value');
    expect(decryptJson(encryptJson({ ApiKey: 'x' }, keys), keys)).toEqual({ ApiKey: 'x' });
  });

  test('when an old key id is still listed, then old envelopes decrypt; when it is gone, the error names only the key id', () => {
    const old = encryptSecret('value', parseEncryptionKeys(`k1:${key(1)}`));
    expect(decryptSecret(old, keys)).toBe('value');
    expect(() => decryptSecret(old, parseEncryptionKeys(`k3:${key(3)}`))).toThrow('encrypted with key "k1", which ENCRYPTION_KEYS does not list');
  });

  test('when a ciphertext is tampered with, then decryption fails', () => {
    const env = encryptSecret('value', keys).split(':');
    env[3] = Buffer.from('other').toString('base64url');
    expect(() => decryptSecret(env.join(':'), keys)).toThrow('failed authentication');
  });

  test('when ENCRYPTION_KEYS is malformed, then parsing fails naming the problem', () => {
    expect(() => parseEncryptionKeys('nokey')).toThrow('id:base64key');
    expect(() => parseEncryptionKeys(`k1:${Buffer.alloc(16).toString('base64')}`)).toThrow('32 bytes');
    expect(() => parseEncryptionKeys(`k1:${key(1)},k1:${key(2)}`)).toThrow('twice');
  });
});
