import { clientIp } from '../../src/http/client-ip';
import { parseTrustProxy } from '../../src/domain/network/trust-proxy';
import { checkInput, checkParams } from '../../src/http/input-guard';

describe('client IP behind TRUST_PROXY', () => {
  test('when no proxy is trusted, then the socket address is the client whatever X-Forwarded-For says', () => {
    expect(clientIp('::ffff:203.0.113.9', '1.2.3.4', { hops: 0 })).toBe('203.0.113.9');
  });
  test('when one hop is trusted, then the entry our proxy appended is the client, not a spoofed prefix', () => {
    expect(clientIp('10.0.0.2', '6.6.6.6, 198.51.100.7', { hops: 1 })).toBe('198.51.100.7');
    expect(clientIp('10.0.0.2', undefined, { hops: 1 })).toBe('10.0.0.2');
    expect(clientIp('10.0.0.2', 'not-an-ip', { hops: 1 })).toBe('10.0.0.2');
  });
  test('when proxy addresses are trusted, then trailing trusted hops are skipped', () => {
    const trust = parseTrustProxy('10.0.0.2, 10.0.0.3');
    expect(trust).toEqual({ addresses: ['10.0.0.2', '10.0.0.3'] });
    expect(clientIp('10.0.0.2', '6.6.6.6, 198.51.100.7, 10.0.0.3', trust as { addresses: string[] })).toBe('198.51.100.7');
    expect(clientIp('192.0.2.1', '6.6.6.6', trust as { addresses: string[] })).toBe('192.0.2.1');
  });
  test('when TRUST_PROXY is "true" or garbage, then the configuration is refused', () => {
    expect(typeof parseTrustProxy('true')).toBe('string');
    expect(parseTrustProxy('')).toEqual({ hops: 0 });
    expect(parseTrustProxy('2')).toEqual({ hops: 2 });
  });
});

describe('input guard', () => {
  test('when a body nests 8,000 levels, then one error at the depth limit and no stack overflow', () => {
    const deep = JSON.parse('{"a":'.repeat(8000) + '1' + '}'.repeat(8000)) as unknown;
    const errors = checkInput(deep)!;
    expect(Object.keys(errors)).toHaveLength(1);
    expect(Object.values(errors)[0][0]).toMatch(/nested more than 32 levels/);
  });
  test('when strings, keys or params carry NUL or are too long, then the field is named and the value is not echoed', () => {
    const errors = checkInput({ a: 'x\u0000y', b: { c: ['ok', 'z'.repeat(100_001)] }, ['k\u0000']: 1 })!;
    expect(Object.keys(errors).sort()).toEqual(['$', 'a', 'b.c[1]']);
    expect(JSON.stringify(errors)).not.toContain('zzzz');
    expect(checkParams({ sku: 'a\u0000' })).toEqual({ sku: ['sku must not contain the NUL character.'] });
    expect(checkParams({ sku: 'fine' })).toBeNull();
  });
});
